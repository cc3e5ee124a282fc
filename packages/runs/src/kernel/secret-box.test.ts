import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSecretBox, loadSecretsKey, SEALED_PREFIX, SECRETS_KEY_FILE } from "./secret-box.js";

const key = Buffer.alloc(32, 1);

describe("the secret box", () => {
  it("seals with a fresh nonce and opens only with the same key and context", () => {
    const box = createSecretBox(key);
    const a = box.seal("4242", "run:r1\u0000p:card");
    const b = box.seal("4242", "run:r1\u0000p:card");
    expect(a.startsWith(SEALED_PREFIX)).toBe(true);
    expect(a).not.toBe(b);
    expect(a).not.toContain("4242");
    expect(box.open(a, "run:r1\u0000p:card")).toBe("4242");
    expect(box.open(a, "run:r2\u0000p:card")).toBeUndefined();
    expect(createSecretBox(Buffer.alloc(32, 2)).open(a, "run:r1\u0000p:card")).toBeUndefined();
  });

  it("refuses a tampered, truncated or unversioned ciphertext without throwing", () => {
    const box = createSecretBox(key);
    const sealed = box.seal("a secret value", "ctx");
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url");
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(box.open(`${SEALED_PREFIX}${raw.toString("base64url")}`, "ctx")).toBeUndefined();
    expect(box.open(sealed.slice(0, 20), "ctx")).toBeUndefined();
    expect(box.open("a secret value", "ctx")).toBeUndefined();
    expect(box.open(`v2:${sealed.slice(3)}`, "ctx")).toBeUndefined();
  });

  it("takes only a 32-byte key", () => {
    expect(() => createSecretBox(Buffer.alloc(16))).toThrow(RangeError);
  });

  it("loads VETTED_SECRETS_KEY, or generates a 0600 key file once", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vetted-secrets-key-"));
    const generated = loadSecretsKey({ dataDir });
    expect(statSync(join(dataDir, SECRETS_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadSecretsKey({ dataDir }).equals(generated)).toBe(true);
    const fromEnv = loadSecretsKey({ dataDir, env: { VETTED_SECRETS_KEY: "a-long-enough-secrets-key" } });
    expect(fromEnv).toHaveLength(32);
    expect(fromEnv.equals(generated)).toBe(false);
    expect(() => loadSecretsKey({ dataDir, env: { VETTED_SECRETS_KEY: "short" } })).toThrow(/at least 16/);
  });
});
