/**
 * When to ask again for an evidence screenshot that answered "not found": the step's row can be listed
 * before its file is written (the file is renamed into place when the capture finishes), so a 404 is often
 * "not yet". Doubling waits, then give up: a capture the browser never finished is never written.
 */
const DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000] as const;

/** The wait before the next try after `failures` failed loads, or undefined to stop trying. */
export function retryDelay(failures: number): number | undefined {
  return failures < 1 ? 0 : DELAYS_MS[failures - 1];
}

/** The screenshot URL for one try: later tries add `?try=n` so no cached failure is reused. */
export function attemptUrl(src: string, attempt: number): string {
  return attempt === 0 ? src : `${src}${src.includes("?") ? "&" : "?"}try=${attempt}`;
}
