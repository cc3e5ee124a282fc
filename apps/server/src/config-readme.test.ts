import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { envSchema } from "./config-env.js";

/** Variables of the table that the server does not read (the `vetted` CLI's). */
const NOT_THE_SERVERS = new Set(["VETTED_SERVER"]);

/** The rows of the root README's configuration table: variable → default cell. */
function readmeTable(): Map<string, string> {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("Configuration\n")) ?? "";
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([A-Z_]+)` +\| (.*?) +\|/gm)) rows.set(m[1] ?? "", m[2] ?? "");
  return rows;
}

describe("the README's configuration table", () => {
  const table = readmeTable();
  const variables = Object.keys(envSchema.shape);

  it("lists every variable the server reads, and only those", () => {
    expect(variables.length).toBeGreaterThan(40);
    expect(variables.filter((v) => !table.has(v))).toEqual([]);
    expect([...table.keys()].filter((v) => !variables.includes(v) && !NOT_THE_SERVERS.has(v))).toEqual([]);
  });

  it("gives the schema's default of every variable that has a plain one", () => {
    const defaults: Record<string, unknown> = envSchema.parse({});
    let checked = 0;
    for (const variable of variables) {
      const value = defaults[variable];
      if (typeof value !== "string" && typeof value !== "number") continue;
      expect(table.get(variable), variable).toBe(`\`${value}\``);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });
});
