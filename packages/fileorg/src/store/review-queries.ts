import { and, eq, gte, inArray, lt, lte, or, type SQL, sql } from "drizzle-orm";
import { dateBoundMs, type RuleCondition, type RuleConditions } from "../domain/review-rule.js";
import { rows, rowTexts } from "./schema.js";

const GLOB_SPECIAL = /[*?[\]{}()!+@\\]/;

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function like(column: SQL | typeof rows.sourcePath, pattern: string): SQL {
  return sql`${column} LIKE ${pattern} ESCAPE '\\'`;
}

/** The longest literal run of a glob (what every match must contain), when it is plain ASCII. */
function globLiteral(glob: string): string | undefined {
  const runs = glob.split(GLOB_SPECIAL).filter((r) => r !== "" && !r.includes("/"));
  const longest = runs.sort((a, b) => b.length - a.length)[0];
  return longest !== undefined && /^[\x20-\x7e]+$/.test(longest) ? longest : undefined;
}

/**
 * A SQL predicate every row matching the condition satisfies (a superset: rows are then checked exactly
 * in JS), or undefined when the condition cannot be narrowed in SQL (regular expressions).
 */
function conditionSql(c: RuleCondition): SQL | undefined {
  switch (c.field) {
    case "extension":
      return or(
        ...c.in.map((e) => {
          const ext = e.trim().startsWith(".") ? e.trim() : `.${e.trim()}`;
          return like(rows.sourcePath, `%${likeEscape(ext)}`);
        }),
      );
    case "name_glob": {
      const literal = globLiteral(c.glob);
      return literal === undefined ? undefined : like(rows.sourcePath, `%${likeEscape(literal)}%`);
    }
    case "name_regex":
      return undefined;
    case "path_glob": {
      const cut = c.glob.search(GLOB_SPECIAL);
      const prefix = cut === -1 ? c.glob : c.glob.slice(0, cut);
      return prefix === "" || !/^[\x20-\x7e]+$/.test(prefix)
        ? undefined
        : like(rows.sourcePath, `${likeEscape(prefix)}%`);
    }
    case "mime":
      return or(
        ...c.in.map((m) => {
          const lower = m.toLowerCase();
          return lower.endsWith("/*")
            ? like(sql`lower(${rows.mime})`, `${likeEscape(lower.slice(0, -1))}%`)
            : sql`lower(${rows.mime}) = ${lower}`;
        }),
      );
    case "category":
      return sql`lower(${rows.category}) IN (${sql.join(
        c.in.map((v) => sql`${v.toLowerCase()}`),
        sql`, `,
      )})`;
    case "size":
      return and(
        c.min === undefined ? undefined : gte(rows.size, c.min),
        c.max === undefined ? undefined : lte(rows.size, c.max),
      );
    case "date":
      return and(
        c.from === undefined ? undefined : gte(rows.mtime, dateBoundMs(c.from, false)),
        c.to === undefined ? undefined : lt(rows.mtime, dateBoundMs(c.to, true)),
      );
    case "content_date": {
      // Rows analyzed before dates were kept answer their mtime.
      const date = sql`coalesce(${rows.date}, ${rows.mtime})`;
      return and(
        c.from === undefined ? undefined : gte(date, dateBoundMs(c.from, false)),
        c.to === undefined ? undefined : lt(date, dateBoundMs(c.to, true)),
      );
    }
    case "reason":
    case "unit":
    case "duplicate":
      return undefined;
    case "confidence":
      return and(
        c.min === undefined ? undefined : gte(rows.confidence, c.min),
        c.max === undefined ? undefined : lte(rows.confidence, c.max),
      );
    case "bucket":
      return inArray(rows.reviewBucket, c.in);
    case "has_conflict":
      return c.value
        ? sql`json_array_length(${rows.conflictIds}) > 0`
        : sql`json_array_length(${rows.conflictIds}) = 0`;
    case "exif":
    case "taken":
    case "audio":
      // Only a row whose content said something can match.
      return sql`${rows.meta} IS NOT NULL`;
    case "text":
      return sql`EXISTS (SELECT 1 FROM ${rowTexts} WHERE ${rowTexts.rowId} = ${rows.id})`;
  }
}

/**
 * Narrows the rows of a job a rule can match, in SQL: every `all` condition that SQL can express, the `any`
 * group when each of its conditions can be, and only rows a rule may change (pending or failed). The exact
 * rule is then evaluated in JS over what this returns.
 */
export function rulePrefilter(jobId: string, conditions: RuleConditions): SQL | undefined {
  const parts: Array<SQL | undefined> = [eq(rows.jobId, jobId), inArray(rows.status, ["pending", "failed"])];
  for (const c of conditions.all ?? []) parts.push(conditionSql(c));
  const any = (conditions.any ?? []).map(conditionSql);
  if (any.length > 0 && any.every((p) => p !== undefined)) parts.push(or(...any));
  return and(...parts);
}
