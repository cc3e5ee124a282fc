import { existsSync, readFileSync } from "node:fs";

/**
 * How many commits the WAL file of `dbFile` holds: frames whose "database size after commit" field is set
 * and whose salts match the WAL header's (older frames of a reset WAL do not count). Counted from the file
 * itself, so a test of group commit does not trust the code it tests.
 */
export function walCommits(dbFile: string): number {
  const wal = `${dbFile}-wal`;
  if (!existsSync(wal)) return 0;
  const bytes = readFileSync(wal);
  if (bytes.length < 32) return 0;
  const pageSize = bytes.readUInt32BE(8);
  const salt1 = bytes.readUInt32BE(16);
  const salt2 = bytes.readUInt32BE(20);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= bytes.length; at += 24 + pageSize) {
    if (bytes.readUInt32BE(at + 8) !== salt1 || bytes.readUInt32BE(at + 12) !== salt2) break;
    if (bytes.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}
