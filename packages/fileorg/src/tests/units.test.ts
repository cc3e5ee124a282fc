import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { OriginalPolicy } from "../domain/originals.js";
import { createHarness, type Harness, PNG_1x1, snapshotTree, writeTree } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local", requestId: "req-units" };
const D2023 = new Date("2023-05-06T12:00:00Z");
const D2020 = new Date("2020-03-04T12:00:00Z");

/** A home folder: two projects, a thesis, a bundle, an album, a shoot, and loose files. */
const HOME: Record<string, string | Buffer> = {
  "Projects/website/.git/HEAD": "ref: refs/heads/main\n",
  "Projects/website/.git/objects/ab/cdef0123": "blob",
  "Projects/website/.env": "SECRET=1\n",
  "Projects/website/node_modules/left-pad/index.js": "module.exports = 1;\n",
  "Projects/website/node_modules/left-pad/package.json": "{}",
  "Projects/website/package.json": '{"name":"website"}',
  "Projects/website/src/components/Comp0.tsx": "export const C = 0;\n",
  "Projects/website/public/icon.png": PNG_1x1,
  "Projects/website/README.md": "# website\n",
  "Projects/tool/Cargo.toml": "[package]\nname='tool'\n",
  "Projects/tool/src/main.rs": "fn main() {}\n",
  "Projects/tool/.gitignore": "target\n",
  "Thesis/main.tex": "\\documentclass{report}\n",
  "Thesis/chapters/intro.tex": "\\chapter{Intro}\n",
  "Thesis/figures/plot.png": PNG_1x1,
  "Thesis/results.csv": "a,b\n1,2\n",
  "Apps/Thing.app/Contents/Info.plist": "<plist/>",
  "Apps/Thing.app/Contents/MacOS/thing": "binary",
  "Music/Artist 0/Album X/01 First.mp3": "track one",
  "Music/Artist 0/Album X/02 Second.mp3": "track two",
  "Music/Artist 0/Album X/cover.jpg": "cover",
  "Photos/Beach trip/IMG_20230211_101500.jpg": "photo 1",
  "Photos/Beach trip/IMG_20230211_111500.jpg": "photo 2",
  "Photos/Beach trip/IMG_20230212_091500.jpg": "photo 3",
  // duplicate groups outside units
  "Desktop/Copy of Screenshot 2023-02-01 at 10.00.00.png": "screenshot bytes",
  "Pictures/Screenshot 2023-02-01 at 10.00.00.png": "screenshot bytes",
  "b/notes.txt": "same notes",
  "x/report.txt": "same report",
  "xx/yy/report-final.txt": "same report",
};

/** What each unit must be: its folder, kind, reason and target folder under the output. */
const UNITS = [
  { root: "Projects/website", kind: "software_project", reason: "has .git", target: "projects/website" },
  { root: "Projects/tool", kind: "software_project", reason: "has Cargo.toml", target: "projects/tool" },
  { root: "Thesis", kind: "document_project", target: "documents/Thesis" },
  { root: "Apps/Thing.app", kind: "bundle", target: "applications/Thing.app" },
  { root: "Music/Artist 0/Album X", kind: "music_album", target: "music/Artist 0/Album X" },
  { root: "Photos/Beach trip", kind: "photo_event", target: "photos/2023/2023-02-11 Beach trip" },
] as const;

async function analyzeHome(
  policy?: OriginalPolicy,
  occupied: Record<string, string> = {},
  outputIn = "out",
  prepare: (src: string) => void = () => undefined,
) {
  h = await createHarness();
  const src = join(h.dir, "home");
  const out = join(h.dir, outputIn);
  writeTree(out, occupied);
  writeTree(src, HOME, D2023);
  // the older notes: same content, an older date
  writeTree(src, { "a/notes.txt": "same notes" }, D2020);
  prepare(src);
  const job = await h.engine.analyze(
    { source_dir: src, output_dir: out, ...(policy === undefined ? {} : { detect_original_by: policy }) },
    LOCAL,
  );
  expect((await h.engine.waitForJob(job.job_id)).status).toBe("succeeded");
  const rows = (await h.engine.listRows(job.job_id, { limit: 1000 })).items;
  return { h, src, out, jobId: job.job_id, rows };
}

async function duplicateGroups(harness: Harness, jobId: string) {
  const all = (await harness.engine.listConflicts(jobId, { status: "open" })).items;
  return all.filter((c) => c.kind === "duplicate_content");
}

describe("units: folders that must stay whole", () => {
  it("plans every unit whole, hidden files included, and says why; apply + rollback restore every path and hash", async () => {
    const { h, src, out, jobId, rows } = await analyzeHome();
    const before = snapshotTree(src);
    for (const unit of UNITS) {
      const root = join(src, unit.root);
      const onDisk = Object.keys(before.files).filter((f) => f.startsWith(`${unit.root}/`));
      const members = rows.filter((r) => r.unit?.root === root);
      expect(members.map((r) => relative(src, r.source_path)).sort(), unit.root).toEqual(onDisk.sort());
      for (const r of members) {
        expect(r.unit).toMatchObject({ kind: unit.kind });
        if ("reason" in unit) expect(r.unit?.reason).toBe(unit.reason);
        expect(r.target_path).toBe(join(out, unit.target, relative(root, r.source_path)));
        expect(r.review_bucket).toBe("auto_safe");
      }
      expect(new Set(members.map((r) => r.unit?.id)).size).toBe(1);
    }
    // hidden files and node_modules come along inside a unit only
    for (const hidden of [".git/HEAD", ".env", "node_modules/left-pad/index.js"])
      expect(rows.some((r) => r.source_path === join(src, "Projects/website", hidden))).toBe(true);

    for (const group of await duplicateGroups(h, jobId)) {
      await h.engine.resolveConflicts(
        jobId,
        { resolutions: [{ conflict_id: group.conflict_id, strategy: "move_to_duplicates" }] },
        LOCAL,
      );
    }
    const apply = await h.engine.apply({ job_id: jobId }, LOCAL);
    const applied = await h.engine.waitForJob(apply.job_id);
    expect(applied.result).toMatchObject({ failed: 0 });
    const moved = snapshotTree(out).files;
    for (const unit of UNITS) {
      const inside = Object.entries(before.files).filter(([f]) => f.startsWith(`${unit.root}/`));
      for (const [f, hash] of inside) expect(moved[join(unit.target, relative(unit.root, f))], f).toBe(hash);
      expect(existsSync(join(src, unit.root, ".git"))).toBe(false);
    }
    const rollback = await h.engine.rollback({ job_id: apply.job_id }, LOCAL);
    expect((await h.engine.waitForJob(rollback.job_id)).result).toMatchObject({ failed: 0 });
    expect(snapshotTree(src).files).toEqual(before.files);
    expect(existsSync(out) ? Object.keys(snapshotTree(out).files) : []).toEqual([]);
  });

  it("applies and rolls back a unit whole: one row named moves all; a row that must stay holds the unit", async () => {
    const { h, src, jobId, rows } = await analyzeHome();
    const website = rows.filter((r) => r.unit?.root === join(src, "Projects/website"));
    const readme = website.find((r) => r.source_path.endsWith("README.md"));
    if (readme === undefined) throw new Error("no README row");
    const apply = await h.engine.apply({ job_id: jobId, row_ids: [readme.row_id] }, LOCAL);
    expect((await h.engine.waitForJob(apply.job_id)).result).toMatchObject({ moved: website.length });
    const rollback = await h.engine.rollback({ job_id: apply.job_id, row_ids: [readme.row_id] }, LOCAL);
    expect((await h.engine.waitForJob(rollback.job_id)).result).toMatchObject({ moved_back: website.length });
    for (const r of website) expect(existsSync(r.source_path)).toBe(true);

    // a person skips the tool's main.rs: the whole unit is skipped with it (edited together)
    const tool = rows.filter((r) => r.unit?.root === join(src, "Projects/tool"));
    const main = tool.find((r) => r.source_path.endsWith("main.rs"));
    if (main === undefined) throw new Error("no main.rs row");
    const edited = await h.engine.applyPatches(
      jobId,
      [{ row_id: main.row_id, patch: { action: "skip" } }],
      LOCAL,
    );
    expect(edited.items.filter((r) => r.unit?.root === join(src, "Projects/tool"))).toHaveLength(tool.length);
    expect(edited.items.every((r) => r.action === "skip")).toBe(true);
  });

  it("holds a unit whose row cannot move: the unit moves whole or not at all", async () => {
    const { h, src, jobId, rows } = await analyzeHome(undefined, {
      "projects/tool/Cargo.toml": "in the way",
    });
    const tool = rows.filter((r) => r.unit?.root === join(src, "Projects/tool"));
    expect(tool.filter((r) => r.review_bucket === "conflict")).toHaveLength(1);
    expect((await h.engine.planApply({ job_id: jobId })).stays).toMatchObject({ unit_held: tool.length - 1 });
    // naming the rows (a bucket, a row of the unit) does not tear the unit either
    const named = { job_id: jobId, buckets: ["auto_safe" as const], row_ids: tool.map((r) => r.row_id) };
    expect((await h.engine.planApply(named)).stays).toMatchObject({ unit_held: tool.length - 1 });
    const apply = await h.engine.apply(named, LOCAL);
    expect((await h.engine.waitForJob(apply.job_id)).status).toBe("succeeded");
    for (const r of tool) expect(existsSync(r.source_path), r.source_path).toBe(true);
  });

  it("holds a unit holding a symlink (never moved), and never makes a unit of a folder holding the output", async () => {
    const link = (src: string) => {
      mkdirSync(join(src, "Projects/website/node_modules/.bin"), { recursive: true });
      symlinkSync("../left-pad/index.js", join(src, "Projects/website/node_modules/.bin/left-pad"));
      writeTree(src, { "Projects/package.json": "{}" }, D2023);
    };
    const { h, src, jobId, rows } = await analyzeHome(undefined, {}, "home/Projects/Sorted", link);
    const website = rows.filter((r) => r.unit?.root === join(src, "Projects/website"));
    expect(website.find((r) => r.reason_codes.includes("SYMLINK"))?.review_bucket).toBe("blocked");
    expect((await h.engine.planApply({ job_id: jobId })).stays).toMatchObject({
      unit_held: website.length - 1,
    });
    // Projects/ has a package.json but holds the output folder: its files are planned one by one
    expect(rows.some((r) => r.unit?.root === join(src, "Projects"))).toBe(false);
    expect(rows.some((r) => r.unit?.root === join(src, "Projects/tool"))).toBe(true);
  });

  it("moves a unit by one row's target, refuses to tear it, and splits it on request", async () => {
    const { h, src, out, jobId, rows } = await analyzeHome();
    const website = rows.filter((r) => r.unit?.root === join(src, "Projects/website"));
    const pkg = website.find(
      (r) => r.source_path.endsWith("/package.json") && !r.source_path.includes("node_modules"),
    );
    if (pkg === undefined) throw new Error("no package.json row");
    const moved = await h.engine.applyPatches(
      jobId,
      [{ row_id: pkg.row_id, patch: { target_path: join(out, "code/site/package.json") } }],
      LOCAL,
    );
    expect(moved.items).toHaveLength(website.length);
    for (const r of moved.items)
      expect(r.target_path).toBe(
        join(out, "code/site", relative(join(src, "Projects/website"), r.source_path)),
      );
    await expect(
      h.engine.applyPatches(
        jobId,
        [{ row_id: pkg.row_id, patch: { target_path: join(out, "x/pkg.json") } }],
        LOCAL,
      ),
    ).rejects.toMatchObject({ code: "UNIT_KEPT_WHOLE" });

    // a resolution or rule never tears a unit: its target for one row is left out, not refused
    const resolved = await h.engine.applyPatches(
      jobId,
      [{ row_id: pkg.row_id, patch: { target_path: join(out, "x/pkg.json") } }],
      { ...LOCAL, personEdit: false },
    );
    expect(resolved.items.find((r) => r.row_id === pkg.row_id)?.target_path).toBe(
      join(out, "code/site/package.json"),
    );

    const unitId = pkg.unit?.id ?? "";
    const split = await h.engine.splitUnit(jobId, unitId, LOCAL);
    expect(split.items).toHaveLength(website.length);
    expect(split.items.every((r) => r.unit === null && !r.reason_codes.includes("UNIT_KEPT_WHOLE"))).toBe(
      true,
    );
    expect(split.items.find((r) => r.row_id === pkg.row_id)?.target_path).toBe(
      join(out, "code/2023/package.json"),
    );
    await expect(h.engine.splitUnit(jobId, unitId, LOCAL)).rejects.toMatchObject({ code: "UNIT_NOT_FOUND" });
  });
});

describe("duplicates with an original", () => {
  const path = (rows: Awaited<ReturnType<typeof analyzeHome>>["rows"], id: string | undefined) =>
    rows.find((r) => r.row_id === id)?.source_path ?? "";

  it("names each group's original by the name policy, with its reasons, and moves only the copies", async () => {
    const { h, src, out, jobId, rows } = await analyzeHome();
    const groups = await duplicateGroups(h, jobId);
    const byOriginal = Object.fromEntries(
      groups.map((g) => [relative(src, path(rows, g.original?.row_id)), g.original?.reasons]),
    );
    expect(byOriginal).toEqual({
      "Pictures/Screenshot 2023-02-01 at 10.00.00.png": ["NAME_WITHOUT_COPY_MARKER"],
      "a/notes.txt": ["OLDEST_DATE"],
      "x/report.txt": ["SHORTEST_PATH"],
    });
    const screenshot = groups.find((g) => path(rows, g.original?.row_id).includes("Pictures/"));
    if (screenshot === undefined) throw new Error("no screenshot group");
    await h.engine.resolveConflicts(
      jobId,
      { resolutions: [{ conflict_id: screenshot.conflict_id, strategy: "move_to_duplicates" }] },
      LOCAL,
    );
    const after = (await h.engine.listRows(jobId, { limit: 1000 })).items;
    const original = after.find((r) => r.row_id === screenshot.original?.row_id);
    const copy = after.find((r) => r.source_path.includes("Copy of Screenshot"));
    expect(original?.target_path).toBe(join(out, "images/2023/Screenshot 2023-02-01 at 10.00.00.png"));
    expect(copy?.target_path).toBe(join(out, "_duplicates/Copy of Screenshot 2023-02-01 at 10.00.00.png"));
  });

  it("names the first seen copy under first_seen, and a person can choose another copy in one action", async () => {
    const { h, jobId, rows } = await analyzeHome("first_seen");
    const groups = await duplicateGroups(h, jobId);
    expect(groups).toHaveLength(3);
    const seqOf = (id: string) => rows.findIndex((r) => r.row_id === id);
    for (const g of groups) {
      const first = [...g.row_ids].sort((a, b) => seqOf(a) - seqOf(b))[0];
      expect(g.original).toEqual({
        row_id: first,
        reasons: ["FIRST_SEEN"],
        policy: "first_seen",
        chosen_by: "policy",
      });
    }
    const group = groups[0];
    if (group === undefined) throw new Error("no group");
    const other = group.row_ids.find((id) => id !== group.original?.row_id) ?? "";
    const chosen = await h.engine.chooseOriginal(jobId, group.conflict_id, other, LOCAL);
    expect(chosen.original).toMatchObject({
      row_id: other,
      reasons: ["CHOSEN_BY_PERSON"],
      chosen_by: "person",
    });
    await h.engine.resolveConflicts(
      jobId,
      { resolutions: [{ conflict_id: group.conflict_id, strategy: "move_to_duplicates" }] },
      LOCAL,
    );
    const after = (await h.engine.listRows(jobId, { limit: 1000 })).items;
    expect(after.find((r) => r.row_id === other)?.target_path.includes("/_duplicates/")).toBe(false);
    for (const id of group.row_ids.filter((i) => i !== other))
      expect(after.find((r) => r.row_id === id)?.target_path.includes("/_duplicates/")).toBe(true);
    await expect(h.engine.chooseOriginal(jobId, group.conflict_id, other, LOCAL)).rejects.toMatchObject({
      code: "CONFLICT_NOT_OPEN",
    });
    const open = groups[1];
    if (open === undefined) throw new Error("no second group");
    await expect(h.engine.chooseOriginal(jobId, open.conflict_id, "row_nope", LOCAL)).rejects.toMatchObject({
      code: "NOT_IN_DUPLICATE_GROUP",
    });
  });
});
