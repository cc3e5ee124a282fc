import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { bundledChild } from "../../../../tools/test-child.js";
import type { ManifestRow } from "../domain/manifest.js";
import { FileorgError } from "../errors.js";
import { createHarness, type Harness, PDF_1PAGE, PNG_1x1, writeTree } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local", requestId: "req-test" };
const NOBODY = 65534;
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Whether the `nobody` uid can reach the package's folder (every folder above it searchable by others):
 * not in a checkout under a private folder such as `mktemp -d`'s, where its child could not load its code.
 */
function reachableByOthers(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (dirname(d) === d) return true;
  }
}

/**
 * Runs an analyze of `src` in a child process under the unprivileged `nobody` uid (the test runs as root):
 * the folder tree is handed to that uid, except the files' own permissions, and the child keeps its
 * database in `dir`.
 */
async function analyzeAsNobody(
  dir: string,
  src: string,
): Promise<{ status: string; uid: number; rows: ManifestRow[] }> {
  for (const path of [dir, src]) chownSync(path, NOBODY, NOBODY);
  // From a bundle of the child, its file threads' module beside it (node alone: no TypeScript loader).
  const script = await bundledChild(PACKAGE_DIR, join(PACKAGE_DIR, "src/tests/analyze-child.ts"), {
    "inspect-worker": join(PACKAGE_DIR, "src/engine/readers/worker.ts"),
  });
  const child = spawn(process.execPath, [script, join(dir, "child.db"), src], {
    cwd: PACKAGE_DIR,
    uid: NOBODY,
    gid: NOBODY,
    env: { ...process.env, HOME: dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`the analyze child exited with ${code}:\n${stderr}`);
  return JSON.parse(stdout) as { status: string; uid: number; rows: ManifestRow[] };
}

async function analyzed(files: Record<string, string | Buffer>, request: Record<string, unknown> = {}) {
  h = await createHarness();
  const src = join(h.dir, "src");
  writeTree(src, files);
  const job = await h.engine.analyze({ source_dir: src, output_dir: join(h.dir, "out"), ...request }, LOCAL);
  const done = await h.engine.waitForJob(job.job_id, 20_000);
  expect(done.status).toBe("succeeded");
  const page = await h.engine.listRows(job.job_id, { limit: 1000 });
  const bySource = (name: string): ManifestRow => {
    const row = page.items.find((r) => r.source_path === join(src, name));
    if (row === undefined) throw new Error(`no row for ${name}`);
    return row;
  };
  return { h, src, out: join(h.dir, "out"), job: done, page, bySource };
}

describe("analyze", () => {
  it("proposes a target per file from magic bytes, extension and the default template", async () => {
    const { out, page, bySource, job } = await analyzed({
      "a/photo.png": PNG_1x1,
      "b/doc.pdf": PDF_1PAGE,
      "notes.txt": "hello",
      "mystery.bin.zzz": "??",
      "misnamed.txt": Buffer.concat([PNG_1x1, Buffer.from("x")]),
      ".hidden/x.txt": "skip me",
      "node_modules/y.js": "skip me",
    });
    expect(page.items).toHaveLength(5);
    expect(bySource("a/photo.png")).toMatchObject({
      target_path: join(out, "images/2023/photo.png"),
      mime: "image/png",
      category: "images",
      action: "move",
      review_bucket: "auto_safe",
      status: "pending",
      edited: false,
      error: null,
    });
    expect(bySource("b/doc.pdf").category).toBe("documents");
    expect(bySource("notes.txt")).toMatchObject({
      category: "documents",
      reason_codes: ["MIME_FROM_EXTENSION"],
    });
    expect(bySource("mystery.bin.zzz")).toMatchObject({ category: "other", review_bucket: "needs_review" });
    expect(bySource("misnamed.txt")).toMatchObject({ category: "images", review_bucket: "needs_review" });
    expect(bySource("misnamed.txt").reason_codes).toContain("EXTENSION_MISMATCH");
    expect(bySource("notes.txt").sha256).toBe(
      "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    );
    expect(page.revision).toBe(0);
    expect(page.plan_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(job.plan_hash).toBe(page.plan_hash);
    const events = await h?.engine.listEvents(job.job_id);
    expect(events?.items.map((e) => e.type)).toEqual(
      expect.arrayContaining(["created", "started", "phase", "finished"]),
    );
  });

  it("includes hidden files when asked and stays at the top level when not recursive", async () => {
    const { page } = await analyzed(
      { ".h.txt": "x", "d/deep.txt": "y" },
      { include_hidden: true, recursive: false },
    );
    expect(page.items.map((r) => r.source_path.split("/").pop())).toEqual([".h.txt"]);
  });

  it("turns a file already where the plan puts it into a no-op row", async () => {
    h = await createHarness();
    writeTree(h.dir, { "lib/documents/2023/a.txt": "a" });
    const job = await h.engine.analyze({ source_dir: join(h.dir, "lib") }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    const [row] = (await h.engine.listRows(job.job_id)).items;
    expect(row).toMatchObject({ action: "skip", reason_codes: expect.arrayContaining(["ALREADY_IN_PLACE"]) });
  });

  it("blocks an unreadable file and carries on with the others", async (ctx) => {
    // Root reads everything: as root (CI), the analyze runs in a child process under the `nobody` uid.
    const asRoot = process.getuid?.() === 0;
    if (asRoot && !reachableByOthers(PACKAGE_DIR))
      ctx.skip("running as root in a checkout the nobody uid cannot reach, so no child can lose the read");
    h = await createHarness();
    const src = join(h.dir, "src");
    writeTree(src, { "ok.txt": "fine", "locked.txt": "secret" });
    chmodSync(join(src, "locked.txt"), 0o000);
    let status: string;
    let rows: ManifestRow[];
    if (asRoot) {
      const ran = await analyzeAsNobody(h.dir, src);
      expect(ran.uid).toBe(NOBODY);
      ({ status, rows } = ran);
    } else {
      const job = await h.engine.analyze({ source_dir: src }, LOCAL);
      status = (await h.engine.waitForJob(job.job_id)).status;
      rows = (await h.engine.listRows(job.job_id)).items;
    }
    expect(status).toBe("succeeded");
    expect(rows.find((r) => r.source_path.endsWith("locked.txt"))).toMatchObject({
      review_bucket: "blocked",
      action: "skip",
      sha256: null,
      error: { code: "UNREADABLE" },
    });
    expect(rows.find((r) => r.source_path.endsWith("ok.txt"))?.review_bucket).toBe("auto_safe");
    chmodSync(join(src, "locked.txt"), 0o600);
  });

  it("refuses paths outside the allowed roots, .. escapes, symlink escapes, missing and non-directories", async () => {
    h = await createHarness();
    const code = async (p: Promise<unknown>) => {
      try {
        await p;
        return "none";
      } catch (err) {
        return err instanceof FileorgError ? err.code : String(err);
      }
    };
    mkdirSync(join(h.dir, "in"));
    writeFileSync(join(h.dir, "file.txt"), "x");
    symlinkSync("/etc", join(h.dir, "in", "escape"));
    expect(await code(h.engine.analyze({ source_dir: "/etc" }, LOCAL))).toBe("PATH_OUTSIDE_ROOT");
    expect(await code(h.engine.analyze({ source_dir: `${h.dir}/in/../../..` }, LOCAL))).toBe(
      "PATH_OUTSIDE_ROOT",
    );
    expect(await code(h.engine.analyze({ source_dir: join(h.dir, "in", "escape") }, LOCAL))).toBe(
      "PATH_OUTSIDE_ROOT",
    );
    expect(await code(h.engine.analyze({ source_dir: join(h.dir, "nope") }, LOCAL))).toBe("SOURCE_NOT_FOUND");
    expect(await code(h.engine.analyze({ source_dir: join(h.dir, "file.txt") }, LOCAL))).toBe(
      "NOT_A_DIRECTORY",
    );
    expect(
      await code(
        h.engine.analyze(
          { source_dir: join(h.dir, "in"), output_dir: join(h.dir, "in", "escape", "x") },
          LOCAL,
        ),
      ),
    ).toBe("PATH_OUTSIDE_ROOT");
    expect(
      await code(h.engine.analyze({ source_dir: join(h.dir, "in"), naming_template: "{bad}" }, LOCAL)),
    ).toBe("INVALID_TEMPLATE");
  });
});

describe("manifest paging and filters", () => {
  it("pages with a cursor and filters by bucket, category and text", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 25; i++) files[`f${i}.txt`] = `content ${i}`;
    files["odd.zzz"] = "??";
    const { h, job } = await analyzed(files);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.engine.listRows(job.job_id, { limit: 10, cursor });
      seen.push(...page.items.map((r) => r.row_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toHaveLength(26);
    expect(new Set(seen).size).toBe(26);
    expect((await h.engine.listRows(job.job_id, { bucket: "needs_review" })).items).toHaveLength(1);
    expect((await h.engine.listRows(job.job_id, { category: "other" })).items).toHaveLength(1);
    expect((await h.engine.listRows(job.job_id, { text: "/f1" })).items.length).toBe(11);
    expect((await h.engine.listRows(job.job_id, { text: "%" })).items).toHaveLength(0);
  });
});

describe("edits", () => {
  it("edits one field without wiping the others, bumps the revision and changes the plan hash", async () => {
    const { h, job, bySource, out } = await analyzed({ "a.txt": "a", "b.txt": "b" });
    const before = bySource("a.txt");
    const result = await h.engine.applyPatches(
      job.job_id,
      [{ row_id: before.row_id, patch: { category: "code" } }],
      LOCAL,
    );
    const [after] = result.items;
    expect(after).toMatchObject({
      category: "code",
      target_path: join(out, "code/2023/a.txt"),
      sha256: before.sha256,
      size: before.size,
      mime: before.mime,
      edited: true,
      review_bucket: "needs_review",
    });
    expect(result.revision).toBe(1);
    expect(result.plan_hash).not.toBe(job.plan_hash);
    const manual = await h.engine.editRow(job.job_id, before.row_id, { target_path: "manual/x.txt" }, LOCAL);
    expect(manual).toMatchObject({ target_path: join(out, "manual/x.txt"), category: "code" });
    const again = await h.engine.editRow(job.job_id, before.row_id, { category: "documents" }, LOCAL);
    expect(again.target_path).toBe(join(out, "manual/x.txt"));
  });

  it("does not bump the revision for a patch that changes nothing", async () => {
    const { h, job, bySource } = await analyzed({ "a.txt": "a" });
    const row = bySource("a.txt");
    const same = await h.engine.applyPatches(
      job.job_id,
      [{ row_id: row.row_id, patch: { action: "move" } }],
      LOCAL,
    );
    expect(same).toMatchObject({ revision: 0, plan_hash: job.plan_hash, items: [{ edited: false }] });
  });

  it("refuses a stale If-Match revision and leaves the row unchanged", async () => {
    const { h, job, bySource } = await analyzed({ "a.txt": "a" });
    const row = bySource("a.txt");
    await h.engine.editRow(job.job_id, row.row_id, { action: "skip" }, { ...LOCAL, expectedRevision: 0 });
    await expect(
      h.engine.editRow(job.job_id, row.row_id, { action: "move" }, { ...LOCAL, expectedRevision: 0 }),
    ).rejects.toMatchObject({ code: "REVISION_MISMATCH" });
    expect((await h.engine.getRow(job.job_id, row.row_id)).action).toBe("skip");
  });

  it("applies a batch atomically: one unknown row fails the whole batch", async () => {
    const { h, job, bySource } = await analyzed({ "a.txt": "a" });
    const row = bySource("a.txt");
    await expect(
      h.engine.applyPatches(
        job.job_id,
        [
          { row_id: row.row_id, patch: { action: "skip" } },
          { row_id: "row_nope", patch: { action: "skip" } },
        ],
        LOCAL,
      ),
    ).rejects.toMatchObject({ code: "ROW_NOT_FOUND" });
    expect((await h.engine.getRow(job.job_id, row.row_id)).action).toBe("move");
    await expect(
      h.engine.editRow(job.job_id, row.row_id, { target_path: "/etc/passwd" }, LOCAL),
    ).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
    await expect(
      h.engine.editRow(job.job_id, row.row_id, { target_path: "a/" }, LOCAL),
    ).rejects.toMatchObject({
      code: "INVALID_TARGET_PATH",
    });
  });

  it("records every edit in a hash-chained audit log that detects tampering", async () => {
    const { h, job, bySource } = await analyzed({ "a.txt": "a" });
    await h.engine.editRow(job.job_id, bySource("a.txt").row_id, { action: "skip" }, LOCAL);
    const audit = await h.engine.listAudit(job.job_id);
    expect(audit.chain_valid).toBe(true);
    const edit = audit.items.find((e) => e.action === "row.edited");
    expect(edit).toMatchObject({
      actor: "local",
      request_id: "req-test",
      before: { action: "move" },
      after: { action: "skip" },
    });
    const { sql } = await import("drizzle-orm");
    await h.db.run(sql`UPDATE fileorg_audit SET actor = 'mallory' WHERE action = 'row.edited'`);
    expect((await h.engine.listAudit(job.job_id)).chain_valid).toBe(false);
  });
});

describe("conflicts", () => {
  it("detects duplicate targets, case collisions, duplicate content and existing targets", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, {
      "x/report.txt": "one",
      "y/report.txt": "two",
      "Notes.txt": "three",
      "z/notes.txt": "four",
      "dup1.md": "same",
      "dup2.md": "same",
      "taken.txt": "new",
    });
    writeTree(out, { "documents/2023/taken.txt": "old" });
    const job = await h.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    const conflicts = (await h.engine.listConflicts(job.job_id)).items;
    expect(conflicts.map((c) => c.kind).sort()).toEqual([
      "case_collision",
      "duplicate_content",
      "duplicate_target",
      "target_exists",
    ]);
    const rows = (await h.engine.listRows(job.job_id)).items;
    expect(rows.filter((r) => r.review_bucket === "conflict")).toHaveLength(7);
  });

  it("resolves by rename, skip, keep_both and manual, and reopens a conflict an edit brings back", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "x/r.txt": "1", "y/r.txt": "2", "d1.md": "same", "d2.md": "same", "t.txt": "new" });
    writeTree(out, { "documents/2023/t.txt": "old" });
    const job = await h.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    const open = (await h.engine.listConflicts(job.job_id)).items;
    const byKind = (k: string) => {
      const c = open.find((x) => x.kind === k);
      if (c === undefined) throw new Error(k);
      return c;
    };
    const resolved = await h.engine.resolveConflicts(
      job.job_id,
      {
        resolutions: [
          { conflict_id: byKind("duplicate_target").conflict_id, strategy: "rename" },
          { conflict_id: byKind("duplicate_content").conflict_id, strategy: "keep_both" },
          { conflict_id: byKind("target_exists").conflict_id, strategy: "manual", target_path: "kept/t.txt" },
        ],
      },
      LOCAL,
    );
    expect(resolved.conflicts.map((c) => [c.kind, c.status, c.resolution]).sort()).toEqual([
      ["duplicate_content", "resolved", "keep_both"],
      ["duplicate_target", "resolved", "rename"],
      ["target_exists", "resolved", "manual"],
    ]);
    const rows = (await h.engine.listRows(job.job_id)).items;
    expect(rows.map((r) => r.target_path).sort()).toEqual(
      [
        join(out, "documents/2023/r.txt"),
        join(out, "documents/2023/r (2).txt"),
        join(out, "documents/2023/d1.md"),
        join(out, "documents/2023/d2.md"),
        join(out, "kept/t.txt"),
      ].sort(),
    );
    expect(rows.every((r) => r.review_bucket !== "conflict")).toBe(true);
    // an edit that aims a row back at a taken path reopens the conflict with the same id
    const renamed = rows.find((r) => r.target_path.endsWith("r (2).txt"));
    if (renamed === undefined) throw new Error("renamed row");
    await h.engine.editRow(
      job.job_id,
      renamed.row_id,
      { target_path: join(out, "documents/2023/r.txt") },
      LOCAL,
    );
    const reopened = (await h.engine.listConflicts(job.job_id, { status: "open" })).items;
    expect(reopened.map((c) => c.conflict_id)).toEqual([byKind("duplicate_target").conflict_id]);
    await h.engine.resolveConflicts(
      job.job_id,
      { resolutions: [{ conflict_id: byKind("duplicate_target").conflict_id, strategy: "skip" }] },
      LOCAL,
    );
    expect((await h.engine.getRow(job.job_id, renamed.row_id)).action).toBe("skip");
    expect((await h.engine.listConflicts(job.job_id, { status: "open" })).items).toHaveLength(0);
  });

  it("refuses a strategy that cannot resolve the kind", async () => {
    const { h, job } = await analyzed({ "d1.md": "same", "d2.md": "same" });
    const [c] = (await h.engine.listConflicts(job.job_id)).items;
    if (c === undefined) throw new Error("no conflict");
    await expect(
      h.engine.resolveConflicts(
        job.job_id,
        { resolutions: [{ conflict_id: c.conflict_id, strategy: "rename" }] },
        LOCAL,
      ),
    ).rejects.toMatchObject({ code: "STRATEGY_NOT_APPLICABLE" });
  });
});

describe("targets outside the output directory", () => {
  it("opens an outside_root conflict for a target outside the output directory, resolved by a manual target", async () => {
    const { h, job, bySource, out } = await analyzed({ "a.txt": "a" });
    const row = bySource("a.txt");
    const outside = join(h.dir, "elsewhere", "a.txt");
    expect(await h.engine.editRow(job.job_id, row.row_id, { target_path: outside }, LOCAL)).toMatchObject({
      review_bucket: "conflict",
    });
    const [c] = (await h.engine.listConflicts(job.job_id, { status: "open" })).items;
    expect(c).toMatchObject({ kind: "outside_root", row_ids: [row.row_id] });
    await h.engine.resolveConflicts(
      job.job_id,
      {
        resolutions: [{ conflict_id: c?.conflict_id ?? "", strategy: "manual", target_path: "inside/a.txt" }],
      },
      LOCAL,
    );
    expect(await h.engine.getRow(job.job_id, row.row_id)).toMatchObject({
      target_path: join(out, "inside/a.txt"),
      review_bucket: "needs_review",
    });
  });
});
