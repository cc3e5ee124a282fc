import { z } from "zod";
import { ComparisonDocument } from "./schema.js";

/** The JSON Schema dialects the package ships. */
export const SCHEMA_DRAFTS = ["2020-12", "07"] as const;
/** A shipped JSON Schema dialect. */
export type SchemaDraft = (typeof SCHEMA_DRAFTS)[number];

/** Where the shipped schemas are published, by draft. */
export const SCHEMA_IDS: Readonly<Record<SchemaDraft, string>> = {
  "2020-12": "https://unpkg.com/@vetted/comparison/schema/2020-12.json",
  "07": "https://unpkg.com/@vetted/comparison/schema/draft-07.json",
};

/** The file name of each shipped schema inside the package's `schema/` folder. */
export const SCHEMA_FILES: Readonly<Record<SchemaDraft, string>> = {
  "2020-12": "2020-12.json",
  "07": "draft-07.json",
};

/**
 * Renders the JSON Schema of {@link ComparisonDocument} from the zod source of truth, with every object
 * closed (`additionalProperties: false`) and the shared objects under `$defs` / `definitions`.
 */
export function renderJsonSchema(draft: SchemaDraft): Record<string, unknown> {
  const generated = z.toJSONSchema(ComparisonDocument, {
    target: draft === "2020-12" ? "draft-2020-12" : "draft-07",
  });
  const { $schema, ...rest } = generated;
  return { $schema, $id: SCHEMA_IDS[draft], ...rest };
}

/** The exact text of a shipped schema file (two-space JSON and a final newline). */
export function renderJsonSchemaText(draft: SchemaDraft): string {
  return `${JSON.stringify(renderJsonSchema(draft), null, 2)}\n`;
}
