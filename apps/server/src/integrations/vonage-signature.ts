import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * The string Vonage signs: every parameter but `sig`, sorted by key, each as `&key=value` with `&` and `=`
 * inside values replaced by `_`.
 */
export function signingString(params: Readonly<Record<string, string>>): string {
  return Object.keys(params)
    .filter((k) => k !== "sig")
    .sort()
    .map((k) => `&${k}=${(params[k] ?? "").replace(/[&=]/g, "_")}`)
    .join("");
}

/** The hex HMAC-SHA256 signature of `params` under `secret`. */
export function signParams(params: Readonly<Record<string, string>>, secret: string): string {
  return createHmac("sha256", secret).update(signingString(params)).digest("hex");
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Compares two secrets in constant time whatever their lengths. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether an algorithm name means HMAC-SHA256 (`sha256`, `hmac-sha256`, `HMAC_SHA256`…). */
export function isSha256(name: string): boolean {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")
      .replace(/^hmac/, "") === "sha256"
  );
}
