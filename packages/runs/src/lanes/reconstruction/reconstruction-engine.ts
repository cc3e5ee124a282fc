import { type Clock, type IdGenerator, randomIds, runTransaction } from "@vetted/store";
import { eq, lt } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { z } from "zod";
import type { RunsCore } from "../../core/runs-engine.js";
import { FlowInput } from "../../domain/flow.js";
import {
  FromArtifactsInput,
  GenerateInput,
  type GenerateResult,
  type PreviewFlowDraft,
  PreviewInput,
  ProfileResolveInput,
  type ProfileResult,
  type ReconstructionPreview,
} from "../../domain/reconstruction/api.js";
import type { PlanContext } from "../../domain/reconstruction/inputs.js";
import { buildPreview, type PreviewBody } from "../../domain/reconstruction/preview.js";
import { resolveProfile } from "../../domain/reconstruction/profile.js";
import { type ParamSpec, TemplateInput, validateParams } from "../../domain/template.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { reconstructionPreviews } from "../../store/reconstruction-schema.js";
import { fingerprint } from "../sessions/har.js";
import { loadInputs } from "./load-artifacts.js";
import { PreviewUnavailableError } from "./reconstruction-errors.js";

/** How long a stored preview can be generated from: 24 h. */
export const PREVIEW_TTL_MS = 24 * 60 * 60 * 1000;

/** What {@link createReconstructionEngine} is built from. */
export interface ReconstructionEngineOptions {
  db: LibSQLDatabase;
  /** Session artifacts live here; paths inside it are always readable. */
  dataDir: string;
  /** Roots `har_path` and `html_path` may lie in, besides the data directory. */
  allowedRoots: readonly string[];
  /** The largest HAR or HTML a request may name or carry (`VETTED_MAX_BODY_BYTES`). */
  maxArtifactBytes: number;
  protectedDomains: readonly string[];
  /** The run engine the generated flows, templates and runs are stored in. */
  runs: Pick<RunsCore, "createFlow" | "createTemplate" | "createRun">;
  clock?: Clock;
  ids?: IdGenerator;
  previewTtlMs?: number;
}

function parse<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new InvalidInputError("REQUEST_INVALID", `${what} is invalid.`, parsed.error.issues);
  return parsed.data;
}

function toPreview(row: typeof reconstructionPreviews.$inferSelect): ReconstructionPreview {
  const b = row.body;
  const { kind, name, start_url, steps, secrets, params, approvals, dropped } = b.plan;
  return {
    preview_id: row.id,
    profile: b.profile,
    flow_draft: {
      kind,
      name,
      start_url,
      steps: steps as PreviewFlowDraft["steps"],
      secrets,
      params,
      approvals,
      dropped,
    },
    reconstructed_flow_quality: b.reconstructed_flow_quality,
    step_confidence: b.step_confidence,
    unresolved_segments: b.unresolved_segments,
    manual_handoff_required: b.manual_handoff_required,
    generator_outputs: b.generator_outputs,
    created_at: new Date(row.createdAt).toISOString(),
    expires_at: new Date(row.expiresAt).toISOString(),
  };
}

/** The template a draft needs: its secrets (required) and params (required unless recorded with a value). */
function templateOf(draft: PreviewFlowDraft): {
  params_schema: ParamSpec[];
  defaults: Record<string, string>;
} {
  const secrets = new Set(draft.secrets);
  const params_schema: ParamSpec[] = [
    ...draft.secrets.map((key) => ({ key, type: "secret" as const, required: true })),
    ...draft.params
      .filter((p) => !secrets.has(p.key))
      .map((p) => ({ key: p.key, type: "string" as const, required: p.default === undefined })),
  ];
  const defaults = Object.fromEntries(
    draft.params.flatMap((p) => (p.default === undefined || secrets.has(p.key) ? [] : [[p.key, p.default]])),
  );
  return { params_schema, defaults };
}

/**
 * Creates the profiles-and-reconstruction engine: resolve a profile, preview a reconstructed flow (stored
 * 24 h), and generate a flow + template (+ a run) from a preview.
 */
export function createReconstructionEngine(options: ReconstructionEngineOptions) {
  const now = () => options.clock?.now() ?? Date.now();
  const newId = options.ids ?? randomIds;
  const ttl = options.previewTtlMs ?? PREVIEW_TTL_MS;
  const sources = {
    db: options.db,
    dataDir: options.dataDir,
    allowedRoots: options.allowedRoots,
    maxArtifactBytes: options.maxArtifactBytes,
  };
  const ctx = (strategy: PlanContext["strategy"]): PlanContext => ({
    strategy,
    protectedDomains: options.protectedDomains,
    fingerprint,
  });

  async function preview(input: unknown): Promise<ReconstructionPreview> {
    const body = parse(PreviewInput, input, "The preview request");
    const inputs = await loadInputs(sources, body.artifacts);
    const built: PreviewBody = buildPreview(inputs, ctx(body.extractor_strategy), body.mode);
    const at = now();
    const a = body.artifacts;
    const source = [
      a.session_id === undefined ? undefined : `session:${a.session_id}`,
      a.har_path !== undefined || a.har_content !== undefined ? "har" : undefined,
      a.html_path !== undefined || a.html_content !== undefined ? "html" : undefined,
    ]
      .filter((s) => s !== undefined)
      .join("+");
    const row = {
      id: newId("rcp"),
      strategy: body.extractor_strategy,
      source,
      body: built,
      createdAt: at,
      expiresAt: at + ttl,
    };
    await runTransaction(options.db, async (tx) => {
      await tx.delete(reconstructionPreviews).where(lt(reconstructionPreviews.expiresAt, at - ttl));
      await tx.insert(reconstructionPreviews).values(row);
    });
    return toPreview(row);
  }

  async function getPreview(id: string): Promise<ReconstructionPreview> {
    const [row] = await options.db
      .select()
      .from(reconstructionPreviews)
      .where(eq(reconstructionPreviews.id, id))
      .limit(1);
    if (row === undefined) throw new PreviewUnavailableError("PREVIEW_NOT_FOUND", id);
    if (row.expiresAt <= now()) throw new PreviewUnavailableError("PREVIEW_EXPIRED", id);
    return toPreview(row);
  }

  async function generate(input: unknown): Promise<GenerateResult> {
    const body = parse(GenerateInput, input, "The generate request");
    const draft =
      body.preview_id === undefined
        ? body.preview?.flow_draft
        : (await getPreview(body.preview_id)).flow_draft;
    if (draft === undefined) throw new InvalidInputError("REQUEST_INVALID", "give preview_id or preview");
    const flowInput = { name: body.template_name, steps: draft.steps };
    const flowCheck = FlowInput.safeParse(flowInput);
    if (!flowCheck.success) {
      throw new InvalidInputError(
        "FLOW_INVALID",
        "The preview's flow cannot be stored (no steps, or invalid ones).",
        flowCheck.error.issues,
      );
    }
    const template = templateOf(draft);
    const templateCheck = TemplateInput.safeParse({
      name: body.template_name,
      flow_id: "flow_check",
      ...template,
    });
    if (!templateCheck.success) {
      throw new InvalidInputError(
        "TEMPLATE_INVALID",
        "The preview's params do not make a template.",
        templateCheck.error.issues,
      );
    }
    if (body.create_run) {
      const check = validateParams(
        templateCheck.data.params_schema,
        template.defaults,
        body.run_params ?? {},
      );
      if (!check.ok)
        throw new InvalidInputError("PARAMS_INVALID", "run_params do not fit the template.", check.issues);
    }
    // Every input is checked above, so the writes below do not stop half-way on a bad request.
    const flow = await options.runs.createFlow(flowInput);
    const created = await options.runs.createTemplate({
      name: body.template_name,
      flow_id: flow.id,
      ...template,
    });
    const result: GenerateResult = { flow_id: flow.id, template_id: created.id };
    if (body.create_run) {
      const run = await options.runs.createRun({ template_id: created.id, params: body.run_params ?? {} });
      result.run_id = run.id;
    }
    if (body.preview_id !== undefined) result.preview_id = body.preview_id;
    return result;
  }

  return {
    /** Classifies the artifacts (`POST /api/profiles/resolve`). */
    async resolveProfile(input: unknown): Promise<ProfileResult> {
      const body = parse(ProfileResolveInput, input, "The profile request");
      return resolveProfile(await loadInputs(sources, body.artifacts), ctx(body.extractor_strategy));
    },
    /** Builds and stores a preview (`POST /api/reconstruction/preview`). */
    preview,
    /** A stored preview. @throws PREVIEW_NOT_FOUND, PREVIEW_EXPIRED */
    getPreview,
    /** A flow and template (and a run with `create_run`) from a preview (`POST /api/reconstruction/generate`). */
    generate,
    /** Preview and generate in one call (`POST /api/templates/from-artifacts`). */
    async fromArtifacts(input: unknown): Promise<GenerateResult> {
      const body = parse(FromArtifactsInput, input, "The request");
      const made = await preview({
        artifacts: body.artifacts,
        extractor_strategy: body.extractor_strategy,
        mode: body.mode,
      });
      return generate({
        preview_id: made.preview_id,
        template_name: body.template_name,
        create_run: body.create_run,
        ...(body.run_params === undefined ? {} : { run_params: body.run_params }),
      });
    },
  };
}

/** The profiles-and-reconstruction engine. */
export type ReconstructionEngine = ReturnType<typeof createReconstructionEngine>;
