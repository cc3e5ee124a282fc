import { defineConfig } from "tsup";

export default defineConfig({
  // The local embeddings worker sits beside the bundle, where `lanes/embeddings/local.ts` looks for it.
  entry: {
    index: "src/index.ts",
    testing: "src/testing.ts",
    "local-worker": "src/lanes/embeddings/local-worker.ts",
  },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
