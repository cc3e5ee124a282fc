import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { SessionArtifact, StoredArtifact } from "../../domain/session.js";

/** The directory of one session's files under the data directory. */
export function sessionDir(dataDir: string, sessionId: string): string {
  return join(dataDir, "sessions", sessionId);
}

/** A path under `dataDir` given relative to it; anything escaping it is refused. */
export function underDataDir(dataDir: string, rel: string): string {
  const root = resolve(dataDir);
  const full = resolve(root, rel);
  if (full !== root && !full.startsWith(root + sep)) throw new Error(`${rel} is outside the data directory`);
  return full;
}

/** Writes `data` to `path` (creating its directory; `mode` 0600 for secrets) and returns its size and digest. */
export function writeFileWithDigest(path: string, data: Buffer | string, mode = 0o644) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data, { mode });
  const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.length;
  return { bytes, sha256: createHash("sha256").update(data).digest("hex") };
}

/** An index entry for a file a session saved (reading it back when `data` is not given, e.g. a HAR). */
export function indexArtifact(
  dataDir: string,
  path: string,
  entry: Pick<SessionArtifact, "kind" | "content_type">,
  at: number,
): StoredArtifact {
  const data = readFileSync(path);
  return {
    kind: entry.kind,
    name: relative(dirname(path), path),
    bytes: statSync(path).size,
    sha256: createHash("sha256").update(data).digest("hex"),
    content_type: entry.content_type,
    created_at: new Date(at).toISOString(),
    path: relative(dataDir, path),
  };
}
