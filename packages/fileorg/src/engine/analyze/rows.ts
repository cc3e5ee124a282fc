import { lstat } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { fileTypeFromBuffer } from "file-type";
import { classifyFile } from "../../domain/categorize.js";
import { checkContent } from "../../domain/content-check.js";
import { chooseDate, type DateHint } from "../../domain/content-date.js";
import { type RawMeta, type RowMeta, rowMetaOf } from "../../domain/content-meta.js";
import type { RowError } from "../../domain/manifest.js";
import { type ParsedTemplate, pathKey, renderTemplate } from "../../domain/template.js";
import { INITIAL_STATUS } from "../../domain/transitions.js";
import { UNIT_CATEGORY, UNIT_CONFIDENCE, UNIT_REASON } from "../../domain/units.js";
import type { InspectedFile } from "../inspect-pool.js";
import { digestOf, type RowRecord, reviewOf } from "../manifest/index.js";
import { type PlannedUnit, rowUnitOf, type UnitIndex, unitTargetOf } from "./units.js";

/** What analyzing one file yields. */
export interface FileFacts {
  sourcePath: string;
  size: number;
  mtime: number;
  dev: number;
  ino: number;
  ctime: number;
  sha256: string | null;
  sniffedMime: string | undefined;
  /** The extension the magic bytes name (no dot), when they name a type. */
  sniffedExt: string | undefined;
  /** Date texts the content carries, best first. */
  dateHints: readonly DateHint[];
  /** A photo's camera and a track's tags, as read. */
  meta: RawMeta | undefined;
  /** A text file's excerpt (bounded). */
  text: string | undefined;
  error: RowError | null;
}

/** A row as analyze builds it: the stored row and, for a text file, its excerpt (stored apart). */
export type BuiltRow = RowRecord & { textExcerpt?: string | undefined };

/** A reader thread's answer as the facts a row is built from (sniffing the magic bytes when it can tell more). */
export async function factsOf(file: InspectedFile): Promise<FileFacts> {
  const sniffed = file.head === null ? undefined : await fileTypeFromBuffer(file.head).catch(() => undefined);
  return {
    sourcePath: file.path,
    size: file.size,
    mtime: file.mtime,
    dev: file.dev,
    ino: file.ino,
    ctime: file.ctime,
    sha256: file.sha256,
    sniffedMime: sniffed?.mime,
    sniffedExt: sniffed?.ext,
    dateHints: file.dateHints ?? [],
    meta: file.meta,
    text: file.text,
    error:
      file.errorCode === null
        ? null
        : { code: "UNREADABLE", message: `The file cannot be read (${file.errorCode}).` },
  };
}

async function isOccupiedBySomethingElse(
  target: string,
  facts: FileFacts,
  directories: Map<string, Promise<boolean>>,
): Promise<boolean> {
  if (target === facts.sourcePath) return false;
  // Most targets land in folders that do not exist yet: one check per folder instead of one per file.
  const dir = dirname(target);
  let dirExists = directories.get(dir);
  if (dirExists === undefined) {
    dirExists = lstat(dir).then(
      () => true,
      () => false,
    );
    directories.set(dir, dirExists);
  }
  if (!(await dirExists)) return false;
  try {
    const t = await lstat(target);
    // On a case-insensitive file system the "target" may be the file itself under another case.
    return !(t.ino === facts.ino && t.dev === facts.dev);
  } catch {
    return false;
  }
}

/** Everything analyze needs, from the job's parameters. */
export interface AnalyzePlan {
  sourceDir: string;
  outputDir: string;
  template: ParsedTemplate;
  recursive: boolean;
  includeHidden: boolean;
  concurrency: number;
  /** Analyze exactly these files (absolute paths) instead of walking `sourceDir` (the inbox's batches). */
  files?: readonly string[] | undefined;
  /** Rows under this confidence go to `needs_review` (the strategy pack's threshold). */
  confidenceThreshold?: number | undefined;
  /** Adjusts a new row before its bucket is computed (review's learned suggestions). */
  adjust?: RowAdjuster | undefined;
  /** The never-touch set (the server's own data): listed as blocked rows, never read or moved. */
  isProtected?: ((path: string) => boolean) | undefined;
  /** The folders kept whole (found before the scan): their files keep their place inside the unit. */
  units?: UnitIndex | undefined;
  /** Whether each target folder exists (filled during the walk). */
  directories?: Map<string, Promise<boolean>>;
  /** Whether a PDF's text is read as its excerpt (a rule of the analyze, or its request, asks for it). */
  pdfText?: boolean | undefined;
}

/** What a row adjuster sees and answers: review's learned suggestions raise confidence or add reasons. */
export type RowAdjuster = (row: {
  sourcePath: string;
  targetPath: string;
  mime: string | null;
  category: string;
  confidence: number;
}) => { confidence: number; reasonCodes: readonly string[] } | undefined;

/** A file of a unit: filed with the unit, its name and place inside the unit kept as they are. */
function unitTargetOfFile(facts: FileFacts, unit: PlannedUnit, at: number) {
  const fileName = basename(facts.sourcePath);
  const dated = chooseDate({ hints: facts.dateHints, fileName, mtime: facts.mtime }, at);
  const ext = extname(fileName);
  const mime = facts.sniffedMime ?? classifyFile({ ext, sniffedMime: undefined }).mime;
  const cls = {
    category: UNIT_CATEGORY[unit.kind],
    confidence: UNIT_CONFIDENCE,
    mime,
    reasonCodes: [UNIT_REASON],
  };
  return {
    cls,
    content: { reasonCodes: [] as string[] },
    dated,
    targetPath: unitTargetOf(unit, facts.sourcePath),
  };
}

/** What a file's name and bytes say: its class, the content check, its best date and its target. */
function targetOf(facts: FileFacts, plan: AnalyzePlan, at: number, meta: RowMeta | null) {
  const fileName = basename(facts.sourcePath);
  const { sniffedMime, sniffedExt } = facts;
  const content = checkContent({
    ext: extname(fileName),
    size: facts.size,
    sniffed:
      sniffedMime === undefined || sniffedExt === undefined
        ? undefined
        : { mime: sniffedMime, ext: sniffedExt },
    readable: facts.error === null,
  });
  // A name without an extension gets the one its magic bytes name (`scan` that is a PDF → `scan.pdf`).
  const targetName = fileName + (content.appendExt ?? "");
  const cls = classifyFile({ ext: extname(targetName), sniffedMime });
  const dated = chooseDate({ hints: facts.dateHints, fileName, mtime: facts.mtime }, at);
  const rel = renderTemplate(plan.template, {
    category: cls.category,
    mtime: facts.mtime,
    date: dated.date,
    fileName: targetName,
    sha256: facts.sha256,
    sourcePath: facts.sourcePath,
    sourceRoot: plan.sourceDir,
    meta,
  });
  return { cls, content, dated, targetPath: join(plan.outputDir, rel) };
}

/** Builds the stored row for one inspected file. */
export async function buildRow(
  facts: FileFacts,
  plan: AnalyzePlan,
  jobId: string,
  seq: number,
  rowId: string,
  at: number,
): Promise<BuiltRow> {
  const blocked = facts.error !== null;
  const unit = plan.units?.find(facts.sourcePath);
  const meta = rowMetaOf(facts.meta, facts.dateHints, at);
  const { cls, content, dated, targetPath } =
    unit === undefined ? targetOf(facts, plan, at, meta) : unitTargetOfFile(facts, unit, at);
  const inPlace = targetPath === facts.sourcePath;
  const reasonCodes = [...cls.reasonCodes];
  for (const code of content.reasonCodes) if (!reasonCodes.includes(code)) reasonCodes.push(code);
  if (inPlace) reasonCodes.push("ALREADY_IN_PLACE");
  if (blocked) reasonCodes.push("UNREADABLE");
  const partial = {
    id: rowId,
    jobId,
    seq,
    sourcePath: facts.sourcePath,
    targetPath,
    targetKey: pathKey(targetPath),
    size: facts.size,
    mtime: facts.mtime,
    sourceDev: facts.dev,
    sourceIno: facts.ino,
    sourceCtime: facts.ctime,
    sha256: facts.sha256,
    mime: cls.mime,
    category: cls.category,
    confidence: cls.confidence,
    action: inPlace || blocked ? ("skip" as const) : ("move" as const),
    reasonCodes,
    status: INITIAL_STATUS.row,
    edited: false,
    targetEdited: false,
    blocked,
    targetOccupied:
      inPlace || blocked
        ? false
        : await isOccupiedBySomethingElse(targetPath, facts, plan.directories ?? new Map()),
    sourceChanged: false,
    duplicateAccepted: false,
    conflictIds: [] as string[],
    appliedRules: [] as RowRecord["appliedRules"],
    error: facts.error,
    updatedAt: at,
    date: dated.date,
    dateSource: dated.source,
    unitId: unit?.id ?? null,
    unit: unit === undefined ? null : rowUnitOf(unit),
    meta,
  };
  const adjusted = blocked || inPlace || unit !== undefined ? undefined : plan.adjust?.(partial);
  if (adjusted !== undefined) {
    partial.confidence = adjusted.confidence;
    for (const code of adjusted.reasonCodes)
      if (!partial.reasonCodes.includes(code)) partial.reasonCodes.push(code);
  }
  const { reviewBucket, reasonCodes: withVerdict } = reviewOf(partial, plan.confidenceThreshold);
  partial.reasonCodes = withVerdict;
  // Completed in place: a copy of a row of 35 fields per step was a good part of the main thread's garbage.
  const built: BuiltRow = Object.assign(partial, { reviewBucket, planDigest: "" });
  built.planDigest = digestOf(built);
  if (facts.text !== undefined && !blocked) built.textExcerpt = facts.text;
  return built;
}
