/**
 * Writes the shipped JSON Schema files (`schema/2020-12.json`, `schema/draft-07.json`) from the zod
 * source of truth. Run with `pnpm --filter @vetted/comparison generate:schema` after changing the schema.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { renderJsonSchemaText, SCHEMA_DRAFTS, SCHEMA_FILES } from "../src/domain/json-schema.js";

const folder = new URL("../schema/", import.meta.url);
mkdirSync(folder, { recursive: true });
for (const draft of SCHEMA_DRAFTS) {
  const target = new URL(SCHEMA_FILES[draft], folder);
  writeFileSync(target, renderJsonSchemaText(draft));
  console.log(`wrote ${target.pathname}`);
}
