import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createJournalSigner } from "./journal.js";
import { JOURNAL_KEY_FILE, loadJournalKey } from "./journal-key.js";

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** One journal record's signed fields: a pending `op` from /a to /b, with the copy inode given. */
function journalDraft(parts: { op: "move" | "copy"; copyDev: number | null; copyIno: number | null }) {
  return {
    jobId: "job_1",
    rowId: "row_1",
    fromPath: "/a",
    toPath: "/b",
    sha256: "ff",
    size: 1,
    state: "intent" as const,
    errorCode: null,
    createdAt: 5,
    completedAt: null,
    ...parts,
  };
}

describe("the journal key", () => {
  it("is generated once into the data directory with mode 0600 and read back after", () => {
    dir = mkdtempSync(join(tmpdir(), "fileorg-key-"));
    const first = loadJournalKey({ env: {}, dataDir: join(dir, "data") });
    expect(first).toHaveLength(32);
    expect(statSync(join(dir, "data", JOURNAL_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadJournalKey({ env: {}, dataDir: join(dir, "data") }).equals(first)).toBe(true);
  });

  it("comes from VETTED_JOURNAL_KEY when set, and refuses a short one", () => {
    dir = mkdtempSync(join(tmpdir(), "fileorg-key-"));
    const a = loadJournalKey({ env: { VETTED_JOURNAL_KEY: "a-long-enough-secret" }, dataDir: dir });
    expect(
      a.equals(
        loadJournalKey({ env: { VETTED_JOURNAL_KEY: "a-long-enough-secret" }, dataDir: "/nonexistent" }),
      ),
    ).toBe(true);
    expect(() => loadJournalKey({ env: { VETTED_JOURNAL_KEY: "short" }, dataDir: dir ?? "" })).toThrow(/16/);
  });

  it("signs records so that any change to what they ask the disk to do is detected", () => {
    const signer = createJournalSigner(Buffer.alloc(32, 3));
    const draft = journalDraft({ op: "move", copyDev: null, copyIno: null });
    const record = { ...draft, id: 1, signature: signer.sign(draft) };
    expect(signer.verify(record)).toBe(true);
    expect(signer.verify({ ...record, toPath: "/etc/passwd" })).toBe(false);
    expect(createJournalSigner(Buffer.alloc(32, 4)).verify(record)).toBe(false);
    // A record without a copy inode signs as records always did (journals written before still verify).
    const legacy = createHmac("sha256", Buffer.alloc(32, 3))
      .update(JSON.stringify(["job_1", "row_1", "move", "/a", "/b", "ff", 1, 5]))
      .digest("hex");
    expect(record.signature).toBe(legacy);
  });

  it("covers a copy's recorded inode: another inode does not verify", () => {
    const signer = createJournalSigner(Buffer.alloc(32, 3));
    const draft = journalDraft({ op: "copy", copyDev: 7, copyIno: 42 });
    const record = { ...draft, id: 1, signature: signer.sign(draft) };
    expect(signer.verify(record)).toBe(true);
    expect(signer.verify({ ...record, copyIno: 43 })).toBe(false);
    expect(signer.verify({ ...record, copyDev: null, copyIno: null })).toBe(false);
  });
});
