/**
 * The build step of `pnpm start`: builds what the given turbo filters select (with their dependencies)
 * and says what it is doing, a line as each package starts and one as it ends, with its time. A first
 * start builds for minutes; a silent `turbo run build --output-logs=errors-only` looked hung.
 *
 * One turbo run does the work (its cache keeps a second start fast, its hashes are those of `pnpm build`).
 * With `--log-order=grouped` turbo prints a task's logs in one piece when the task ends, which marks the
 * end; the start is when the last of its dependencies ended (turbo's concurrency exceeds our few builds),
 * taken from the plan turbo answers to `--dry-run=json`. The logs are shown only for a failed build.
 *
 * Usage: tsx tools/build-progress.ts --filter=@vetted/server... --filter=@vetted/web
 */
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..");
const turbo = join(root, "node_modules", ".bin", "turbo");

interface PlannedBuild {
  readonly name: string;
  readonly dependencies: readonly string[];
  readonly cached: boolean;
}

interface DryRunTask {
  taskId: string;
  package: string;
  dependencies: string[];
  cache: { status: string };
}

/** The builds turbo would run for `filters`, each with the builds it waits for. */
function plan(filters: readonly string[]): PlannedBuild[] {
  const json = execFileSync(turbo, ["run", "build", ...filters, "--dry-run=json"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const tasks = (JSON.parse(json) as { tasks: DryRunTask[] }).tasks;
  const packageOf = new Map(tasks.map((task) => [task.taskId, task.package]));
  return tasks.map((task) => ({
    name: task.package,
    dependencies: task.dependencies.flatMap((id) => packageOf.get(id) ?? []),
    cached: task.cache.status === "HIT",
  }));
}

const seconds = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;

/** A build whose logs turbo has just printed: it ended, but whether it failed shows a moment later. */
interface Ended {
  readonly name: string;
  readonly cached: boolean;
  readonly at: number;
}

/** Prints progress lines as turbo's grouped output shows builds ending; keeps their logs for a failure. */
class Progress {
  private readonly begun = performance.now();
  private readonly startedAt = new Map<string, number>();
  private readonly finished = new Set<string>();
  private readonly width: number;
  private ended: Ended | undefined;
  readonly logs = new Map<string, string[]>();

  /** `failed(name)`: whether turbo reported that build failed (on its error output, after the logs). */
  constructor(
    private readonly builds: readonly PlannedBuild[],
    private readonly failed: (name: string) => boolean,
  ) {
    this.width = Math.max(...builds.map((build) => build.name.length));
    this.startReady(this.begun);
  }

  /** One line of turbo's output: `<package>:build: <text>`, or turbo's own header and summary. */
  line(text: string): void {
    const match = /^(\S+):build: (.*)$/.exec(text);
    if (match === null) return;
    const [, name = "", rest = ""] = match;
    const logs = this.logs.get(name) ?? [];
    logs.push(rest);
    this.logs.set(name, logs);
    if (logs.length > 1) return;
    this.settle();
    this.ended = { name, cached: rest.startsWith("cache hit"), at: performance.now() };
    // turbo names a failed build on its error output right after the logs: wait a moment for it.
    setTimeout(() => this.settle(), 300);
  }

  /** Reports the build that ended last, as built or failed; then announces what turbo starts next. */
  settle(): void {
    const ended = this.ended;
    if (ended === undefined) return;
    this.ended = undefined;
    const label = ended.name.padEnd(this.width);
    const took = seconds(this.startedAt.get(ended.name) ?? this.begun, ended.at);
    if (this.failed(ended.name)) {
      console.log(`  ${label}  FAILED after ${took}`);
      return;
    }
    this.finished.add(ended.name);
    const how = ended.cached ? `restored from the turbo cache in ${took}` : `built in ${took}`;
    console.log(`  ${label}  ${how}  [${this.finished.size}/${this.builds.length}]`);
    this.startReady(ended.at);
  }

  /** Announces the builds whose dependencies have all ended: turbo starts them now. */
  private startReady(now: number): void {
    for (const build of this.builds) {
      if (this.startedAt.has(build.name) || !build.dependencies.every((name) => this.finished.has(name)))
        continue;
      this.startedAt.set(build.name, now);
      if (!build.cached) console.log(`  ${build.name.padEnd(this.width)}  building …`);
    }
  }

  elapsed(): string {
    return seconds(this.begun, performance.now());
  }
}

/** Runs the one turbo build, reporting progress; answers turbo's exit code. */
function build(filters: readonly string[], builds: readonly PlannedBuild[]): Promise<number> {
  let errors = "";
  const progress = new Progress(builds, (name) => errors.includes(`${name}#build`));
  const args = ["run", "build", ...filters, "--output-logs=full", "--log-order=grouped"];
  const child = spawn(turbo, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  createInterface({ input: child.stdout }).on("line", (text) => progress.line(text));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    errors += chunk;
  });
  return new Promise((resolve) => {
    child.on("error", (error) => {
      errors += `${error.message}\n`;
    });
    child.on("close", (code) => {
      progress.settle();
      if (code !== 0) {
        // The logs of the builds turbo names as failed (all of them when it names none), then its errors.
        const failed = [...progress.logs.keys()].filter((name) => errors.includes(`${name}#build`));
        for (const name of failed.length > 0 ? failed : [...progress.logs.keys()]) {
          for (const text of progress.logs.get(name) ?? []) process.stderr.write(`${name}: ${text}\n`);
        }
        process.stderr.write(errors);
      }
      console.log(`${code === 0 ? "Ready" : "The build failed"} after ${progress.elapsed()}.`);
      resolve(code ?? 1);
    });
  });
}

async function main(filters: readonly string[]): Promise<number> {
  const builds = plan(filters);
  const cached = builds.filter((planned) => planned.cached).length;
  console.log(
    cached === builds.length
      ? `All ${builds.length} packages are up to date (turbo cache); restoring their outputs.`
      : `Building ${builds.length - cached} of ${builds.length} packages (${cached} cached); a first start takes a few minutes.`,
  );
  return build(filters, builds);
}

process.exitCode = await main(process.argv.slice(2));
