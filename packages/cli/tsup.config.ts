import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  // Declarations read the workspace packages' built declarations, not their sources again (^build ran first).
  dts: { entry: ["src/index.ts"], compilerOptions: { customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: "node20",
});
