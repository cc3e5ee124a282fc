import { execFile } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import packageBuild from "../../../tsup.config.js";
import {
  docxCreated,
  jpegWithCamera,
  jpegWithExif,
  mp3WithId3,
  pdfWithCreationDate,
  pdfWithText,
} from "../../tests/content-fixtures.js";

const PACKAGE_DIR = fileURLToPath(new URL("../../..", import.meta.url));
const OUT_DIR = join(PACKAGE_DIR, "node_modules", ".cache", `fileorg-readers-${process.pid}`);

/** The file threads' entry as the package's build names it (`dist/inspect-worker.js`). */
function workerEntry(): string {
  const entry: unknown = "entry" in packageBuild ? packageBuild.entry : undefined;
  const worker = (entry as Record<string, unknown> | undefined)?.["inspect-worker"];
  if (typeof worker !== "string") throw new Error("tsup.config.ts has no inspect-worker entry");
  return join(PACKAGE_DIR, worker);
}

/**
 * Bundles `inspect-pool.ts` and the worker entry the way the package's build does (each beside the other,
 * dependencies external), so the pool starts the built `.js` worker, never the sources.
 */
async function buildPool(): Promise<string> {
  const { build } = await import("tsup");
  await build({
    config: false,
    entry: { pool: join(PACKAGE_DIR, "src/engine/inspect-pool.ts"), "inspect-worker": workerEntry() },
    outDir: OUT_DIR,
    format: ["esm"],
    platform: "node",
    target: "node20",
    bundle: true,
    splitting: false,
    silent: true,
  });
  return join(OUT_DIR, "pool.js");
}

/** What the built worker answers for each file: its date hints, metadata and text excerpt. */
interface Probed {
  hints: unknown;
  meta: unknown;
  text: unknown;
}

const PROBE = `
const [pool, root, ...files] = process.argv.slice(1);
const { createInspectPool } = await import(pool);
const threads = createInspectPool(1, { pdfText: process.env.PDF_TEXT === "1" });
const found = await threads.inspect(files, [root]);
await threads.close();
process.stdout.write(JSON.stringify(found.map((f) => ({ hints: f?.dateHints ?? null, meta: f?.meta ?? null, text: f?.text ?? null }))));
`;

describe("the built file threads", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-built-")));
  /** Writes `files` and asks the built worker about them, in a plain node process (no TypeScript loader). */
  async function probe(
    pool: string,
    files: Record<string, string | Buffer>,
    pdfText = false,
  ): Promise<Probed[]> {
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
    const paths = Object.keys(files).map((name) => join(dir, name));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--input-type=module", "-e", PROBE, pool, dir, ...paths],
      { cwd: OUT_DIR, env: { ...process.env, PDF_TEXT: pdfText ? "1" : "0" } },
    );
    return JSON.parse(stdout) as Probed[];
  }
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(OUT_DIR, { recursive: true, force: true });
  });

  it("read a PDF's, a .docx's and a photo's dates from the built worker beside the bundle", async () => {
    const pool = await buildPool();
    const files = {
      "scan.pdf": pdfWithCreationDate("D:20180304101112+02'00'"),
      "letter.docx": docxCreated("2017-11-23T08:00:00Z"),
      "photo.jpg": jpegWithExif("2019:07:14 10:11:12"),
      "notes.txt": "no date here\n",
    };
    const found = await probe(pool, files);
    expect(found.map((f) => f.hints)).toEqual([
      [{ source: "pdf", text: "D:20180304101112+02'00'" }],
      [{ source: "office", text: "2017-11-23T08:00:00Z" }],
      [{ source: "exif", text: "2019:07:14 10:11:12" }],
      null,
    ]);
  }, 60_000);

  it("read a track's tags, a photo's camera and a text file's excerpt from the built worker", async () => {
    const pool = await buildPool();
    const found = await probe(pool, {
      "song.mp3": mp3WithId3({ artist: "Björk", album: "Homogenic", title: "Jóga", track: "2" }),
      "camera.jpg": jpegWithCamera("Canon", "EOS 80D"),
      "notes.md": "# Notes\n",
    });
    expect(found).toEqual([
      {
        hints: null,
        meta: { audio: { artist: "Björk", album: "Homogenic", title: "Jóga", track: 2 } },
        text: null,
      },
      { hints: null, meta: { camera: { make: "Canon", model: "EOS 80D" } }, text: null },
      { hints: null, meta: null, text: "# Notes\n" },
    ]);
  }, 60_000);

  it("read a PDF's text from the built worker (pdfjs loaded beside the bundle) only when asked", async () => {
    const pool = await buildPool();
    const files = { "contract.pdf": pdfWithText(["Service agreement", "the golden needle"]) };
    expect((await probe(pool, files, true))[0]?.text).toBe("Service agreement\nthe golden needle");
    expect((await probe(pool, files))[0]?.text).toBeNull();
  }, 60_000);
});
