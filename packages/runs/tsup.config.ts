import { defineConfig, type Options } from "tsup";

type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

/** zod's parts this package never calls, each with what stands in for it in the bundle. */
const ZOD_UNUSED: readonly { path: RegExp; contents: string }[] = [
  // `z.locales`: 40-odd translations (~370 kB); the English messages come with zod's schemas module.
  { path: /[/\\]zod[/\\]v4[/\\]locales[/\\]index\.js$/, contents: "export {};" },
  // `z.compile` and its helpers (~47 kB); parsing never needs them (zod's parse module keeps its own
  // copies of the compiler's sentinels).
  {
    path: /[/\\]zod[/\\]v4[/\\]core[/\\]compile\.js$/,
    contents: [
      'export const INVALID = Symbol.for("zod.compile.invalid");',
      'const absent = () => { throw new Error("z.compile is not part of @vetted/runs\' bundled zod"); };',
      "export class ZodCompileAsyncError extends Error {}",
      "export class ZodCompileUnsupportedError extends Error {}",
      "export { absent as compile, absent as withParser, absent as compileFn };",
    ].join("\n"),
  },
];

const withoutUnusedZod: EsbuildPlugin = {
  name: "without-unused-zod",
  setup(build) {
    build.onLoad({ filter: /[/\\]zod[/\\]v4[/\\].*\.js$/ }, (args) => {
      const stub = ZOD_UNUSED.find((part) => part.path.test(args.path));
      return stub ? { contents: stub.contents, loader: "js" } : undefined;
    });
  },
};

/** The lanes, each published as `@vetted/runs/<lane>` (package.json `exports`). */
export const LANES = [
  "automation",
  "computer-use",
  "embeddings",
  "inbound-sms",
  "proof",
  "reconstruction",
  "sessions",
  "telemetry",
  "tower",
  "webhooks",
] as const;

export default defineConfig({
  // The local embeddings worker sits beside the bundle, where `lanes/embeddings/local.ts` looks for it.
  // Each lane is its own entry (`@vetted/runs/<lane>`), so `import "@vetted/runs"` builds only the core's
  // schemas and code; what entries share lands in chunks beside them.
  entry: {
    index: "src/index.ts",
    ...Object.fromEntries(LANES.map((lane) => [lane, `src/lanes/${lane}/index.ts`])),
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
  // ipaddr.js is the one CommonJS module the engine imports; loaded by Node it starts Node's CommonJS loader
  // and lexer (about a fifth of the import), bundled it is a few kilobytes of ESM.
  noExternal: ["zod", "drizzle-orm", "ipaddr.js"],
  esbuildPlugins: [withoutUnusedZod],
  minifyWhitespace: true,
  minifySyntax: true,
});
