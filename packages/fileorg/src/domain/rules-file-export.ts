import { stringify } from "yaml";
import { compareRules, type ReviewRule, type RuleAction, type RuleCondition } from "./review-rule.js";
import { RULES_FILE_VERSION } from "./rules-file.js";
import { checkRulesFile, type RulesFileIssue } from "./rules-file-check.js";

/**
 * Saved review rules written out as a rules file, so a person can move from rules kept in the database to
 * a versioned file. Every exported rule reads back (through {@link checkRulesFile}) as the same conditions,
 * actions and location; the file's order is the engine's order (priority, then name), rules with a location
 * going into that location's block (blocks in the order of their first rule). A rule the file format cannot
 * say is left out and named. Pure.
 */

/** A saved rule the rules file cannot express, and why. */
export interface RulesFileLeftOut {
  rule: string;
  reason: string;
}

/** The rules file text of saved rules, how many it holds, and the rules left out. */
export interface RulesFileExport {
  text: string;
  exported: number;
  left_out: RulesFileLeftOut[];
}

type FileValue = string | number | boolean | string[] | { [key: string]: unknown };
type Group = Record<string, FileValue>;
type FileRule = Record<string, unknown> & { name: string };
/** A rule of the file and the location block it goes in (none: the global rules). */
type Placed = { rule: FileRule; location: string | undefined };

/** Why the file cannot say a saved rule. */
class Refused {
  constructor(readonly reason: string) {}
}

const listOrOne = (list: readonly string[]): string | string[] =>
  list.length === 1 && list[0] !== undefined ? list[0] : [...list];

/** A range condition's bounds: the condition without its `field`. */
function boundsOf<C extends { field: string }>(c: C): Omit<C, "field"> {
  const { field: _field, ...bounds } = c;
  return bounds;
}

/** The filter key and value of a condition, or why the file cannot say it. */
function filterOf(c: RuleCondition): [string, FileValue] | Refused {
  switch (c.field) {
    case "extension":
    case "mime":
    case "category":
    case "reason":
    case "bucket":
      return [c.field, listOrOne(c.in)];
    case "name_glob":
      return ["name", c.glob];
    case "path_glob":
      return ["path", c.glob];
    case "name_regex":
      return c.flags === undefined || c.flags === ""
        ? ["name_regex", c.regex]
        : new Refused(`name_regex with flags "${c.flags}"`);
    case "size":
    case "confidence":
      return [c.field, boundsOf(c)];
    case "date":
      return ["modified", boundsOf(c)];
    case "content_date":
      return ["date", boundsOf(c)];
    case "unit":
      if (c.in === undefined) return ["unit", c.value];
      return c.value ? ["unit", listOrOne(c.in)] : new Refused("a unit condition with kinds and value false");
    case "has_conflict":
      return ["conflict", c.value];
    case "duplicate":
      return ["duplicate", c.role === "any" ? true : c.role === "none" ? false : c.role];
    case "exif":
    case "taken":
    case "audio":
      return [c.field, boundsOf(c)];
    case "text":
      return [
        "text",
        {
          ...(c.contains === undefined ? {} : { contains: listOrOne(c.contains) }),
          ...(c.regex === undefined ? {} : { regex: c.regex }),
        },
      ];
  }
}

function groupOf(conditions: readonly RuleCondition[] | undefined): Group | Refused | undefined {
  if (conditions === undefined || conditions.length === 0) return undefined;
  const group: Group = {};
  for (const c of conditions) {
    const filter = filterOf(c);
    if (filter instanceof Refused) return filter;
    const [key, value] = filter;
    if (key in group) return new Refused(`two ${key} conditions in one group`);
    group[key] = value;
  }
  return group;
}

function actionsOf(actions: readonly RuleAction[]): Group | Refused {
  const out: Group = {};
  for (const a of actions) {
    const [key, value]: [string, FileValue] =
      a.type === "set_category"
        ? ["category", a.category]
        : a.type === "set_target"
          ? ["target", a.template]
          : [a.type, true];
    if (key in out) return new Refused(`two ${key} actions`);
    out[key] = value;
  }
  return out;
}

/** A saved rule as a rule of the file (its name not yet made unique), or why it cannot be one. */
function fileRuleOf(rule: ReviewRule): FileRule | Refused {
  const groups = {
    filters: groupOf(rule.conditions.all),
    any: groupOf(rule.conditions.any),
    exclude: groupOf(rule.conditions.none),
  };
  const out: FileRule = { name: rule.name };
  if (!rule.enabled) out.enabled = false;
  for (const [key, group] of Object.entries(groups)) {
    if (group === undefined) continue;
    if (group instanceof Refused) return group;
    out[key] = group;
  }
  const actions = actionsOf(rule.actions);
  if (actions instanceof Refused) return actions;
  out.actions = actions;
  // Saved rules go on to lower-priority ones unless they say stop; a file's rule stops unless `continue`.
  if (!rule.stop_further_rules) out.continue = true;
  return out;
}

/** `name`, or `name (2)`, `name (3)`… when an earlier rule of the file has it. */
function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name} (${n})`;
  taken.add(candidate);
  return candidate;
}

/**
 * The file's location blocks (in the order their first rule applies) and global rules, and each placed
 * rule's index in the order {@link checkRulesFile} reads them back (its issues name that place).
 */
function blocksOf(placed: readonly Placed[]) {
  const byLocation = new Map<string, FileRule[]>();
  const global: FileRule[] = [];
  for (const p of placed) {
    if (p.location === undefined) global.push(p.rule);
    else byLocation.set(p.location, [...(byLocation.get(p.location) ?? []), p.rule]);
  }
  const locations = [...byLocation].map(([path, rules]) => ({ path, rules }));
  const readOrder = [...locations.flatMap((l) => l.rules), ...global];
  return { locations, global, readOrder };
}

function render(placed: readonly Placed[], leftOut: readonly RulesFileLeftOut[]): string {
  const { locations, global } = blocksOf(placed);
  const count = placed.length;
  const header = [
    `# Vetted rules file: ${count} saved review rule${count === 1 ? "" : "s"}, in the order they apply.`,
    "# Check it with `vetted rules check <file>`, simulate it with `vetted rules sim <file> --job <id>`.",
    ...(leftOut.length === 0 ? [] : ["# Left out (a rules file cannot say them):"]),
    ...leftOut.map((l) => `#   ${JSON.stringify(l.rule)}: ${l.reason}`),
  ];
  const body = stringify(
    {
      version: RULES_FILE_VERSION,
      ...(locations.length === 0 ? {} : { locations }),
      ...(global.length === 0 && locations.length > 0 ? {} : { rules: global }),
    },
    { lineWidth: 0 },
  );
  return `${header.join("\n")}\n${body}`;
}

/** The index, in the read-back order, of the rule an issue names (`undefined`: not a rule's issue). */
function readIndexOf(issue: RulesFileIssue, placed: readonly Placed[]): number | undefined {
  if (issue.rule_index === undefined) return undefined;
  const { locations } = blocksOf(placed);
  if (issue.location_index === undefined)
    return locations.reduce((n, l) => n + l.rules.length, 0) + issue.rule_index;
  return locations.slice(0, issue.location_index).reduce((n, l) => n + l.rules.length, 0) + issue.rule_index;
}

/**
 * Writes saved review rules (enabled or not) as a rules file, in the order the engine applies them. Rules
 * the file cannot express (regex flags, two conditions on one field in a group) or that would not read back
 * are left out and named in `left_out` and in the file's header comment.
 */
export function exportRulesFile(saved: readonly ReviewRule[]): RulesFileExport {
  const leftOut: RulesFileLeftOut[] = [];
  const taken = new Set<string>();
  let placed: Placed[] = [];
  for (const rule of [...saved].sort(compareRules)) {
    const fileRule = fileRuleOf(rule);
    if (fileRule instanceof Refused) leftOut.push({ rule: rule.name, reason: fileRule.reason });
    else placed.push({ rule: { ...fileRule, name: uniqueName(rule.name, taken) }, location: rule.location });
  }
  // What the file's own check refuses (a reason code it does not know, …) is left out too.
  for (;;) {
    const text = render(placed, leftOut);
    const checked = placed.length === 0 ? undefined : checkRulesFile(text);
    if (checked === undefined || checked.ok) return { text, exported: placed.length, left_out: leftOut };
    const { readOrder } = blocksOf(placed);
    const bad = new Map<FileRule, string>();
    for (const issue of checked.issues) {
      const index = readIndexOf(issue, placed);
      const rule = index === undefined ? undefined : readOrder[index];
      if (rule !== undefined && !bad.has(rule)) bad.set(rule, `${issue.field}: ${issue.message}`);
    }
    if (bad.size === 0) return { text, exported: placed.length, left_out: leftOut };
    for (const [rule, reason] of bad) leftOut.push({ rule: rule.name, reason });
    placed = placed.filter((p) => !bad.has(p.rule));
  }
}
