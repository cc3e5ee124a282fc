import { type Actor, type AnalyzeRequest, DEFAULT_NAMING_TEMPLATE, type Job } from "../../domain/job.js";
import { assertInsideEffectiveRoots } from "../effective-roots.js";
import type { FileorgResources } from "../resources.js";
import { createJob } from "./create.js";
import { paramDefaultsOf, requireTemplate } from "./verbs.js";

/** What the inbox asks analyze for: exactly `files` (inside `source_dir`), with a strategy pack's threshold. */
export type AnalyzeFilesRequest = AnalyzeRequest & {
  files: readonly string[];
  confidence_threshold?: number | undefined;
  /** The watch source's strategy pack (its categories and rules act on the rows). */
  strategy_pack_id?: string | undefined;
};

/** Queues an analyze job over exactly the listed files that lie inside `source_dir`. */
export async function analyzeFilesJob(
  res: FileorgResources,
  request: AnalyzeFilesRequest,
  actor: Actor,
): Promise<Job> {
  const { guard } = res.ctx;
  const sourceDir = await guard.resolveDirectory(request.source_dir);
  const outputDir =
    request.output_dir === undefined ? sourceDir : await guard.resolvePossiblyMissing(request.output_dir);
  const namingTemplate = request.naming_template ?? DEFAULT_NAMING_TEMPLATE;
  requireTemplate(namingTemplate);
  const defaults = await paramDefaultsOf(res);
  // The runtime setting allowed_roots narrows the environment's roots for every new analyze.
  await assertInsideEffectiveRoots(guard, defaults.allowed_roots, [sourceDir, outputDir]);
  const prefix = sourceDir.endsWith("/") ? sourceDir : `${sourceDir}/`;
  const files = request.files.filter((f) => f.startsWith(prefix));
  const params = {
    ...defaults,
    source_dir: sourceDir,
    output_dir: outputDir,
    naming_template: namingTemplate,
    recursive: true,
    include_hidden: false,
    files,
    ...(request.confidence_threshold === undefined
      ? {}
      : { confidence_threshold: request.confidence_threshold }),
    ...(request.strategy_pack_id === undefined ? {} : { strategy_pack_id: request.strategy_pack_id }),
  };
  return createJob(res, "analyze", { params }, actor);
}
