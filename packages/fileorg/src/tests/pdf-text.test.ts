import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { TEXT_EXCERPT_BYTES } from "../engine/readers/content-meta.js";
import { PDF_TEXT_MAX_BYTES, PDF_TEXT_PAGES, pdfTextOf } from "../engine/readers/pdf-text.js";
import { rowTexts } from "../store/schema.js";
import { pdfWithText } from "./content-fixtures.js";
import { type ComposedHarness, createComposedHarness, writeTree } from "./harness.js";

let h: ComposedHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local" };

/** Two PDFs with real text (the needle on the second page of one), a text file without the needle. */
const FILES = {
  "contract.pdf": pdfWithText(["Service agreement", "Clause 9: the golden needle is here"]),
  "other.pdf": pdfWithText(["Nothing to see"]),
  "notes.txt": "no such phrase\n",
};

const NEEDLE_RULES = `version: 1
rules:
  - name: Contracts by their text
    filters: { text: { contains: "golden needle" } }
    actions: { target: "contracts/{name}{ext}" }
`;

/** The files analyzed (with a saved rule testing `text`, or `read_pdf_text`, when asked). */
async function analyzed(options: { savedTextRule?: boolean; readPdfText?: boolean } = {}) {
  h = await createComposedHarness();
  const { fileorg, review, preferences, db } = h;
  const src = join(h.dir, "src");
  const out = join(h.dir, "out");
  writeTree(src, FILES);
  if (options.savedTextRule === true) {
    await preferences.save("review-rules", {
      name: "Needles by text",
      conditions: { all: [{ field: "text", contains: ["golden needle"] }] },
      actions: [{ type: "set_target", template: "found/{name}{ext}" }],
    });
  }
  const job = await fileorg.analyze(
    { source_dir: src, output_dir: out, ...(options.readPdfText === true ? { read_pdf_text: true } : {}) },
    LOCAL,
  );
  expect((await fileorg.waitForJob(job.job_id)).status).toBe("succeeded");
  const rows = async () =>
    new Map((await fileorg.listRows(job.job_id)).items.map((r) => [r.source_path.slice(src.length + 1), r]));
  const listed = await rows();
  const nameOf = new Map([...listed].map(([name, r]) => [r.row_id, name]));
  /** The stored excerpts, by file name. */
  const excerpts = async () =>
    new Map(
      (await db.select().from(rowTexts).where(eq(rowTexts.jobId, job.job_id))).map((t) => [
        nameOf.get(t.rowId),
        t.excerpt,
      ]),
    );
  const rel = (name: string) => listed.get(name)?.target_path.slice(out.length + 1);
  return { review, jobId: job.job_id, rows, excerpts, rel };
}

describe("PDF text for the rules' text filter, read only when a rule needs it", () => {
  it("a saved rule testing `text` makes analyze read PDFs' text: the rule matches the needle inside the PDF", async () => {
    const { review, jobId, excerpts, rel } = await analyzed({ savedTextRule: true });
    expect(rel("contract.pdf")).toBe("found/contract.pdf");
    expect(rel("other.pdf")).toBe("documents/2023/other.pdf");
    const stored = await excerpts();
    expect(stored.get("contract.pdf")).toBe("Service agreement\nClause 9: the golden needle is here");
    expect(stored.get("other.pdf")).toBe("Nothing to see");
    const sim = await review.simulateRulesFile(jobId, NEEDLE_RULES);
    expect(sim.rules[0]?.matched).toBe(1);
  });

  it("without a text rule, analyze reads no PDF's text: no excerpt is stored and a text filter misses the PDF", async () => {
    const { review, jobId, excerpts } = await analyzed();
    expect([...(await excerpts()).keys()]).toEqual(["notes.txt"]);
    const sim = await review.simulateRulesFile(jobId, NEEDLE_RULES);
    expect(sim.rules[0]?.matched).toBe(0);
  });

  it("`read_pdf_text: true` reads PDFs' text for a rules file run on the manifest afterwards", async () => {
    const { review, jobId, rows, excerpts } = await analyzed({ readPdfText: true });
    expect((await excerpts()).get("contract.pdf")).toContain("golden needle");
    const run = await review.runRulesFile(jobId, NEEDLE_RULES, LOCAL);
    expect(run.rules[0]).toMatchObject({ matched: 1, changed: 1 });
    expect((await rows()).get("contract.pdf")?.target_path.endsWith("/out/contracts/contract.pdf")).toBe(
      true,
    );
  });
});

describe("a PDF's excerpt is bounded", () => {
  it(`reads the first ${PDF_TEXT_PAGES} pages only`, async () => {
    const pages = (needleAt: number) =>
      Array.from({ length: PDF_TEXT_PAGES + 1 }, (_, i) => (i + 1 === needleAt ? "needle" : `page ${i + 1}`));
    expect(await pdfTextOf(pdfWithText(pages(PDF_TEXT_PAGES)))).toContain("needle");
    expect(await pdfTextOf(pdfWithText(pages(PDF_TEXT_PAGES + 1)))).not.toContain("needle");
  });

  it("cuts the text at the text files' excerpt bound", async () => {
    const page = Array.from({ length: 200 }, () => "word ".repeat(20)).join("\n");
    const text = await pdfTextOf(pdfWithText([page, page, "needle"]));
    expect(Buffer.byteLength(text ?? "")).toBe(TEXT_EXCERPT_BYTES);
    expect(text).not.toContain("needle");
  });

  it("has none for a PDF over the size bound, a damaged PDF, a PDF without text, or without pdfjs", async () => {
    expect(await pdfTextOf(new Uint8Array(PDF_TEXT_MAX_BYTES + 1))).toBeUndefined();
    expect(await pdfTextOf(Buffer.from("%PDF-1.4\nnot really a PDF\n"))).toBeUndefined();
    expect(await pdfTextOf(pdfWithText([""]))).toBeUndefined();
    const missing = (name: string) => import(`${name}-not-installed`);
    expect(await pdfTextOf(pdfWithText(["needle"]), missing)).toBeUndefined();
  });
});
