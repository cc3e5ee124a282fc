import { readFile, stat } from "node:fs/promises";
import { validateText } from "@vetted/comparison";
import { createPathGuard, type FileorgEngine, FileorgError, isFinished, type Job } from "@vetted/fileorg";
import type { AutomationCommand, CommandContext } from "@vetted/runs/automation";

/** The largest comparison document `validate-comparison` reads. */
const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
/** How often `analyze-folder` looks at its job. */
const JOB_POLL_MS = 200;

function stringParam(params: Record<string, unknown>, name: string): string {
  const value = params[name];
  return typeof value === "string" ? value : "";
}

/** Waits `ms`, or less when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Follows a fileorg job until it finishes, cancelling it when the task is aborted. */
async function followJob(fileorg: FileorgEngine, job: Job, ctx: CommandContext): Promise<Job> {
  let current = job;
  let phase = "";
  while (!isFinished(current.status)) {
    if (ctx.signal.aborted) {
      await fileorg.cancel(current.job_id, { actor: "automation" });
      ctx.log(`cancel requested for job ${current.job_id}`, "system");
      return fileorg.getJob(current.job_id);
    }
    await pause(JOB_POLL_MS, ctx.signal);
    current = await fileorg.getJob(current.job_id);
    if (current.phase !== phase) {
      phase = current.phase;
      ctx.log(`job ${current.job_id}: ${current.status} ${phase} ${Math.round(current.progress * 100)}%`);
    }
  }
  return current;
}

/** `analyze-folder`: a fileorg analyze of a folder inside the allowed roots, followed to its end. */
export function createAnalyzeFolderCommand(
  fileorg: FileorgEngine,
  allowedRoots: readonly string[],
): AutomationCommand {
  const guard = createPathGuard(allowedRoots);
  return {
    id: "analyze-folder",
    title: "Analyze a folder",
    description:
      "Run a file-organization analyze of source_dir (inside the allowed roots) and wait for its manifest.",
    paramsSchema: {
      type: "object",
      properties: {
        source_dir: { type: "string", minLength: 1 },
        recursive: { type: "boolean" },
        include_hidden: { type: "boolean" },
      },
      required: ["source_dir"],
      additionalProperties: false,
    },
    tags: ["fileorg"],
    highRisk: false,
    idempotent: true,
    timeoutS: 3600,
    retries: 0,
    async precheck(params) {
      await guard.resolveDirectory(stringParam(params, "source_dir"));
    },
    async execute(ctx) {
      const job = await fileorg.analyze(
        {
          source_dir: stringParam(ctx.params, "source_dir"),
          ...(typeof ctx.params.recursive === "boolean" ? { recursive: ctx.params.recursive } : {}),
          ...(typeof ctx.params.include_hidden === "boolean"
            ? { include_hidden: ctx.params.include_hidden }
            : {}),
        },
        { actor: "automation", requestId: ctx.taskId },
      );
      ctx.log(`analyze job ${job.job_id} queued`, "system");
      const done = await followJob(fileorg, job, ctx);
      ctx.log(`job ${done.job_id} ${done.status}: ${JSON.stringify(done.result ?? done.error)}`);
      return done.status === "succeeded"
        ? { ok: true, exitCode: 0, message: `analyze job ${done.job_id} succeeded` }
        : {
            ok: false,
            exitCode: null,
            reason: "COMMAND_FAILED",
            message: `analyze job ${done.job_id} ${done.status}`,
          };
    },
  };
}

/** The real path of a regular file inside the allowed roots. @throws PATH_OUTSIDE_ROOT, SOURCE_NOT_FOUND */
async function confinedFile(allowedRoots: readonly string[], path: string): Promise<string> {
  const real = await createPathGuard(allowedRoots).resolvePossiblyMissing(path);
  const info = await stat(real).catch(() => undefined);
  if (info === undefined || !info.isFile()) {
    throw new FileorgError(
      "SOURCE_NOT_FOUND",
      `No file at ${path}; give a comparison document's absolute path.`,
      { path },
    );
  }
  return real;
}

/** `validate-comparison`: validates a comparison document file inside the allowed roots. */
export function createValidateComparisonCommand(allowedRoots: readonly string[]): AutomationCommand {
  return {
    id: "validate-comparison",
    title: "Validate a comparison document",
    description:
      "Validate the comparison document at path (a JSON file inside the allowed roots); each issue is one output line.",
    paramsSchema: {
      type: "object",
      properties: { path: { type: "string", minLength: 1 } },
      required: ["path"],
      additionalProperties: false,
    },
    tags: ["comparison"],
    highRisk: false,
    idempotent: true,
    timeoutS: 60,
    retries: 0,
    async precheck(params) {
      await confinedFile(allowedRoots, stringParam(params, "path"));
    },
    async execute(ctx) {
      const path = await confinedFile(allowedRoots, stringParam(ctx.params, "path"));
      const info = await stat(path);
      if (info.size > MAX_DOCUMENT_BYTES) {
        return {
          ok: false,
          exitCode: 1,
          reason: "COMMAND_FAILED",
          message: `${path} is larger than ${MAX_DOCUMENT_BYTES} bytes`,
        };
      }
      const result = validateText(await readFile(path, "utf8"), path);
      if (result.ok) {
        ctx.log(`${path}: valid (${result.value.comparisons.length} comparisons)`);
        return { ok: true, exitCode: 0, message: "valid" };
      }
      for (const issue of result.issues) ctx.log(JSON.stringify(issue));
      return { ok: false, exitCode: 1, reason: "EXIT_NONZERO", message: `${result.issues.length} issue(s)` };
    },
  };
}
