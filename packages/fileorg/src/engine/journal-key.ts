import { loadKeyFile } from "@vetted/store";

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
  return loadKeyFile({
    envName: "VETTED_JOURNAL_KEY",
    envValue: options.env?.VETTED_JOURNAL_KEY,
    dataDir: options.dataDir,
    fileName: JOURNAL_KEY_FILE,
  });
}
