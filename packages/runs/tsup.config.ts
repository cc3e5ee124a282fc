import { defineConfig, type Options } from "tsup";

type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

/**
 * zod's `z.locales` namespace (40-odd translations, ~370 kB) rides along with `z` when zod is bundled;
 * nothing here reads it (the English messages come with zod's schemas module), so the bundle gets an
 * empty namespace instead.
 */
const withoutZodLocales: EsbuildPlugin = {
  name: "without-zod-locales",
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[/\\]zod[/\\]/.test(args.importer) ? { path: "zod-locales", namespace: "empty" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "export {};", loader: "js" }));
  },
};

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
  // Import time: Node 20 pays per module file, and zod (~95 files) and drizzle-orm (~105) were two thirds
  // of the ~220 files `import "@vetted/runs"` loaded. Bundled, they are one file; both are built to
  // work beside another copy (zod's `instanceof` goes by traits and its registry lives on globalThis,
  // drizzle's `is()` by entity kind), so the consumer's zod and the database from `@vetted/store` meet
  // these schemas and tables as their own. The types still import them (they stay dependency and peer).
  noExternal: ["zod", "drizzle-orm"],
  esbuildPlugins: [withoutZodLocales],
  minifyWhitespace: true,
  minifySyntax: true,
});
