/**
 * Writes `schema/rules.schema.json`, the JSON Schema of the rules file, from its zod schema
 * (`pnpm --filter @vetted/fileorg schema:rules`). A test fails when the committed file is stale.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { rulesFileJsonSchemaText } from "../src/domain/rules-file.js";

writeFileSync(
  fileURLToPath(new URL("../schema/rules.schema.json", import.meta.url)),
  rulesFileJsonSchemaText(),
);
