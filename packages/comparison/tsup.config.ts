import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/browser.ts", "src/node.ts", "src/cli.ts", "src/cli-api.ts"],
  format: ["esm"],
  // Declarations read the workspace packages' built declarations, not their sources again (^build ran first).
  dts: {
    entry: ["src/index.ts", "src/browser.ts", "src/node.ts", "src/cli-api.ts"],
    compilerOptions: { customConditions: [] },
  },
  clean: true,
  sourcemap: true,
  target: "node20",
});
