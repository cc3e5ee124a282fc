import type { FlowPlan, PlannedStep } from "./plan.js";

/*
 * The same flow for people who prefer other tools: a runnable playwright-core script and a `.http` file
 * (VS Code REST Client syntax). Pure text generation.
 */

const RUNTIME = String.raw`import { createInterface } from "${"node:"}readline/promises";
import { chromium } from "playwright-core";

const env = process.env;
const upper = (key) => key.toUpperCase();
const params = Object.fromEntries(PARAMS.map(([k, d]) => [k, env["PARAM_" + upper(k)] ?? d]));
const secrets = Object.fromEntries(SECRETS.map((k) => [k, env["SECRET_" + upper(k)]]));
const vars = {};
const gate = {};

function lookup(scope, key) {
  const table = { params, secrets, vars, gate }[scope];
  if (table === undefined || table[key] === undefined) throw new Error("no value for $" + "{" + scope + "." + key + "}");
  return table[key];
}
function ref(value) {
  if (typeof value === "string") {
    const one = /^\$\{(\w+)\.(\w+)\}$/.exec(value);
    if (one) return lookup(one[1], one[2]);
    return value.replace(/\$\{(\w+)\.(\w+)\}/g, (_, scope, key) => String(lookup(scope, key)));
  }
  if (Array.isArray(value)) return value.map(ref);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, ref(v)]));
  return value;
}
function jsonPath(root, path) {
  let cur = root;
  for (const m of path.slice(1).matchAll(/\.([\w$-]+)|\[(\d+)\]|\["([^"]*)"\]/g)) {
    const key = m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]);
    if (cur === null || typeof cur !== "object" || !(key in cur)) throw new Error("nothing at " + path);
    cur = cur[key];
  }
  return cur;
}
async function otpGate(prompt) {
  if (env.OTP_CODE) { gate.otp_code = env.OTP_CODE; return; }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  gate.otp_code = (await rl.question(prompt + ": ")).trim();
  rl.close();
}
async function http(context, id, method, url, headers, body, statuses, extract) {
  const res = await context.request["fetch"](ref(url), {
    method, headers: ref(headers ?? {}), maxRedirects: 0,
    ...(body === undefined ? {} : { data: JSON.stringify(ref(body)), headers: { "Content-Type": "application/json", ...ref(headers ?? {}) } }),
  });
  if (statuses && !statuses.includes(res.status())) throw new Error(id + ": expected status " + statuses.join(" or ") + ", got " + res.status());
  if (extract) {
    const json = await res.json();
    for (const [name, path] of Object.entries(extract)) vars[name] = jsonPath(json, path);
  }
  console.log("ok", id, res.status());
}
function candidate(page, s) {
  switch (s.kind) {
    case "role": return page.getByRole(s.value, s.name === undefined ? {} : { name: s.name, exact: true });
    case "label": return page.getByLabel(s.value, { exact: true });
    case "text": return page.getByText(s.value, { exact: true });
    case "testid": return page.getByTestId(s.value);
    case "xpath": return page.locator("xpath=" + s.value);
    default: return page.locator(s.value);
  }
}
async function find(page, id, selectors) {
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    for (const s of selectors) {
      const loc = candidate(page, s);
      if ((await loc.count()) === 1 && (await loc.isVisible())) return loc;
    }
    await page.waitForTimeout(100);
  }
  throw new Error(id + ": no selector found exactly one visible element");
}
`;

function lit(value: unknown): string {
  return JSON.stringify(value);
}

function stepCode(step: PlannedStep): string {
  switch (step.type) {
    case "http":
      return `  await http(context, ${lit(step.id)}, ${lit(step.method ?? "GET")}, ${lit(step.url)}, ${lit(step.headers)}, ${lit(step.body)}, ${lit(step.expect?.status)}, ${lit(step.extract)});`;
    case "otp_gate":
      return `  await otpGate(${lit(step.prompt ?? "Enter the one-time code")});`;
    case "approval_gate":
      return `  console.log(${lit(`approval: ${step.prompt ?? step.id}`)});`;
    case "navigate":
      return `  await page.goto(ref(${lit(step.url)}));`;
    case "click":
      return `  await (await find(page, ${lit(step.id)}, ${lit(step.target.selectors)})).click();`;
    case "type":
      return `  await (await find(page, ${lit(step.id)}, ${lit(step.target.selectors)})).fill(String(ref(${lit(step.value)})));`;
    case "select":
      return `  await (await find(page, ${lit(step.id)}, ${lit(step.target.selectors)})).selectOption(String(ref(${lit(step.option)})));`;
    default:
      return `  // ${step.id}: ${step.type} is not generated`;
  }
}

/**
 * A playwright-core script of the flow (an ES module; `node flow.mjs`). Chromium from `CHROMIUM_PATH`
 * (default `/usr/bin/chromium`); params from `PARAM_<NAME>`, secrets from `SECRET_<NAME>`, the one-time
 * code from `OTP_CODE` or asked on the terminal. Exits non-zero when a step fails.
 */
export function toPlaywrightSpec(plan: FlowPlan): string {
  const params = plan.params.map((p) => [p.key, p.default ?? null]);
  const header = `// ${plan.name}: generated by Vetted reconstruction.\n// Run: CHROMIUM_PATH=/usr/bin/chromium ${plan.secrets.map((s) => `SECRET_${s.toUpperCase()}=…`).join(" ")} node flow.mjs\n`;
  const consts = `const PARAMS = ${lit(params)};\nconst SECRETS = ${lit(plan.secrets)};\n`;
  const body = plan.steps.map(stepCode).join("\n");
  return `${header}${RUNTIME.replace("const env = process.env;", `${consts}const env = process.env;`)}
const browser = await chromium.launch({ executablePath: env.CHROMIUM_PATH ?? "/usr/bin/chromium", headless: true });
const context = await browser.newContext();
const page = await context.newPage();
try {
${body}
  console.log("flow passed: ${plan.steps.length} steps");
} catch (err) {
  console.error("flow failed:", err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await browser.close();
}
`;
}

function restRef(text: string, vars: Map<string, string>): string {
  return text.replace(/\$\{(\w+)\.(\w+)\}/g, (whole, scope: string, key: string) => {
    if (scope === "vars") return vars.get(key) ?? whole;
    if (scope === "gate") return `{{${key}}}`;
    return `{{${key}}}`;
  });
}

/** The flow as a `.http` file (VS Code REST Client): named requests, response values as request variables. */
export function toHttpSpec(plan: FlowPlan): string {
  const vars = new Map<string, string>();
  const lines = [`# ${plan.name}: generated by Vetted reconstruction.`];
  const inputs = [...plan.params.map((p) => p.key), ...plan.secrets];
  if (inputs.length > 0) lines.push(`# Define in your environment: ${[...inputs, "otp_code"].join(", ")}`);
  for (const p of plan.params) if (p.default !== undefined) lines.push(`@${p.key} = ${p.default}`);
  for (const step of plan.steps) {
    lines.push("", `### ${step.id}`);
    if (step.type === "http") {
      lines.push(`# @name ${step.id}`, `${step.method ?? "GET"} ${restRef(step.url, vars)}`);
      for (const [k, v] of Object.entries(step.headers ?? {})) lines.push(`${k}: ${restRef(v, vars)}`);
      if (step.body !== undefined) {
        lines.push("Content-Type: application/json", "", restRef(JSON.stringify(step.body, null, 2), vars));
      }
      for (const [name, path] of Object.entries(step.extract ?? {})) {
        vars.set(name, `{{${step.id}.response.body.${path}}}`);
      }
    } else if (step.type === "otp_gate") {
      lines.push("# Wait for the one-time code and set {{otp_code}}.");
    } else if (step.type === "navigate") {
      lines.push(`GET ${restRef(step.url, vars)}`);
    } else {
      lines.push(
        `# browser step: ${step.type} ${JSON.stringify("target" in step ? step.target?.selectors[0] : {})}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
