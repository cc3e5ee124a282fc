import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ServerError } from "../errors.js";

/** The largest body of a computer-use preview: an 8 MiB screenshot as base64 (about 10.7 MiB) plus room. */
export const SCREENSHOT_UPLOAD_MAX_BYTES = 12 * 1024 * 1024;

const PREVIEW_PATH = /^\/api\/computer-use\/sessions\/[^/]+\/preview\/?$/;

/** True for `POST /api/computer-use/sessions/{id}/preview`, whose body may carry a screenshot. */
export function isScreenshotUpload(method: string, path: string): boolean {
  return method === "POST" && PREVIEW_PATH.test(path);
}

/** Runs `inner` (the server-wide body limit) on every request but screenshot uploads. */
export function exceptScreenshotUploads(inner: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => (isScreenshotUpload(c.req.method, c.req.path) ? next() : inner(c, next));
}

/** The body limit of screenshot uploads ({@link SCREENSHOT_UPLOAD_MAX_BYTES}). */
export function limitScreenshotUploads(): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: SCREENSHOT_UPLOAD_MAX_BYTES,
    onError: () => {
      throw new ServerError(
        "PAYLOAD_TOO_LARGE",
        `A preview body is larger than ${SCREENSHOT_UPLOAD_MAX_BYTES} bytes; screenshots may be at most 8 MiB.`,
      );
    },
  });
  return (c, next) => (isScreenshotUpload(c.req.method, c.req.path) ? limit(c, next) : next());
}
