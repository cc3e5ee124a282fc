import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ConflictPreview, THUMBNAIL_SIZES, type ThumbnailSize } from "@vetted/fileorg";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponses as errors, idParam, JobIdParams, jsonResponse, RowIdParams } from "./common.js";

const TAG = ["jobs"];

const SIZES = THUMBNAIL_SIZES.map(String) as [string, ...string[]];
const ThumbnailQuery = z.object({
  size: z
    .enum(SIZES)
    .optional()
    .meta({ description: "Longest side in px (default 128): one of 64, 128, 256, 512" }),
});
const ConflictParams = JobIdParams.extend({ conflict_id: idParam("conflict_id") });

/** How long a browser may reuse a thumbnail before it asks again (with `If-None-Match`). */
const CACHE_CONTROL = "private, max-age=60, stale-while-revalidate=600";

/** Whether an `If-None-Match` header names `etag` (a list, weak or strong, or `*`). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === `"${etag}"`;
  });
}

/**
 * Previews of a manifest's files and conflicts: a row's thumbnail (an image, or a PDF's first page; WebP,
 * rendered server-side into `<data dir>/previews` and cached there, least recently used evicted past
 * `VETTED_PREVIEW_CACHE_BYTES`), and a conflict with its files and a
 * dry run of each resolution.
 */
export function createPreviewRoutes(deps: Pick<AppDeps, "fileorg" | "previewsDir" | "previewCacheBytes">) {
  const engine = deps.fileorg;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest/{row_id}/thumbnail",
        tags: TAG,
        summary:
          "A row's thumbnail (an image, or a PDF's first page) as WebP; ETag + If-None-Match (304). " +
          "415 NOT_PREVIEWABLE, 404 FILE_MISSING, 403 PATH_OUTSIDE_ROOT, 422 FILE_UNREADABLE or PREVIEW_FAILED, " +
          "503 PREVIEW_UNAVAILABLE (an optional package is not installed)",
        request: { params: RowIdParams, query: ThumbnailQuery },
        responses: {
          200: {
            description: "The thumbnail",
            content: { "image/webp": { schema: z.string().meta({ format: "binary" }) } },
          },
          304: { description: "Not modified (the `If-None-Match` ETag is current)" },
          ...errors(400, 403, 404, 409, 415, 422, 503),
        },
      }),
      async (c) => {
        const { job_id, row_id } = c.req.valid("param");
        const size = Number(c.req.valid("query").size ?? "128") as ThumbnailSize;
        const thumb = await engine.thumbnailRow(job_id, row_id, {
          size,
          cacheDir: deps.previewsDir,
          cacheMaxBytes: deps.previewCacheBytes,
        });
        const headers = { ETag: `"${thumb.etag}"`, "Cache-Control": CACHE_CONTROL };
        if (matchesEtag(c.req.header("If-None-Match"), thumb.etag)) return c.body(null, 304, headers);
        return c.body(new Uint8Array(thumb.data), 200, { ...headers, "Content-Type": thumb.contentType });
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest/conflicts/{conflict_id}/preview",
        tags: TAG,
        summary:
          "A conflict with its files (relative names, size, dates) and a dry run of each resolution (nothing changes)",
        request: { params: ConflictParams },
        responses: {
          200: jsonResponse("The conflict and its resolutions", ConflictPreview),
          ...errors(404, 409),
        },
      }),
      async (c) => {
        const { job_id, conflict_id } = c.req.valid("param");
        return c.json(await engine.previewConflict(job_id, conflict_id), 200);
      },
    );
}
