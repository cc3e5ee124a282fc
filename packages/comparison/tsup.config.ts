import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/browser.ts", "src/node.ts", "src/cli.ts", "src/cli-api.ts"],
  format: ["esm"],
  dts: { entry: ["src/index.ts", "src/browser.ts", "src/node.ts", "src/cli-api.ts"] },
  clean: true,
  sourcemap: true,
  target: "node20",
});
