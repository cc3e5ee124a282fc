import { defineConfig } from "tsup";

export default defineConfig({
  // The file threads' entry sits beside the bundle, where `engine/inspect-pool.ts` looks for it.
  entry: {
    index: "src/index.ts",
    browser: "src/browser.ts",
    testing: "src/testing.ts",
    "inspect-worker": "src/engine/readers/worker.ts",
  },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
