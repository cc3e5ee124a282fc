import { defineConfig } from "tsup";

export default defineConfig({
  // The confined file-system layer is also loaded by the file threads (see `engine/thread-modules.ts`):
  // it sits beside the bundle as a module of its own.
  entry: {
    index: "src/index.ts",
    browser: "src/browser.ts",
    testing: "src/testing.ts",
    "confined-fs": "src/engine/confined-fs.ts",
  },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
