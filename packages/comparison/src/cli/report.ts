import type { TextIssue } from "../domain/issues.js";

/** The outcome of validating one file in the CLI. */
export type FileReport =
  | { readonly file: string; readonly readable: true; readonly issues: readonly TextIssue[] }
  | { readonly file: string; readonly readable: false; readonly reason: string };

/** Output formats of `vetted-comparison validate`. */
export const OUTPUT_FORMATS = ["text", "json", "github"] as const;
/** An output format of `vetted-comparison validate`. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** GitHub shows at most ten annotations of each level per step. */
export const ANNOTATIONS_PER_LEVEL = 10;

interface Totals {
  errors: number;
  warnings: number;
  unreadable: number;
  clean: number;
}

function totalsOf(reports: readonly FileReport[]): Totals {
  const totals: Totals = { errors: 0, warnings: 0, unreadable: 0, clean: 0 };
  for (const report of reports) {
    if (!report.readable) {
      totals.unreadable++;
      continue;
    }
    if (report.issues.length === 0) totals.clean++;
    for (const issue of report.issues) {
      if (issue.severity === "error") totals.errors++;
      else totals.warnings++;
    }
  }
  return totals;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function summaryLine(reports: readonly FileReport[]): string {
  const totals = totalsOf(reports);
  const parts = [plural(totals.errors, "error"), plural(totals.warnings, "warning")];
  if (totals.unreadable > 0) parts.push(`${totals.unreadable} unreadable`);
  return `${parts.join(", ")} in ${plural(reports.length, "file")} (${totals.clean} clean)`;
}

/** `file:line:column  severity  CODE  message  (pointer)`, one line per issue, then a summary. */
export function formatText(reports: readonly FileReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    if (!report.readable) {
      lines.push(`${report.file}: cannot read the file (${report.reason})`);
      continue;
    }
    for (const issue of report.issues) {
      const where = issue.pointer === "" ? "" : `  (${issue.pointer})`;
      lines.push(
        `${report.file}:${issue.line}:${issue.column}  ${issue.severity.padEnd(7)}  ${issue.code}  ${issue.message}${where}`,
      );
    }
  }
  lines.push(summaryLine(reports));
  return `${lines.join("\n")}\n`;
}

/** One JSON object: every file with its issues, and the totals. */
export function formatJson(reports: readonly FileReport[]): string {
  const totals = totalsOf(reports);
  return `${JSON.stringify(
    {
      files: reports.map((report) =>
        report.readable
          ? { file: report.file, readable: true, issues: report.issues }
          : { file: report.file, readable: false, reason: report.reason },
      ),
      errors: totals.errors,
      warnings: totals.warnings,
      unreadable: totals.unreadable,
    },
    null,
    2,
  )}\n`;
}

function escapeData(value: string): string {
  return value.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=CODE::message`, at most
 * {@link ANNOTATIONS_PER_LEVEL} per level, then a roll-up line for the rest and a summary.
 */
export function formatGithub(reports: readonly FileReport[]): string {
  const lines: string[] = [];
  const shown = { error: 0, warning: 0 };
  const hidden = { error: 0, warning: 0 };
  const annotate = (level: "error" | "warning", properties: string, message: string) => {
    if (shown[level] >= ANNOTATIONS_PER_LEVEL) {
      hidden[level]++;
      return;
    }
    shown[level]++;
    lines.push(`::${level} ${properties}::${escapeData(message)}`);
  };
  for (const report of reports) {
    const file = escapeProperty(report.file);
    if (!report.readable) {
      annotate("error", `file=${file},title=UNREADABLE_FILE`, `Cannot read the file (${report.reason}).`);
      continue;
    }
    for (const issue of report.issues) {
      annotate(
        issue.severity,
        `file=${file},line=${issue.line},col=${issue.column},title=${escapeProperty(issue.code)}`,
        issue.pointer === "" ? issue.message : `${issue.message} (${issue.pointer})`,
      );
    }
  }
  if (hidden.error + hidden.warning > 0) {
    lines.push(
      `${plural(hidden.error, "more error")} and ${plural(hidden.warning, "more warning")} not annotated (GitHub shows ${ANNOTATIONS_PER_LEVEL} per level); run with --format text to list them all.`,
    );
  }
  lines.push(summaryLine(reports));
  return `${lines.join("\n")}\n`;
}
