import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planRules, ReviewRule } from "../domain/review-rule.js";
import { toManifestRow } from "../engine/manifest/index.js";
import { migrate } from "./migrate.js";
import { rulePrefilter } from "./review-queries.js";
import { rows } from "./schema.js";

const dir = mkdtempSync(join(tmpdir(), "fileorg-prefilter-"));
const client = createClient({ url: `file:${join(dir, "db.sqlite")}`, timeout: 5000 });
const db = drizzle(client);
const names = [
  "Receipt-01.PDF",
  "receipt_02.pdf",
  "photo.JPG",
  "notes.txt",
  "scan 3.pdf",
  "Ärger.pdf",
  ".pdf",
  "data.tar.gz",
];

beforeAll(async () => {
  await migrate(db);
  await db.insert(rows).values(
    names.flatMap((name, i) =>
      [0, 1].map((k) => ({
        id: `row_${i}_${k}`,
        jobId: "job_a",
        seq: i * 2 + k + 1,
        sourcePath: `/in/${k === 0 ? "Inbox" : "other"}/${name}`,
        targetPath: `/out/documents/${name}`,
        targetKey: `/out/documents/${name}`.toLowerCase(),
        size: 100 * (i + 1),
        mtime: Date.UTC(2024, i % 12, 5),
        sha256: null,
        mime: i % 3 === 0 ? "application/pdf" : i % 3 === 1 ? "image/jpeg" : null,
        category: i % 2 === 0 ? ("documents" as const) : ("images" as const),
        confidence: (i + 1) / 10,
        action: "move" as const,
        reviewBucket: k === 0 ? ("needs_review" as const) : ("auto_safe" as const),
        reasonCodes: [],
        status: i === 7 ? ("applied" as const) : ("pending" as const),
        conflictIds: i % 4 === 0 ? ["cf_1"] : [],
        planDigest: "0".repeat(64),
        error: null,
        updatedAt: 0,
      })),
    ),
  );
});
afterAll(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

const render = { renderTarget: () => ({ ok: true as const, path: "/x" }), includeUnchanged: true };

describe("rulePrefilter", () => {
  it.each([
    { all: [{ field: "extension", in: ["PDF"] }] },
    { all: [{ field: "name_glob", glob: "receipt*" }] },
    { all: [{ field: "name_glob", glob: "*ärger*" }] },
    { all: [{ field: "path_glob", glob: "/in/Inbox/*" }] },
    { all: [{ field: "mime", in: ["image/*"] }] },
    { all: [{ field: "category", in: ["Images"] }] },
    { all: [{ field: "size", min: 300, max: 600 }] },
    { all: [{ field: "date", from: "2024-03-01", to: "2024-05-05" }] },
    { all: [{ field: "confidence", max: 0.35 }] },
    { all: [{ field: "bucket", in: ["needs_review"] }] },
    { all: [{ field: "has_conflict", value: true }] },
    {
      any: [
        { field: "extension", in: [".gz"] },
        { field: "name_regex", regex: "^scan" },
      ],
    },
    {
      any: [
        { field: "extension", in: [".txt"] },
        { field: "category", in: ["images"] },
      ],
      none: [{ field: "size", max: 200 }],
    },
  ])("narrows %j without losing a single match", async (conditions) => {
    const rule = ReviewRule.parse({ name: "r", conditions, actions: [{ type: "skip" }] });
    const every = (await db.select().from(rows).where(eq(rows.jobId, "job_a")).orderBy(rows.seq)).map(
      (r) => ({
        ...toManifestRow(r),
        has_conflict: r.conflictIds.length > 0,
      }),
    );
    const narrowed = (
      await db.select().from(rows).where(rulePrefilter("job_a", rule.conditions)).orderBy(rows.seq)
    ).map((r) => ({
      ...toManifestRow(r),
      has_conflict: r.conflictIds.length > 0,
    }));
    const exact = planRules(every, [rule], render).map((c) => c.row_id);
    expect(planRules(narrowed, [rule], render).map((c) => c.row_id)).toEqual(exact);
    expect(exact.length).toBeGreaterThan(0);
  });
});
