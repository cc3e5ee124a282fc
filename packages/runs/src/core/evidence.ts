import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { decodeCursor, encodeCursor, type KeysetPage, type Tx, toKeysetPage } from "@vetted/store";
import { and, asc, eq, gt, max } from "drizzle-orm";
import type { CDPSession, Page } from "playwright-core";
import { z } from "zod";
import { RunsError, StepNotFoundError } from "../kernel/errors.js";
import { evidence } from "../store/schema.js";
import { type ListQuery, pageLimit } from "./lists.js";
import { readRun } from "./persist.js";
import type { RunsResources } from "./resources.js";
import { SECRET_MARK } from "./steps/browser-act.js";

/** One browser step's evidence: timing, the selector used and its fallback trail, URLs, screenshots. */
export const StepEvidence = z
  .object({
    id: z.string(),
    run_id: z.string(),
    step_id: z.string(),
    step_type: z.string(),
    outcome: z.string(),
    started_at: z.string(),
    duration_ms: z.number().int(),
    detail: z.record(z.string(), z.unknown()),
    screenshots: z.array(z.object({ name: z.string(), path: z.string() })).meta({
      description: "Fetch one with GET /api/runs/{run_id}/evidence/{evidence_id}/screenshots/{name}",
    }),
  })
  .meta({ id: "StepEvidence" });
/** One browser step's evidence. */
export type StepEvidence = z.infer<typeof StepEvidence>;

/** The evidence a browser step collected, before it is stored. */
export interface EvidenceDraft {
  id: string;
  stepId: string;
  stepType: string;
  outcome: string;
  startedAt: number;
  durationMs: number;
  detail: Record<string, unknown>;
  screenshots: Record<string, string>;
}

/** The directory of a run's evidence files, under the data directory. */
export function evidenceDir(dataDir: string, runId: string): string {
  return join(dataDir, "evidence", runId);
}

/** The JPEG quality of evidence screenshots (1280×800, about 10–30 kB each). */
export const SCREENSHOT_QUALITY = 70;
/** How long a screenshot may take before it is given up (its file is then never written). */
const CAPTURE_TIMEOUT_MS = 5_000;

/**
 * Captures the page as JPEG bytes. An unmasked capture is one `Page.captureScreenshot` through the page's
 * CDP session (`cdp`): the compositor's frame as it is, without Playwright's per-capture preparation
 * (a style injected into every frame to hide the caret, waits for fonts), which costs more than the capture
 * itself. A masked capture (a secret is on the page) goes through Playwright, which paints over the fields.
 */
export async function captureJpeg(
  page: Page,
  cdp: Promise<CDPSession> | undefined,
  masked: boolean,
): Promise<Buffer> {
  if (masked || cdp === undefined) {
    const mask = masked ? { mask: [page.locator(`input[type=password], [${SECRET_MARK}]`)] } : {};
    return page.screenshot({
      type: "jpeg",
      quality: SCREENSHOT_QUALITY,
      timeout: CAPTURE_TIMEOUT_MS,
      ...mask,
    });
  }
  const session = await cdp;
  const shot = session.send("Page.captureScreenshot", {
    format: "jpeg",
    quality: SCREENSHOT_QUALITY,
    optimizeForSpeed: true,
  });
  // A capture the browser never answers (the page went away mid-frame) must not hold the run up.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the screenshot timed out")), CAPTURE_TIMEOUT_MS);
  });
  try {
    return Buffer.from((await Promise.race([shot, late])).data, "base64");
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Takes a screenshot of `page` as `<evidence id>-<name>.jpg`: the path (relative to the data dir) at once,
 * and the promise of the file written. The file appears whole or not at all (written aside, then renamed),
 * so a reader never sees half a picture; {@link readScreenshot} answers one not written (yet, or ever: the
 * browser crashed) as not found.
 */
export function writeScreenshot(
  dataDir: string,
  runId: string,
  evidenceId: string,
  name: string,
  capture: Promise<Buffer>,
): { path: string; written: Promise<void> } {
  const dir = evidenceDir(dataDir, runId);
  const file = join(dir, `${evidenceId}-${name}.jpg`);
  const written = capture.then(async (image) => {
    await mkdir(dir, { recursive: true });
    await writeFile(`${file}.part`, image);
    await rename(`${file}.part`, file);
  });
  return { path: relative(dataDir, file), written };
}

/** Stores steps' evidence rows (files are already written) in the caller's transaction. */
export async function insertEvidence(tx: Tx, runId: string, drafts: readonly EvidenceDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  const [last] = await tx
    .select({ seq: max(evidence.seq) })
    .from(evidence)
    .where(eq(evidence.runId, runId));
  const first = (last?.seq ?? 0) + 1;
  await tx.insert(evidence).values(drafts.map((d, i) => ({ ...d, runId, seq: first + i })));
}

function toEvidence(row: typeof evidence.$inferSelect): StepEvidence {
  return {
    id: row.id,
    run_id: row.runId,
    step_id: row.stepId,
    step_type: row.stepType,
    outcome: row.outcome,
    started_at: new Date(row.startedAt).toISOString(),
    duration_ms: row.durationMs,
    detail: row.detail,
    screenshots: Object.entries(row.screenshots).map(([name, path]) => ({ name, path })),
  };
}

/** A query of a run's evidence, optionally of one step. */
export type EvidenceQuery = ListQuery & { step_id?: string | undefined };

/** A run's evidence, oldest first. @throws RUN_NOT_FOUND, STEP_NOT_FOUND, CURSOR_INVALID */
export async function listEvidence(
  r: RunsResources,
  runId: string,
  query: EvidenceQuery = {},
): Promise<KeysetPage<StepEvidence>> {
  const run = await readRun(r.db, runId);
  const stepId = query.step_id;
  if (stepId !== undefined && !run.steps.some((s) => s.id === stepId))
    throw new StepNotFoundError(runId, stepId);
  const list = `run_evidence:${runId}`;
  const after = query.cursor === undefined ? 0 : Number(decodeCursor(query.cursor, list, ["integer"])[0]);
  const limit = pageLimit(query.limit);
  const rows = await r.db
    .select()
    .from(evidence)
    .where(
      and(
        eq(evidence.runId, runId),
        gt(evidence.seq, after),
        stepId === undefined ? undefined : eq(evidence.stepId, stepId),
      ),
    )
    .orderBy(asc(evidence.seq))
    .limit(limit + 1);
  return toKeysetPage(rows, limit, toEvidence, (last) => encodeCursor(list, [last.seq]));
}

/** A screenshot of a run's evidence, as JPEG bytes. @throws RUN_NOT_FOUND, STEP_NOT_FOUND (no such screenshot) */
export async function readScreenshot(
  r: RunsResources,
  runId: string,
  evidenceId: string,
  name: string,
): Promise<{ bytes: Buffer; mime: "image/jpeg" }> {
  await readRun(r.db, runId);
  const [row] = await r.db
    .select()
    .from(evidence)
    .where(and(eq(evidence.runId, runId), eq(evidence.id, evidenceId)))
    .limit(1);
  const path = row?.screenshots[name];
  if (path === undefined) {
    throw new RunsError(
      "STEP_NOT_FOUND",
      `Run ${runId} has no screenshot ${name} in evidence ${evidenceId}.`,
    );
  }
  // The stored path is the engine's own, but stay inside the evidence directory all the same.
  const root = resolve(evidenceDir(r.dataDir, runId));
  const file = resolve(r.dataDir, path);
  if (!file.startsWith(root + sep)) throw new RunsError("STEP_NOT_FOUND", `No screenshot ${name}.`);
  try {
    return { bytes: await readFile(file), mime: "image/jpeg" };
  } catch {
    // A screenshot the browser could not take (it crashed, the page closed) was never written.
    throw new RunsError(
      "STEP_NOT_FOUND",
      `The screenshot ${name} of evidence ${evidenceId} was not written.`,
    );
  }
}
