import { join } from "node:path";
import { drizzle } from "drizzle-orm/libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManifestPage } from "../../domain/manifest.js";
import { createBulkInserter } from "../../store/bulk-insert.js";
import { jobs, rows } from "../../store/schema.js";
import { createHarness, type Harness } from "../../tests/harness.js";
import type { Database } from "../db.js";
import { EMPTY_PLAN_ACCUMULATOR } from "../plan-hash.js";
import { findJob, type JobRecord } from "../records.js";
import { createTextSearch, foldAscii, type TextSearch } from "./text-search.js";
import { type ListRowsOptions, listRows } from "./views.js";

const JOB = "job_text_search";
const ROWS = 1_200;
const LOCAL = { actor: "local", requestId: "req-text-search" };

let h: Harness;
/** The harness's database, typed as the engine's. */
let db: Database;
let out: string;

/** File names with upper and lower case, accents SQLite does not fold, `%`, `_`, `\` and an emoji. */
function nameOf(i: number): string {
  switch (i % 9) {
    case 0:
      return `File-${i}.TXT`;
    case 1:
      return `café ${i}.md`;
    case 2:
      return `CAFÉ ${i}.MD`;
    case 3:
      return `100%_done-${i}.txt`;
    case 4:
      return `a_b ${i}.csv`;
    case 5:
      return `Straße ${i}.txt`;
    case 6:
      return `back\\slash ${i}.log`;
    case 7:
      return `📷 Ünïcode ${i}.jpg`;
    default:
      return `x%y-${i}.dat`;
  }
}

async function seed(): Promise<void> {
  await h.db.insert(jobs).values({
    id: JOB,
    kind: "analyze",
    status: "succeeded",
    phase: "done",
    progress: 1,
    manifestJobId: JOB,
    params: { source_dir: join(h.dir, "In"), output_dir: out, naming_template: "{category}/{name}{ext}" },
    revision: 0,
    planAccumulator: EMPTY_PLAN_ACCUMULATOR,
    actor: "test",
    createdAt: 1,
    updatedAt: 1,
  });
  const all = Array.from({ length: ROWS }, (_, n) => {
    const i = n + 1;
    const name = nameOf(i);
    const targetPath = join(out, i % 2 === 0 ? "Documents" : "Other", name.toLowerCase());
    return {
      id: `row_${String(i).padStart(6, "0")}`,
      jobId: JOB,
      seq: i,
      sourcePath: join(h.dir, "In", `Batch-${i % 7}`, name),
      targetPath,
      targetKey: targetPath.toLowerCase(),
      size: i,
      mtime: 1_700_000_000_000 + i,
      sha256: i.toString(16).padStart(64, "0"),
      mime: "text/plain",
      category: "documents",
      confidence: 0.9,
      action: "move" as const,
      reviewBucket: i % 4 === 0 ? ("needs_review" as const) : ("auto_safe" as const),
      reasonCodes: ["EXTENSION_MATCH"],
      status: "pending" as const,
      conflictIds: [],
      planDigest: "0".repeat(64),
      error: null,
      updatedAt: 1,
    };
  });
  const insert = createBulkInserter(rows);
  await h.db.transaction(async (tx) => {
    for (let i = 0; i < all.length; i += 1000) {
      const statement = insert(all.slice(i, i + 1000));
      if (statement !== undefined) await tx.run(statement);
    }
  });
}

async function job(): Promise<JobRecord> {
  const found = await findJob(db, JOB);
  if (found === undefined) throw new Error("no job");
  return found;
}

/** Every page of a listing, following its cursors. */
async function allPages(options: ListRowsOptions, search?: TextSearch): Promise<ManifestPage[]> {
  const pages: ManifestPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await listRows(db, JOB, { ...options, cursor }, search);
    pages.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && pages.length < 1000);
  return pages;
}

/** A search copy of the manifest's current state, ready. */
async function readySearch(): Promise<TextSearch> {
  const search = createTextSearch({ delayMs: 0 });
  await listRows(db, JOB, { limit: 1 }, search);
  await search.settled();
  expect(search.candidates(await job(), "file", -1, 1)).toBeDefined();
  return search;
}

beforeAll(async () => {
  h = await createHarness();
  db = drizzle(h.db.$client);
  out = join(h.dir, "Out");
  await seed();
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("the text filter's search copy", () => {
  it("folds ASCII letters only, as SQLite's LIKE does", () => {
    expect(foldAscii("CAFÉ Straße ÜBER x%Y_Z")).toBe("cafÉ straße Über x%y_z");
  });

  const queries = [
    "file-1",
    "FILE-1",
    "café",
    "CAFÉ",
    "É",
    "é",
    "caf",
    "%",
    "_",
    "100%_",
    "%_d",
    "a_b",
    "x%y",
    "\\",
    "back\\slash 1",
    "straße",
    "STRASSE",
    "📷",
    "ünïcode",
    "ÜNÏCODE",
    ".md",
    "/",
    "batch-3/",
    "documents/file",
    "In/Batch",
    "zz-none",
    "1",
    "\u001f",
    "a\u0000b",
  ];

  it("answers every page exactly as the plain scan, following cursors (unicode, case, %, _)", async () => {
    const search = await readySearch();
    for (const text of queries) {
      for (const limit of [50, 1000]) {
        const scanned = await allPages({ text, limit });
        const searched = await allPages({ text, limit }, search);
        expect(searched, `${JSON.stringify(text)} by ${limit}`).toEqual(scanned);
      }
    }
  }, 300_000);

  it("answers with other filters as the scan does, and a cursor of either reads on in the other", async () => {
    const search = await readySearch();
    for (const text of ["file", "É", "%", "_", "zz-none"]) {
      const options = { text, bucket: "needs_review" as const, limit: 5 };
      expect(await allPages(options, search)).toEqual(await allPages(options));
    }
    const first = await listRows(db, JOB, { text: "café", limit: 3 });
    const cursor = first.next_cursor ?? undefined;
    expect(cursor).toBeDefined();
    expect(await listRows(db, JOB, { text: "café", limit: 3, cursor }, search)).toEqual(
      await listRows(db, JOB, { text: "café", limit: 3, cursor }),
    );
  }, 60_000);

  it("is never used once the manifest changed: an edited target is found at once", async () => {
    const search = await readySearch();
    const before = await listRows(db, JOB, { text: "moved-here", limit: 10 }, search);
    expect(before.items).toEqual([]);
    await h.engine.editRow(JOB, "row_000010", { target_path: "Moved-Here/renamed.txt" }, LOCAL);
    const after = await listRows(db, JOB, { text: "moved-here", limit: 10 }, search);
    expect(after.items.map((r) => r.row_id)).toEqual(["row_000010"]);
    // The listing started a copy of the new state; once built it answers the same.
    await search.settled();
    expect(search.candidates(await job(), "moved-here", -1, 10)?.seqs).toEqual([10]);
    expect(await listRows(db, JOB, { text: "moved-here", limit: 10 }, search)).toEqual(after);
  }, 60_000);
});
