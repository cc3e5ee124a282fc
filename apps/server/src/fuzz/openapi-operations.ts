/** A JSON Schema node of the OpenAPI document, as far as the fuzzer reads it. */
export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: SchemaNode | boolean;
  propertyNames?: SchemaNode;
  items?: SchemaNode;
  enum?: unknown[];
  const?: unknown;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
}

/** One parameter of an operation. */
export interface ParameterSpec {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: SchemaNode;
}

/** One operation of the live OpenAPI document. */
export interface OperationSpec {
  method: string;
  /** The path template, e.g. `/api/jobs/{job_id}/audit`. */
  path: string;
  parameters: ParameterSpec[];
  /** The JSON request body's schema, when the operation takes one. */
  body: SchemaNode | undefined;
  /** True when the success answer is an event stream (read the head, then hang up). */
  streams: boolean;
}

/** The parts of an OpenAPI 3.1 document the fuzzer reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, SchemaNode> };
}

interface OperationObject {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: SchemaNode }>;
  requestBody?: { content?: Record<string, { schema?: SchemaNode }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);
const LOCATIONS = new Set(["path", "query", "header"]);

/** Every operation of the document, with its parameters and JSON body schema. */
export function listOperations(doc: OpenApiDocument): OperationSpec[] {
  const operations: OperationSpec[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const parameters: ParameterSpec[] = (op.parameters ?? [])
        .filter((p) => LOCATIONS.has(p.in))
        .map((p) => ({
          name: p.name,
          in: p.in as ParameterSpec["in"],
          required: p.required === true,
          schema: p.schema ?? {},
        }));
      const streams = Object.values(op.responses ?? {}).some((r) => "text/event-stream" in (r.content ?? {}));
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters,
        body: op.requestBody?.content?.["application/json"]?.schema,
        streams,
      });
    }
  }
  return operations;
}

/** Follows `$ref`s into `components.schemas` (a missing target reads as the empty schema). */
export function resolveSchema(doc: OpenApiDocument, schema: SchemaNode): SchemaNode {
  let current = schema;
  for (let hops = 0; current.$ref !== undefined && hops < 20; hops++) {
    const name = current.$ref.replace("#/components/schemas/", "");
    current = doc.components?.schemas?.[name] ?? {};
  }
  return current;
}
