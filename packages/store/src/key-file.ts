import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StoreError } from "./errors.js";

/** Where a per-installation key comes from. */
export interface KeyFileOptions {
  /** The environment variable's name (for messages) and value; a set value wins over the file. */
  envName: string;
  envValue: string | undefined;
  /** The data directory and the key file's name inside it. */
  dataDir: string;
  fileName: string;
}

function readKey(path: string): Buffer {
  const key = Buffer.from(readFileSync(path, "utf8").trim(), "hex");
  if (key.length !== 32) throw new StoreError("KEY_INVALID", `${path} does not hold a 32-byte hex key`);
  return key;
}

/**
 * A 32-byte per-installation key: from the environment variable when set (at least 16 characters, hashed
 * with SHA-256), else read from `<dataDir>/<fileName>`, generated once with mode 0600 when missing (a
 * second process starting at the same moment reads the first one's key).
 */
export function loadKeyFile(options: KeyFileOptions): Buffer {
  const fromEnv = options.envValue;
  if (fromEnv !== undefined && fromEnv !== "") {
    if (fromEnv.length < 16) {
      throw new StoreError("KEY_INVALID", `${options.envName} must be at least 16 characters`);
    }
    return createHash("sha256").update(fromEnv).digest();
  }
  const path = join(options.dataDir, options.fileName);
  try {
    return readKey(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(options.dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(path, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return readKey(path);
  }
}
