import { z } from "zod";
import { FrameScope, Selector } from "./browser-steps.js";

/*
 * What a recording session captures, as data: the events the in-page recorder (and the page's main-frame
 * navigations) report while a person drives a live session. Pure: no I/O, no clock.
 */

/** One way to find a recorded element again: a browser step's {@link Selector}, with its score. */
export const SelectorCandidate = Selector;
/** One way to find a recorded element again. */
export type SelectorCandidate = Selector;

/** A recorded element: its selector candidates (best first) and a few facts about it. */
export const RecordedTarget = z.object({
  selectors: z.array(SelectorCandidate).min(1).max(10),
  /** The element's tag, lower case (`input`, `button`, `a`…). */
  tag: z.string().max(40),
  /** `type` of an input (`email`, `password`, `submit`…). */
  input_type: z.string().max(40).optional(),
  /** True for text fields: a click there only focuses, typing is what counts. */
  editable: z.boolean().optional(),
  /** A stable key of the element within its page (its XPath), to merge keystrokes into one step. */
  key: z.string().max(2000),
  /** The child frame the element lives in (set by the engine from the frame that reported, never the page). */
  frame: FrameScope.optional(),
});
/** A recorded element. */
export type RecordedTarget = z.infer<typeof RecordedTarget>;

/** The kinds of secret a field may hold; their values are never recorded. */
export const SECRET_KINDS = ["password", "card", "otp"] as const;
/** The kind of secret a field holds. */
export type SecretKind = (typeof SECRET_KINDS)[number];

/** One thing the person did (or the page did) during a session. */
export const RecordedEvent = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("navigate"), url: z.string().max(8000), at: z.number() }),
  z.object({ kind: z.literal("click"), url: z.string().max(8000), target: RecordedTarget, at: z.number() }),
  z.object({
    kind: z.literal("type"),
    url: z.string().max(8000),
    target: RecordedTarget,
    /** The typed value, or a `${secrets.name}` reference for password, card and OTP fields. */
    value: z.string().max(10_000),
    secret: z.object({ kind: z.enum(SECRET_KINDS), name: z.string().max(64) }).optional(),
    at: z.number(),
  }),
  z.object({
    kind: z.literal("select"),
    url: z.string().max(8000),
    target: RecordedTarget,
    option: z.string().max(2000),
    at: z.number(),
  }),
  z.object({
    kind: z.literal("submit"),
    url: z.string().max(8000),
    /** The button that submitted the form (or the form's first submit button); absent when it has none. */
    submitter: RecordedTarget.optional(),
    /** True when the submission came from a click the recorder already reported. */
    by_click: z.boolean(),
    at: z.number(),
  }),
]);
/** One recorded event. */
export type RecordedEvent = z.infer<typeof RecordedEvent>;
