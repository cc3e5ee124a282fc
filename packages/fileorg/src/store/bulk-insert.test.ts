import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../tests/harness.js";
import { createBulkInserter, createBulkScript } from "./bulk-insert.js";
import { rows } from "./schema.js";

type RowInsert = typeof rows.$inferInsert;

const row = (id: string, seq: number, overrides: Partial<RowInsert> = {}): RowInsert => ({
  id,
  jobId: "job_bulk",
  seq,
  sourcePath: `/in/naïve “quoted” \\ ${seq}.txt`,
  targetPath: `/out/text/${seq}.txt`,
  targetKey: `/out/text/${seq}.txt`,
  size: 2 ** 40 + seq,
  mtime: 1_700_000_000_123,
  sha256: null,
  mime: "text/plain",
  category: "documents",
  confidence: 0.7234567891234567,
  action: "move",
  reviewBucket: "needs_review",
  reasonCodes: ["EXTENSION_MATCH", "LOW_CONFIDENCE"],
  status: "pending",
  edited: true,
  blocked: false,
  conflictIds: [],
  planDigest: "ab".repeat(32),
  error: { code: "UNREADABLE", message: 'The file cannot be read ("EACCES").' },
  updatedAt: 5,
  ...overrides,
});

describe("bulk insert", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("stores many rows in one statement exactly as Drizzle's insert stores them", async () => {
    h = await createHarness({ start: false });
    const insert = createBulkInserter(rows);
    const bulk = [row("row_a", 1), row("row_b", 2, { sha256: "cd".repeat(32), error: null, confidence: 1 })];
    const statement = insert(bulk);
    expect(statement).toBeDefined();
    if (statement !== undefined) await h.db.run(statement);
    await h.db.insert(rows).values([row("row_c", 3, { jobId: "job_plain" })]);

    const stored = await h.db.select().from(rows).where(eq(rows.jobId, "job_bulk")).orderBy(rows.seq);
    const [plain] = await h.db.select().from(rows).where(eq(rows.jobId, "job_plain"));
    expect(stored).toHaveLength(2);
    // The row inserted through Drizzle and the one inserted in bulk read back identically.
    expect({
      ...stored[0],
      id: "",
      seq: 0,
      jobId: "",
      sourcePath: "",
      targetPath: "",
      targetKey: "",
      size: 0,
    }).toEqual({
      ...plain,
      id: "",
      seq: 0,
      jobId: "",
      sourcePath: "",
      targetPath: "",
      targetKey: "",
      size: 0,
    });
    expect(stored[0]).toMatchObject({
      sourcePath: "/in/naïve “quoted” \\ 1.txt",
      size: 2 ** 40 + 1,
      confidence: 0.7234567891234567,
      edited: true,
      targetEdited: false, // the column default when a record leaves it out
      reasonCodes: ["EXTENSION_MATCH", "LOW_CONFIDENCE"],
      error: { code: "UNREADABLE", message: 'The file cannot be read ("EACCES").' },
    });
    expect(stored[1]).toMatchObject({ sha256: "cd".repeat(32), error: null, confidence: 1 });
  });

  it("as a script with its values inline stores what the bound statement stores, quotes and all", async () => {
    h = await createHarness({ start: false });
    const awkward = {
      sourcePath: "/in/it's a ''quoted'' name; DROP TABLE fileorg_rows; -- \n ✓.txt",
      reasonCodes: ["O'NEIL", '"double"'],
      error: { code: "UNREADABLE", message: "can't read \\ it" },
    };
    const bound = createBulkInserter(rows)([row("row_p", 1, { ...awkward, jobId: "job_bound" })]);
    const script = createBulkScript(rows)([row("row_s", 1, { ...awkward, jobId: "job_script" })]);
    expect(script).toBeDefined();
    if (bound !== undefined) await h.db.run(bound);
    if (script !== undefined) await h.db.run(sql.raw(script));
    const [viaBound] = await h.db.select().from(rows).where(eq(rows.jobId, "job_bound"));
    const [viaScript] = await h.db.select().from(rows).where(eq(rows.jobId, "job_script"));
    expect(viaScript).toEqual({ ...viaBound, id: "row_s", jobId: "job_script" });
    expect(viaScript?.sourcePath).toBe(awkward.sourcePath);
    expect(createBulkScript(rows)([])).toBeUndefined();
  });

  it("builds no statement for no rows", () => {
    expect(createBulkInserter(rows)([])).toBeUndefined();
  });
});
