import { z } from "zod";
import { Step } from "../steps.js";
import { EXTRACTOR_STRATEGIES } from "./inputs.js";
import { PREVIEW_MODES } from "./preview.js";
import { PROFILE_KINDS, PROFILE_SIGNALS } from "./profile.js";

/*
 * The HTTP contract of profiles and reconstruction (`/api/profiles/resolve`, `/api/reconstruction/*`,
 * `/api/templates/from-artifacts`). Pure schemas.
 */

const Path = z.string().min(1).max(4096);

/** Where the artifacts come from: a finished session, and/or a HAR and an HTML page (paths or content). */
export const ReconstructionArtifacts = z
  .object({
    session_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: "A finished recording session: its HAR and recorded events" }),
    har_path: Path.optional().meta({
      description: "Absolute path of a HAR 1.2 file inside the allowed roots or the data directory",
    }),
    har_content: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .optional()
      .meta({ description: "A HAR 1.2 document (JSON text or object); at most VETTED_MAX_BODY_BYTES" }),
    html_path: Path.optional().meta({
      description: "Absolute path of an HTML file inside the allowed roots",
    }),
    html_content: z.string().min(1).max(5_000_000).optional(),
    start_url: z
      .string()
      .url()
      .max(8000)
      .optional()
      .meta({ description: "Where the flow starts (HTML input)" }),
  })
  .strict()
  .superRefine((a, ctx) => {
    if (a.session_id === undefined && a.har_path === undefined && a.har_content === undefined) {
      if (a.html_path === undefined && a.html_content === undefined) {
        ctx.addIssue({
          code: "custom",
          message: "give session_id, har_path, har_content, html_path or html_content",
        });
      }
    }
    if (a.har_path !== undefined && a.har_content !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["har_content"],
        message: "give har_path or har_content, not both",
      });
    }
    if (a.html_path !== undefined && a.html_content !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["html_content"],
        message: "give html_path or html_content, not both",
      });
    }
  })
  .meta({ id: "ReconstructionArtifacts" });
/** The artifacts of a reconstruction request. */
export type ReconstructionArtifacts = z.infer<typeof ReconstructionArtifacts>;

const Strategy = z.enum(EXTRACTOR_STRATEGIES).default("balanced").meta({
  description:
    "strict: only exact value flows, 0.8 HAR alignment for api-centric; balanced: 0.6; aggressive: 0.4",
});

/** The body of `POST /api/profiles/resolve`. */
export const ProfileResolveInput = z
  .object({ artifacts: ReconstructionArtifacts, extractor_strategy: Strategy })
  .strict()
  .meta({ id: "ProfileResolveInput" });
/** The body of `POST /api/profiles/resolve`. */
export type ProfileResolveInput = z.input<typeof ProfileResolveInput>;

/** `POST /api/profiles/resolve`. */
export const ProfileResult = z
  .object({
    profile: z.enum(PROFILE_KINDS),
    signals: z.array(z.enum(PROFILE_SIGNALS)),
    har_alignment_score: z.number(),
    dom_alignment_score: z.number(),
    recommended_manual_checkpoints: z.array(
      z.object({ step_hint: z.string(), reason: z.enum(PROFILE_SIGNALS) }),
    ),
    manual_handoff_required: z.boolean(),
    unsupported_reason: z.string().nullable(),
  })
  .meta({ id: "ProfileResult" });
/** A resolved profile. */
export type ProfileResult = z.infer<typeof ProfileResult>;

/** The body of `POST /api/reconstruction/preview`. */
export const PreviewInput = z
  .object({
    artifacts: ReconstructionArtifacts,
    extractor_strategy: Strategy,
    mode: z.enum(PREVIEW_MODES).default("auto").meta({
      description: "auto: http steps for an api-centric profile, browser steps otherwise",
    }),
  })
  .strict()
  .meta({ id: "ReconstructionPreviewInput" });
/** The body of `POST /api/reconstruction/preview`. */
export type PreviewInput = z.input<typeof PreviewInput>;

/** The reconstructed flow of a preview. */
export const PreviewFlowDraft = z
  .object({
    kind: z.enum(["http", "browser"]),
    name: z.string().min(1).max(200),
    start_url: z.string(),
    steps: z.array(Step).max(200),
    secrets: z.array(z.string()).meta({ description: "Secret params a run needs (${secrets.x})" }),
    params: z.array(z.object({ key: z.string(), default: z.string().optional() })),
    approvals: z
      .array(z.object({ step_id: z.string(), provider_domain: z.string() }))
      .meta({ description: "Steps to protected payment providers: the run pauses there for approval" }),
    dropped: z.array(z.object({ url: z.string(), reason: z.string() })),
  })
  .meta({ id: "PreviewFlowDraft" });
/** The reconstructed flow of a preview. */
export type PreviewFlowDraft = z.infer<typeof PreviewFlowDraft>;

/** `POST /api/reconstruction/preview`: a stored preview (it expires 24 h after it was made). */
export const ReconstructionPreview = z
  .object({
    preview_id: z.string(),
    profile: ProfileResult,
    flow_draft: PreviewFlowDraft,
    reconstructed_flow_quality: z.object({
      score: z.number(),
      level: z.enum(["high", "medium", "low"]),
      step_count: z.number().int(),
    }),
    step_confidence: z.array(z.object({ step_id: z.string(), confidence: z.number() })),
    unresolved_segments: z
      .array(z.object({ step_id: z.string(), confidence: z.number(), reasons: z.array(z.string()) }))
      .meta({ description: "Steps with confidence below 0.78" }),
    manual_handoff_required: z.boolean(),
    generator_outputs: z.object({
      playwright_spec: z.string().meta({ description: "A playwright-core script (ES module) of the flow" }),
      http_spec: z.string().meta({ description: "The flow as a .http file (VS Code REST Client)" }),
    }),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: "ReconstructionPreview" });
/** A stored preview. */
export type ReconstructionPreview = z.infer<typeof ReconstructionPreview>;

const RunParams = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

const GenerateFields = {
  template_name: z.string().min(1).max(200),
  create_run: z.boolean().default(false),
  run_params: RunParams.optional().meta({
    description: "Params (secrets included) of the run create_run starts",
  }),
};

/** The body of `POST /api/reconstruction/generate`: a stored preview (or one given inline) → flow + template. */
export const GenerateInput = z
  .object({
    preview_id: z.string().min(1).max(100).optional(),
    preview: z.object({ flow_draft: PreviewFlowDraft }).optional(),
    ...GenerateFields,
  })
  .strict()
  .superRefine((g, ctx) => {
    if ((g.preview_id === undefined) === (g.preview === undefined)) {
      ctx.addIssue({ code: "custom", message: "give exactly one of preview_id and preview" });
    }
  })
  .meta({ id: "ReconstructionGenerateInput" });
/** The body of `POST /api/reconstruction/generate`. */
export type GenerateInput = z.input<typeof GenerateInput>;

/** `POST /api/reconstruction/generate`. */
export const GenerateResult = z
  .object({
    flow_id: z.string(),
    template_id: z.string(),
    run_id: z.string().optional(),
    preview_id: z.string().optional(),
  })
  .meta({ id: "ReconstructionGenerateResult" });
/** What generate answers. */
export type GenerateResult = z.infer<typeof GenerateResult>;

/** The body of `POST /api/templates/from-artifacts`: preview and generate in one call. */
export const FromArtifactsInput = z
  .object({
    artifacts: ReconstructionArtifacts,
    extractor_strategy: Strategy,
    mode: z.enum(PREVIEW_MODES).default("auto"),
    ...GenerateFields,
  })
  .strict()
  .meta({ id: "TemplateFromArtifactsInput" });
/** The body of `POST /api/templates/from-artifacts`. */
export type FromArtifactsInput = z.input<typeof FromArtifactsInput>;
