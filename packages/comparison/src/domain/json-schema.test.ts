import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderJsonSchema, renderJsonSchemaText, SCHEMA_DRAFTS, SCHEMA_FILES } from "./json-schema.js";
import type { FieldSpec, ObjectSpec } from "./shape.js";
import { DOCUMENT_SPEC } from "./shape.js";

type JsonSchema = Record<string, unknown>;

function shippedText(file: string): string {
  return readFileSync(new URL(`../../schema/${file}`, import.meta.url), "utf8");
}

/** Rebuilds the validator's shape table from a generated JSON Schema, to compare it with the real one. */
function specFromSchema(node: JsonSchema, defs: Record<string, JsonSchema>, noun: string): ObjectSpec {
  const resolve = (schema: JsonSchema): JsonSchema => {
    const ref = schema.$ref;
    if (typeof ref !== "string") return schema;
    const target = defs[ref.split("/").pop() ?? ""];
    if (!target) throw new Error(`unresolved ${ref}`);
    return target;
  };
  const object = resolve(node);
  expect(object.additionalProperties).toBe(false);
  const properties = object.properties as Record<string, JsonSchema>;
  expect(object.required).toEqual(Object.keys(properties));
  const fields: Record<string, FieldSpec> = {};
  for (const [key, raw] of Object.entries(properties)) {
    const property = resolve(raw);
    if (Array.isArray(property.enum)) fields[key] = { type: "enum", values: property.enum as string[] };
    else if (property.type === "string")
      fields[key] = { type: "string", minLength: property.minLength === 1 ? 1 : 0 };
    else if (property.type === "boolean") fields[key] = { type: "boolean" };
    else if (property.type === "integer")
      fields[key] = {
        type: "integer",
        minimum: property.minimum as number,
        maximum: property.maximum as number,
      };
    else if (property.type === "array") {
      const items = resolve(property.items as JsonSchema);
      if (items.type === "string") {
        expect(items.minLength).toBe(1);
        fields[key] = { type: "strings" };
      } else {
        const nestedNoun = key === "filters" ? "filter group" : key === "values" ? "filter value" : "row";
        fields[key] = { type: "objects", of: specFromSchema(items, defs, nestedNoun) };
      }
    } else throw new Error(`unexpected property ${key}`);
  }
  return { noun, fields };
}

describe("the shipped JSON Schema files", () => {
  it.each(SCHEMA_DRAFTS)("are current for draft %s (run `pnpm generate:schema` if this fails)", (draft) => {
    expect(shippedText(SCHEMA_FILES[draft])).toBe(renderJsonSchemaText(draft));
  });

  it("declare their dialect and close every object", () => {
    expect(renderJsonSchema("2020-12").$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(renderJsonSchema("07").$schema).toBe("http://json-schema.org/draft-07/schema#");
    for (const draft of SCHEMA_DRAFTS) {
      const text = shippedText(SCHEMA_FILES[draft]);
      const objects = text.match(/"type": "object"/g)?.length;
      expect(text.match(/"additionalProperties": false/g)?.length).toBe(objects);
    }
  });

  it("describe exactly the shape the validator checks", () => {
    for (const draft of SCHEMA_DRAFTS) {
      const schema = renderJsonSchema(draft);
      const defs = (schema.$defs ?? schema.definitions) as Record<string, JsonSchema>;
      expect(specFromSchema(schema, defs, "document")).toEqual(DOCUMENT_SPEC);
    }
  });
});
