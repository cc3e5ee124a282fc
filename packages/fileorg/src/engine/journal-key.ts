import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Name of the key file generated in the data directory. */
export const JOURNAL_KEY_FILE = "fileorg-journal.key";

/**
 * The per-installation key that signs journal records: from `VETTED_JOURNAL_KEY` when set (any string of at
 * least 16 characters; hashed to 32 bytes), else read from `<dataDir>/fileorg-journal.key`, generated once
 * with mode 0600 when missing.
 */
export function loadJournalKey(options: {
  env?: Record<string, string | undefined>;
  dataDir: string;
}): Buffer {
  const fromEnv = options.env?.VETTED_JOURNAL_KEY;
  if (fromEnv !== undefined && fromEnv !== "") {
    if (fromEnv.length < 16) throw new Error("VETTED_JOURNAL_KEY must be at least 16 characters");
    return createHash("sha256").update(fromEnv).digest();
  }
  const path = join(options.dataDir, JOURNAL_KEY_FILE);
  try {
    return Buffer.from(readFileSync(path, "utf8").trim(), "hex");
  } catch {
    mkdirSync(options.dataDir, { recursive: true });
    const key = randomBytes(32);
    try {
      writeFileSync(path, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
      return key;
    } catch {
      // another process created it first
      return Buffer.from(readFileSync(path, "utf8").trim(), "hex");
    }
  }
}
