import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  BatchEditRequest,
  CategoryName,
  CONFLICT_STATUSES,
  Conflict,
  ConflictList,
  EditResult,
  ManifestPage,
  ManifestRow,
  ManifestView,
  REVIEW_BUCKETS,
  ReasonCode,
  ResolveRequest,
  ROW_ACTIONS,
  ROW_STATUSES,
  RowPatch,
  RowPreview,
} from "@vetted/fileorg";
import type { AppDeps, AppEnv } from "../deps.js";
import { ServerError } from "../errors.js";
import {
  actorOf,
  bodyOf,
  errorResponses as errors,
  idParam,
  JobIdParams,
  jsonResponse,
  PageQuery,
  RowIdParams,
} from "./common.js";
import { ManifestSort } from "./manifest-sort.js";

const TAG = ["jobs"];

const ManifestQuery = PageQuery.extend({
  bucket: z.enum(REVIEW_BUCKETS).optional(),
  status: z.enum(ROW_STATUSES).optional(),
  category: CategoryName.optional(),
  action: z.enum(ROW_ACTIONS).optional(),
  text: z.string().min(1).max(500).optional(),
  reason: ReasonCode.optional().meta({ description: "Only rows with this reason code" }),
  view: z.string().min(1).optional().meta({
    description:
      "A saved view's id: its filter and sort apply; a filter field given here wins over the view's",
  }),
  sort: ManifestSort.optional(),
});
const ResolveResult = z
  .object({ revision: z.number().int(), plan_hash: z.string(), conflicts: z.array(Conflict) })
  .meta({ id: "FileorgResolveResult" });
/** The `If-Match` header of a route that changes a manifest. */
export const IfMatch = z.object({
  "if-match": z
    .string()
    .optional()
    .meta({ description: "The manifest revision the edit is based on; 412 when stale" }),
});

/** Parses `If-Match: 3`, `"3"` or `W/"3"` into a revision. */
export function parseIfMatch(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "*") return undefined;
  const n = Number(value.trim().replace(/^W\//, "").replaceAll('"', ""));
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ServerError("BAD_REQUEST", "If-Match must be a manifest revision (a whole number).");
  }
  return n;
}

/** `/api/jobs/{job_id}/manifest...`: an analyze job's rows, edits, conflicts, grouped view and previews. */
export function createManifestRoutes(deps: Pick<AppDeps, "fileorg" | "review">) {
  const engine = deps.fileorg;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest",
        tags: TAG,
        summary: "A page of an analyze job's manifest, filtered, or through a saved view (`?view=`)",
        request: { params: JobIdParams, query: ManifestQuery },
        responses: { 200: jsonResponse("A page of rows", ManifestPage), ...errors(400, 404, 409) },
      }),
      async (c) => {
        const page = await deps.review.manifestPage(c.req.valid("param").job_id, c.req.valid("query"));
        c.header("ETag", `"${page.revision}"`);
        return c.json(page, 200);
      },
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/manifest/batch",
        tags: TAG,
        summary: "Apply field patches to rows atomically (one revision bump); honours If-Match",
        request: { params: JobIdParams, headers: IfMatch, ...bodyOf(BatchEditRequest) },
        responses: {
          200: jsonResponse("The new revision and the rows", EditResult),
          ...errors(400, 403, 404, 409, 412),
        },
      }),
      async (c) => {
        const result = await engine.applyPatches(
          c.req.valid("param").job_id,
          c.req.valid("json").operations,
          {
            ...actorOf(c),
            expectedRevision: parseIfMatch(c.req.header("If-Match")),
          },
        );
        c.header("ETag", `"${result.revision}"`);
        return c.json(result, 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest/conflicts",
        tags: TAG,
        summary: "A manifest's conflicts",
        request: {
          params: JobIdParams,
          query: PageQuery.extend({ status: z.enum(CONFLICT_STATUSES).optional() }),
        },
        responses: { 200: jsonResponse("Conflicts", ConflictList), ...errors(404, 409) },
      }),
      async (c) => c.json(await engine.listConflicts(c.req.valid("param").job_id, c.req.valid("query")), 200),
    )
    .route("/", createConflictRowRoutes(deps))
    .route("/", createUnitRoutes(deps));
}

const UnitParams = JobIdParams.extend({ unit_id: idParam("unit_id") });
const ConflictParams = JobIdParams.extend({ conflict_id: idParam("conflict_id") });
const OriginalRequest = z
  .object({ row_id: z.string().min(1).max(200).meta({ description: "The copy to keep as the original" }) })
  .strict()
  .meta({ id: "FileorgOriginalRequest" });

/** Units (folders kept whole) and duplicate groups' originals: one action each. */
function createUnitRoutes(deps: Pick<AppDeps, "fileorg">) {
  const engine = deps.fileorg;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/manifest/units/{unit_id}/split",
        tags: TAG,
        summary:
          "Split a unit (a folder kept whole): its rows are planned one by one again; honours If-Match",
        request: { params: UnitParams, headers: IfMatch },
        responses: {
          200: jsonResponse("The new revision and the unit's rows, now on their own", EditResult),
          ...errors(400, 404, 409, 412),
        },
      }),
      async (c) => {
        const { job_id, unit_id } = c.req.valid("param");
        const result = await engine.splitUnit(job_id, unit_id, {
          ...actorOf(c),
          expectedRevision: parseIfMatch(c.req.header("If-Match")),
        });
        c.header("ETag", `"${result.revision}"`);
        return c.json(result, 200);
      },
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/manifest/conflicts/{conflict_id}/original",
        tags: TAG,
        summary: "Name another copy of a duplicate group its original (it keeps its planned target)",
        request: { params: ConflictParams, ...bodyOf(OriginalRequest) },
        responses: {
          200: jsonResponse("The duplicate group with its new original", Conflict),
          ...errors(400, 404, 409),
        },
      }),
      async (c) => {
        const { job_id, conflict_id } = c.req.valid("param");
        const conflict = await engine.chooseOriginal(
          job_id,
          conflict_id,
          c.req.valid("json").row_id,
          actorOf(c),
        );
        return c.json(conflict, 200);
      },
    );
}

/** Conflict resolution, one row's edit, the manifest view and a row's preview. */
function createConflictRowRoutes(deps: Pick<AppDeps, "fileorg">) {
  const engine = deps.fileorg;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/manifest/conflicts/resolve",
        tags: TAG,
        summary:
          "Resolve conflicts (rename, skip, keep_both, manual, move_to_duplicates, move_to_trash) atomically",
        request: { params: JobIdParams, headers: IfMatch, ...bodyOf(ResolveRequest) },
        responses: {
          200: jsonResponse("The conflicts after resolution", ResolveResult),
          ...errors(400, 403, 404, 409, 412),
        },
      }),
      async (c) =>
        c.json(
          await engine.resolveConflicts(c.req.valid("param").job_id, c.req.valid("json"), {
            ...actorOf(c),
            expectedRevision: parseIfMatch(c.req.header("If-Match")),
          }),
          200,
        ),
    )
    .openapi(
      createRoute({
        method: "patch",
        path: "/api/jobs/{job_id}/manifest/rows/{row_id}",
        tags: TAG,
        summary: "Edit one row, field by field; `If-Match: <revision>` → 412 when stale",
        request: { params: RowIdParams, headers: IfMatch, ...bodyOf(RowPatch) },
        responses: {
          200: jsonResponse("The row as it now is", ManifestRow),
          ...errors(400, 403, 404, 409, 412),
        },
      }),
      async (c) => {
        const { job_id, row_id } = c.req.valid("param");
        const result = await engine.applyPatches(job_id, [{ row_id, patch: c.req.valid("json") }], {
          ...actorOf(c),
          expectedRevision: parseIfMatch(c.req.header("If-Match")),
        });
        c.header("ETag", `"${result.revision}"`);
        const [row] = result.items;
        if (row === undefined) throw new ServerError("NOT_FOUND", `No row ${row_id}.`);
        return c.json(row, 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest/view",
        tags: TAG,
        summary: "Grouped view: the target folder tree with counts, and summaries per bucket/category/status",
        request: { params: JobIdParams },
        responses: { 200: jsonResponse("The grouped view", ManifestView), ...errors(404, 409) },
      }),
      async (c) => c.json(await engine.viewManifest(c.req.valid("param").job_id), 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest/{row_id}/preview",
        tags: TAG,
        summary: "A row's metadata and a safe preview (text lines, image size, PDF pages)",
        request: { params: RowIdParams },
        responses: { 200: jsonResponse("The preview", RowPreview), ...errors(404, 409) },
      }),
      async (c) => {
        const { job_id, row_id } = c.req.valid("param");
        return c.json(await engine.previewRow(job_id, row_id), 200);
      },
    );
}
