import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/database.ts", "src/limits.ts", "src/json-depth-entry.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
