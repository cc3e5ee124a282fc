/** Statements that only read: their main keyword. */
const READS = new Set(["select", "values", "explain"]);
/** Pragmas that change the database even when given no value. */
const WRITING_PRAGMAS = /^\s*pragma\s+(\w+\.)?(wal_checkpoint|optimize|incremental_vacuum|shrink_memory)\b/i;
/** The keywords that can start a `WITH` statement's main part. */
const MAIN = new Set(["select", "values", "insert", "update", "delete", "replace"]);

/** The top-level words of `sql` (outside strings, quoted names, comments and parentheses), lower-cased. */
function* topLevelWords(sql: string): Generator<string> {
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] ?? "";
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] !== close) j++;
        // A doubled quote inside a string or name stands for itself.
        else if (close !== "]" && sql[j + 1] === close) j += 2;
        else break;
      }
      i = j + 1;
    } else if (c === "(") {
      depth++;
      i++;
    } else if (c === ")") {
      depth--;
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$]/.test(sql[j] ?? "")) j++;
      if (depth === 0) yield sql.slice(i, j).toLowerCase();
      i = j;
    } else {
      i++;
    }
  }
}

/**
 * Whether a statement may write (anything but a plain `SELECT`, `VALUES`, `EXPLAIN`, a `WITH … SELECT`, or a
 * `PRAGMA` that sets nothing). Errs towards "writes": a write judged a read would bypass the one writer.
 */
export function statementWrites(sql: string): boolean {
  const words = topLevelWords(sql);
  const first = words.next().value;
  if (first === undefined) return false;
  if (READS.has(first)) return false;
  if (first === "pragma") return sql.includes("=") || WRITING_PRAGMAS.test(sql);
  if (first !== "with") return true;
  for (const word of words) if (MAIN.has(word)) return !READS.has(word);
  return true;
}
