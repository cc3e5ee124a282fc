import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes `count` small files into `dir`, spread over 100 sub-folders and a handful of types (text, notes,
 * data, images without image bytes — some rows land in review, most are safe), as fast as plain
 * synchronous writes go. Answers the source folder.
 */
export function writeManyFiles(dir: string, count: number): string {
  const source = join(dir, "messy");
  const kinds = [".txt", ".md", ".csv", ".log", ".json", ".zzz"];
  for (let f = 0; f < 100; f++)
    mkdirSync(join(source, `batch-${String(f).padStart(3, "0")}`), { recursive: true });
  for (let i = 0; i < count; i++) {
    const folder = `batch-${String(i % 100).padStart(3, "0")}`;
    const ext = kinds[i % kinds.length] ?? ".txt";
    writeFileSync(join(source, folder, `file-${String(i).padStart(6, "0")}${ext}`), `row ${i}\n`);
  }
  return source;
}

/** Starts an analyze of `source` into `output` over HTTP and waits until it has succeeded. */
export async function analyzeOverHttp(
  baseUrl: string,
  source: string,
  output: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await fetch(`${baseUrl}/api/jobs/analyze`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ source_dir: source, output_dir: output }),
  });
  if (res.status !== 202) throw new Error(`analyze answered ${res.status}: ${await res.text()}`);
  const { job_id } = (await res.json()) as { job_id: string };
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const job = (await (await fetch(`${baseUrl}/api/jobs/${job_id}`, { headers })).json()) as {
      status: string;
      error: unknown;
    };
    if (job.status === "succeeded") return job_id;
    if (job.status === "failed" || job.status === "cancelled") {
      throw new Error(`analyze ${job.status}: ${JSON.stringify(job.error)}`);
    }
  }
}
