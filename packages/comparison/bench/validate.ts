/**
 * `pnpm --filter @vetted/comparison bench`: the validator against Ajv 2020 on a 1,000-row document,
 * the cost of collecting every issue of an invalid document, and the size of the browser entry.
 * Every figure is printed with its baseline from the same run.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { Ajv2020 } from "ajv/dist/2020.js";
import { build } from "esbuild";
import { findTooDeepOffset } from "../src/domain/depth.js";
import { findDuplicateKeys } from "../src/domain/duplicate-keys.js";
import { validateText } from "../src/domain/text.js";
import { validate } from "../src/domain/validate.js";
import { cloneJson, createLargeDocument } from "../src/tests/fixtures.js";

const ROUNDS = 9;
const ROUND_MS = 250;

function timedRound(run: () => unknown): number {
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ROUND_MS) {
    for (let i = 0; i < 10; i++) run();
    count += 10;
    elapsed = performance.now() - start;
  }
  return (count * 1000) / elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Median operations per second of two functions, timed in alternating rounds after a warm-up of both,
 * so that machine noise and JIT state weigh on both sides alike.
 */
function compareRates(a: () => unknown, b: () => unknown): [number, number] {
  for (let i = 0; i < 300; i++) {
    a();
    b();
  }
  const ratesA: number[] = [];
  const ratesB: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ratesA.push(timedRound(a));
    ratesB.push(timedRound(b));
  }
  return [median(ratesA), median(ratesB)];
}

function fmt(rate: number): string {
  return `${Math.round(rate).toLocaleString("en-US")} docs/s (${(1000 / rate).toFixed(3)} ms/doc)`;
}

function check(name: string, condition: boolean): void {
  if (!condition) throw new Error(`bench precondition failed: ${name}`);
}

const schema = JSON.parse(readFileSync(new URL("../schema/2020-12.json", import.meta.url), "utf8")) as object;
const ajvValidate = new Ajv2020({ strict: true }).compile(schema);
const ajvAllErrors = new Ajv2020({ strict: true, allErrors: true }).compile(schema);

const valid = createLargeDocument(1000);
check("the valid document is valid", validate(valid).ok && ajvValidate(valid) === true);

// Ten broken rows spread over the document, one issue each of the common kinds.
const invalid = cloneJson(valid) as unknown as { comparisons: Array<Record<string, unknown>> };
const breakers: Array<(row: Record<string, unknown>) => void> = [
  (row) => {
    row.status = "beta";
  },
  (row) => {
    delete row.smokeCommand;
  },
  (row) => {
    row.colour = "teal";
  },
  (row) => {
    row.label = "";
  },
  (row) => {
    row.readOnly = "yes";
  },
];
for (let i = 0; i < 10; i++) {
  const row = invalid.comparisons[i * 100 + 50];
  const breaker = breakers[i % breakers.length];
  if (row && breaker) breaker(row);
}
const invalidResult = validate(invalid);
check("the invalid document has ten issues", !invalidResult.ok && invalidResult.issues.length === 10);

// Every row broken: the worst case for issue collection.
const allBroken = cloneJson(valid) as unknown as { comparisons: Array<Record<string, unknown>> };
for (const row of allBroken.comparisons) row.status = "beta";

console.log("@vetted/comparison bench (node %s, 1,000-row document)\n", process.version);

const [ajvRate, oursRate] = compareRates(
  () => ajvValidate(valid),
  () => validate(valid),
);
console.log("valid document");
console.log(`  Ajv2020 (strict, compiled once)   ${fmt(ajvRate)}`);
console.log(`  validate                          ${fmt(oursRate)}`);
console.log(
  `  ratio                             ${(oursRate / ajvRate).toFixed(2)}x Ajv's throughput (target >= 5x)\n`,
);

// Measured after the validator has seen invalid rows too (their other hidden classes make its
// property reads polymorphic), with the valid path re-measured in that same state as the baseline.
const [validRate, invalidRate] = compareRates(
  () => validate(valid),
  () => validate(invalid),
);
const [, ajvInvalidRate] = compareRates(
  () => validate(valid),
  () => ajvAllErrors(invalid),
);
console.log("invalid document (10 broken rows), all issues");
console.log(`  validate, valid path (baseline)   ${fmt(validRate)}`);
console.log(`  validate, all 10 issues           ${fmt(invalidRate)}`);
console.log(
  `  ratio                             ${(validRate / invalidRate).toFixed(2)}x the valid-path time (target <= 2x)`,
);
console.log(`  Ajv2020 allErrors, for reference  ${fmt(ajvInvalidRate)}\n`);

const [validAgain, brokenRate] = compareRates(
  () => validate(valid),
  () => validate(allBroken),
);
console.log("invalid document (all 1,000 rows broken), all issues");
console.log(`  validate, valid path (baseline)   ${fmt(validAgain)}`);
console.log(`  validate, all 1,000 issues        ${fmt(brokenRate)}`);
console.log(
  `  ratio                             ${(validAgain / brokenRate).toFixed(2)}x the valid-path time\n`,
);

const text = JSON.stringify(createLargeDocument(1000), null, 2);
check("the text has no duplicate key", findDuplicateKeys(text).length === 0);
const [parseRate, duplicateRate] = compareRates(
  () => JSON.parse(text),
  () => findDuplicateKeys(text),
);
// validateText before the duplicate-key scan: the depth scan, JSON.parse, validate.
const [plainRate, textRate] = compareRates(
  () => findTooDeepOffset(text) ?? validate(JSON.parse(text)),
  () => validateText(text),
);
console.log(`text (${(text.length / 1e6).toFixed(1)} MB), duplicate keys`);
console.log(`  JSON.parse (baseline)             ${fmt(parseRate)}`);
console.log(`  findDuplicateKeys                 ${fmt(duplicateRate)}`);
console.log(
  `  ratio                             ${(parseRate / duplicateRate).toFixed(2)}x JSON.parse's time`,
);
console.log(`  depth scan + parse + validate      ${fmt(plainRate)}  (baseline: validateText before)`);
console.log(`  validateText (one scan for both)  ${fmt(textRate)}`);
console.log(`  ratio                             ${(plainRate / textRate).toFixed(2)}x the baseline time\n`);

async function bundleSize(entry: string): Promise<{ minified: number; gzipped: number }> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
    // Workspace packages resolve to their sources, as in the entries test (no build of @vetted/store needed).
    conditions: ["@vetted/source"],
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };
}

const browser = await bundleSize("../src/browser.ts");
const main = await bundleSize("../src/index.ts");
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} kB`;
console.log("bundle size (esbuild --bundle --minify, gzip -9)");
console.log(`  main entry (baseline)             ${kb(main.minified)} min, ${kb(main.gzipped)} min+gz`);
console.log(`  browser entry (validate only)     ${kb(browser.minified)} min, ${kb(browser.gzipped)} min+gz`);
console.log(
  `  ratio                             ${(browser.gzipped / main.gzipped).toFixed(3)}x the main entry; ${(browser.gzipped / 8192).toFixed(2)}x the 8 kB budget`,
);
