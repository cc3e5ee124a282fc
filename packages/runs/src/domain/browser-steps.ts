import { z } from "zod";

/*
 * The browser step schemas: what `navigate`, `click`, `type`, `select`, `wait_for`, `extract` and
 * `screenshot` steps look like, as data (the browser form of `assert` lives with the value form in
 * `steps.ts`). Their executors live in `../core/steps/browser-*.ts`; this module does no I/O.
 */

const BrowserStepId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a step id is 1-64 letters, digits, _ or -");

/** How a selector finds an element. */
export const SELECTOR_KINDS = ["role", "label", "text", "testid", "css", "xpath"] as const;

/** One way to find an element; for `role`, `value` is the ARIA role and `name` the accessible name. */
export const Selector = z
  .object({
    kind: z.enum(SELECTOR_KINDS),
    value: z.string().min(1).max(2000),
    name: z.string().max(500).optional(),
    score: z.number().min(0).max(1).optional().meta({ description: "How stable the recorder judged it" }),
  })
  .meta({ id: "Selector" });
/** One way to find an element. */
export type Selector = z.infer<typeof Selector>;

/**
 * Which frame of the page a target lives in: a child frame (an `<iframe>`) whose URL contains `url` and/or
 * whose name is `name`. Without it a target is searched in the main frame, then in every child frame.
 */
export const FrameScope = z
  .object({
    url: z.string().min(1).max(2000).optional().meta({ description: "A part of the frame's URL" }),
    name: z.string().min(1).max(500).optional().meta({ description: "The frame's name (or id)" }),
  })
  .refine((f) => f.url !== undefined || f.name !== undefined, {
    message: "a frame scope names the frame by url, name or both",
  })
  .meta({ id: "FrameScope" });
/** Which frame a target lives in. */
export type FrameScope = z.infer<typeof FrameScope>;

/** An element, found by the first of its selectors that matches (the others are fallbacks). */
export const Target = z
  .object({ selectors: z.array(Selector).min(1).max(10), frame: FrameScope.optional() })
  .meta({
    id: "Target",
    description:
      "Selector candidates, tried in order; each in the main frame first, then in child frames (document order), or only in the frames `frame` names",
  });
/** An element to act on. */
export type Target = z.infer<typeof Target>;

/** How long a browser step waits for its element, page or condition. */
export const BrowserTimeout = z.number().int().min(1).max(120_000).default(10_000);

/** How long after a `navigate`, `click`, `type` or `select` the step waits for requests its page sends late (ms). */
export const LATE_REQUEST_MS = 150;

/**
 * The least such wait of a step (or computer-use action) a person approved (ms): a card form that tokenises
 * the card before it posts sends its payment a moment after the click, and must still find it approved.
 */
export const APPROVED_LATE_REQUEST_MS = 750;

/** The browser steps that act on the page: their action may make the page send requests a moment later. */
export const ACTING_STEP_TYPES = ["navigate", "click", "type", "select"] as const;

/** A step's own window for late requests (see `lateRequestWindowMs`). */
const LateRequestMs = z.number().int().min(0).max(5_000).optional().meta({
  description:
    "How long after its action the step waits for requests the page sends late (default 150 ms; at least 750 once approved). A request to a protected provider sent within it pauses this step; one sent later is told by the next browser step",
});

/**
 * How long the step waits, after its action, for the requests its page sends a moment later (ms): its own
 * `late_request_ms` (default `LATE_REQUEST_MS`), and at least `APPROVED_LATE_REQUEST_MS` once a person
 * approved it; 0 for a step that does not act on the page.
 */
export function lateRequestWindowMs(
  step: { type: string; late_request_ms?: number | undefined },
  approved: boolean,
): number {
  if (!(ACTING_STEP_TYPES as readonly string[]).includes(step.type)) return 0;
  const own = step.late_request_ms ?? LATE_REQUEST_MS;
  return approved ? Math.max(own, APPROVED_LATE_REQUEST_MS) : own;
}

/** `navigate`: opens `url` (http or https) in the run's page. */
export const NavigateStep = z
  .object({
    id: BrowserStepId,
    type: z.literal("navigate"),
    url: z.string().min(1).meta({ description: "Absolute http(s) URL; may hold ${…} references" }),
    timeout_ms: BrowserTimeout,
    late_request_ms: LateRequestMs,
  })
  .meta({ id: "NavigateStep" });
/** A `navigate` step. */
export type NavigateStep = z.infer<typeof NavigateStep>;

/** `click`: clicks the target. */
export const ClickStep = z
  .object({
    id: BrowserStepId,
    type: z.literal("click"),
    target: Target,
    timeout_ms: BrowserTimeout,
    late_request_ms: LateRequestMs,
  })
  .meta({ id: "ClickStep" });
/** A `click` step. */
export type ClickStep = z.infer<typeof ClickStep>;

/** `type`: fills the target with `value` (which may be `${secrets.x}`, `${gate.otp_code}`…). */
export const TypeStep = z
  .object({
    id: BrowserStepId,
    type: z.literal("type"),
    target: Target,
    value: z.string().max(10_000),
    timeout_ms: BrowserTimeout,
    late_request_ms: LateRequestMs,
  })
  .meta({ id: "TypeStep" });
/** A `type` step. */
export type TypeStep = z.infer<typeof TypeStep>;

/** `select`: picks `option` (by value or label) in the target `<select>`. */
export const SelectStep = z
  .object({
    id: BrowserStepId,
    type: z.literal("select"),
    target: Target,
    option: z.string().min(1).max(1000),
    timeout_ms: BrowserTimeout,
    late_request_ms: LateRequestMs,
  })
  .meta({ id: "SelectStep" });
/** A `select` step. */
export type SelectStep = z.infer<typeof SelectStep>;

/** `wait_for`: waits until the target is visible, the URL contains `url`, or the page shows `text`. */
export const WaitForStep = z
  .object({
    id: BrowserStepId,
    type: z.literal("wait_for"),
    target: Target.optional(),
    url: z.string().min(1).optional().meta({ description: "A part of the page URL to wait for" }),
    text: z.string().min(1).optional(),
    timeout_ms: BrowserTimeout,
  })
  .refine((s) => [s.target, s.url, s.text].filter((v) => v !== undefined).length === 1, {
    message: "a wait_for step waits for exactly one of target, url and text",
  })
  .meta({ id: "WaitForStep" });
/** A `wait_for` step. */
export type WaitForStep = z.infer<typeof WaitForStep>;

/** `extract`: reads the target's text (or attribute `attr`) into the var `var`. */
export const ExtractStep = z
  .object({
    id: BrowserStepId,
    type: z.literal("extract"),
    target: Target,
    attr: z.string().min(1).max(200).optional(),
    var: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
    timeout_ms: BrowserTimeout,
  })
  .meta({ id: "ExtractStep" });
/** An `extract` step. */
export type ExtractStep = z.infer<typeof ExtractStep>;

/** `screenshot`: stores a screenshot of the page as evidence under `name`. */
export const ScreenshotStep = z
  .object({
    id: BrowserStepId,
    type: z.literal("screenshot"),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a screenshot name is 1-64 letters, digits, _ or -"),
  })
  .meta({ id: "ScreenshotStep" });
/** A `screenshot` step. */
export type ScreenshotStep = z.infer<typeof ScreenshotStep>;

/** The fields of the browser form of `assert`. */
export const BROWSER_ASSERT_FIELDS = ["target", "text", "url", "visible"] as const;

/** Whether an `assert` step is the browser form (it has `target`, `text`, `url` or `visible`). */
export function isBrowserAssert(step: Record<string, unknown>): boolean {
  return BROWSER_ASSERT_FIELDS.some((field) => step[field] !== undefined);
}
