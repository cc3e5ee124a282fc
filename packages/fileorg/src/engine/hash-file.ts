import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

/** The SHA-256 of a file's content, as hex, read as a stream. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const piece of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(piece as Buffer);
  return hash.digest("hex");
}
