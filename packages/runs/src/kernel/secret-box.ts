import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { loadKeyFile } from "@vetted/store";

/** The version prefix of every sealed value: `v1:` + base64url(iv | tag | ciphertext). */
export const SEALED_PREFIX = "v1:";

/** Name of the key file generated in the data directory when `VETTED_SECRETS_KEY` is unset. */
export const SECRETS_KEY_FILE = "runs-secrets.key";

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * Seals and opens small values with AES-256-GCM under one per-installation key. Each value is bound to a
 * context (the run id and the slot it sits in) as additional authenticated data, so a ciphertext copied
 * to another run or slot does not open.
 */
export interface SecretBox {
  /** Encrypts `plain` for `context`: `v1:` + base64url(iv | tag | ciphertext). */
  seal(plain: string, context: string): string;
  /** Decrypts a value {@link seal} produced for the same context; undefined when it does not verify. */
  open(sealed: string, context: string): string | undefined;
}

/** Builds a {@link SecretBox} over a 32-byte key. @throws RangeError for a key of another length */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) {
    throw new RangeError(`the secrets key must be ${KEY_BYTES} bytes, not ${key.length}`);
  }
  const secretKey = Buffer.from(key);
  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", secretKey, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return `${SEALED_PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
    },
    open(sealed, context) {
      if (!sealed.startsWith(SEALED_PREFIX)) return undefined;
      const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url");
      if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", secretKey, raw.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context, "utf8"));
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString("utf8");
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The per-installation key that encrypts secret run params at rest: from `VETTED_SECRETS_KEY` when set (at
 * least 16 characters; hashed to 32 bytes), else read from `<dataDir>/runs-secrets.key`, generated once with
 * mode 0600 when missing. @throws StoreError KEY_INVALID
 */
export function loadSecretsKey(options: {
  env?: Record<string, string | undefined>;
  dataDir: string;
}): Buffer {
  return loadKeyFile({
    envName: "VETTED_SECRETS_KEY",
    envValue: options.env?.VETTED_SECRETS_KEY,
    dataDir: options.dataDir,
    fileName: SECRETS_KEY_FILE,
  });
}
