import { exceedsJsonTextDepth, MAX_JSON_DEPTH } from "@vetted/store";

/** The default cap on an `http` step's response body: 5 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** Why a response was refused without being parsed. */
export type ResponseRefusal = { code: "RESPONSE_TOO_LARGE" | "RESPONSE_TOO_DEEP"; message: string };

/** A response read under the caps: its status and parsed JSON (undefined when not JSON), or a refusal. */
export type CappedResponse =
  | { ok: true; status: number; json: unknown }
  | { ok: false; status: number; refusal: ResponseRefusal };

function tooLarge(status: number, maxBytes: number): CappedResponse {
  return {
    ok: false,
    status,
    refusal: {
      code: "RESPONSE_TOO_LARGE",
      message: `the response body is larger than ${maxBytes} bytes`,
    },
  };
}

/**
 * Reads a response body of at most `maxBytes` (streaming, so an oversized body is never held whole) and
 * parses it as JSON only when it nests no deeper than {@link MAX_JSON_DEPTH} — judged on the text, before
 * any recursive code sees it.
 */
export async function readCappedResponse(res: Response, maxBytes: number): Promise<CappedResponse> {
  const declared = Number(res.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    return tooLarge(res.status, maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (res.body !== null) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return tooLarge(res.status, maxBytes);
      }
      chunks.push(value);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  if (exceedsJsonTextDepth(text, MAX_JSON_DEPTH)) {
    return {
      ok: false,
      status: res.status,
      refusal: {
        code: "RESPONSE_TOO_DEEP",
        message: `the response JSON nests deeper than ${MAX_JSON_DEPTH} levels`,
      },
    };
  }
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { ok: true, status: res.status, json };
}
