import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { cloneJson, createLargeDocument, createSampleDocument } from "../tests/fixtures.js";
import { listMutations } from "../tests/mutations.js";
import { validate } from "./validate.js";

function readSchema(file: string): object {
  return JSON.parse(readFileSync(new URL(`../../schema/${file}`, import.meta.url), "utf8")) as object;
}
const schema = readSchema("2020-12.json");

describe("the validator against Ajv 2020 (strict) compiled from the shipped schema", () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const ajvValidate = ajv.compile(schema);

  const corpus: Array<{ name: string; document: unknown }> = [];
  for (const base of [createSampleDocument(), createLargeDocument(3)]) {
    corpus.push({ name: "unchanged", document: base });
    for (const mutation of listMutations(base)) {
      const document = cloneJson(base);
      mutation.apply(document);
      corpus.push({ name: `${mutation.name} at ${mutation.pointer}`, document });
    }
  }
  const large = createLargeDocument(1000);
  for (const index of [0, 999]) {
    for (const mutation of listMutations(large.comparisons[index]).filter((_, i) => i % 5 === 0)) {
      const document = cloneJson(large);
      mutation.apply(document.comparisons[index]);
      corpus.push({ name: `${mutation.name} in row ${index}`, document });
    }
  }

  it("runs on a corpus of at least 500 documents with both verdicts well represented", () => {
    const valid = corpus.filter(({ document }) => ajvValidate(document)).length;
    expect(corpus.length).toBeGreaterThanOrEqual(500);
    expect(valid).toBeGreaterThanOrEqual(50);
    expect(corpus.length - valid).toBeGreaterThanOrEqual(450);
  });

  it("agrees with Ajv on every verdict and points where Ajv points", () => {
    const disagreements: string[] = [];
    for (const { name, document } of corpus) {
      const expected = ajvValidate(document);
      const result = validate(document);
      if (result.ok !== expected) {
        disagreements.push(`${name}: ajv ${expected}, ours ${result.ok}`);
        continue;
      }
      if (result.ok) continue;
      const ourPointers = result.issues.map((issue) => issue.pointer);
      for (const error of ajvValidate.errors ?? []) {
        const extra =
          error.keyword === "required"
            ? `/${String(error.params.missingProperty)}`
            : error.keyword === "additionalProperties"
              ? `/${String(error.params.additionalProperty)}`
              : "";
        const pointer = `${error.instancePath}${extra}`;
        if (!ourPointers.includes(pointer)) disagreements.push(`${name}: ajv flags ${pointer}, we do not`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it("gives the same verdicts with the shipped draft-07 schema under Ajv's draft-07 validator", () => {
    const draft07 = new Ajv({ strict: true }).compile(readSchema("draft-07.json"));
    const disagreements = corpus
      .filter(({ document }) => draft07(document) !== ajvValidate(document))
      .map(({ name }) => name);
    expect(disagreements).toEqual([]);
  });
});
