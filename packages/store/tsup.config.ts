import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/limits.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
