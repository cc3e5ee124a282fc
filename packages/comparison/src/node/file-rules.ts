import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { FileIssueCode, Issue, Severity } from "../domain/issues.js";
import type { RuleSeverity } from "../domain/lint.js";
import type { ComparisonDocument } from "../domain/schema.js";

/** The default severity of the opt-in file rules. */
export const DEFAULT_FILE_SEVERITIES: Readonly<Record<FileIssueCode, Severity>> = {
  MISSING_DOC_FILE: "error",
  MISSING_PACK_PATH: "error",
};

/** Options of {@link checkFiles}. */
export interface FileRuleOptions {
  /** The folder paths are relative to, usually the folder of the document. */
  readonly baseDir: string;
  readonly severities?: Readonly<Partial<Record<FileIssueCode, RuleSeverity>>>;
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:/i;

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The opt-in, Node-only rules: every `recommendedDocs` entry (URLs are skipped, `#fragments` ignored)
 * and every `copyReadyPackPath` must exist relative to `baseDir`. Returns the issues in document order.
 */
export async function checkFiles(document: ComparisonDocument, options: FileRuleOptions): Promise<Issue[]> {
  const severityOf = (code: FileIssueCode) => options.severities?.[code] ?? DEFAULT_FILE_SEVERITIES[code];
  const checks: Array<Promise<Issue | undefined>> = [];
  const check = (code: FileIssueCode, pointer: string, rowId: string, path: string, what: string) => {
    const severity = severityOf(code);
    if (severity === "off") return;
    const target = isAbsolute(path) ? path : resolve(options.baseDir, path);
    checks.push(
      exists(target).then((found) =>
        found
          ? undefined
          : {
              code,
              severity,
              pointer,
              message: `${what} "${path}" of row "${rowId}" does not exist (looked for ${target}).`,
              params: { path, resolved: target, row: rowId },
            },
      ),
    );
  };
  document.comparisons.forEach((row, index) => {
    row.recommendedDocs.forEach((doc, position) => {
      if (URL_LIKE.test(doc)) return;
      const path = doc.split("#")[0] ?? doc;
      if (path === "") return;
      check(
        "MISSING_DOC_FILE",
        `/comparisons/${index}/recommendedDocs/${position}`,
        row.id,
        path,
        "Recommended doc",
      );
    });
    check(
      "MISSING_PACK_PATH",
      `/comparisons/${index}/copyReadyPackPath`,
      row.id,
      row.copyReadyPackPath,
      "Pack path",
    );
  });
  const results = await Promise.all(checks);
  return results.filter((issue): issue is Issue => issue !== undefined);
}
