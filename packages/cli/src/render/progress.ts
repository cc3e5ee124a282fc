import cliProgress from "cli-progress";
import { type CliIo, isInteractive } from "../io.js";
import type { JobProgress } from "../job-wait.js";
import { formatBytes } from "./style.js";

/** Shows a job's progress: a bar with files/s, bytes and ETA on a terminal, plain lines otherwise. */
export interface ProgressView {
  update(progress: JobProgress): void;
  stop(): void;
}

/** A progress view for `label` (e.g. "Analyzing"), writing to stderr so stdout stays the plan. */
export function createProgressView(io: CliIo, label: string, quiet: boolean): ProgressView {
  if (quiet) return { update: () => {}, stop: () => {} };
  const started = Date.now();
  // The bar is drawn on stderr: it needs stderr itself to be a terminal.
  if (!isInteractive(io) || io.stderr.isTTY !== true) {
    let lastLine = 0;
    let lastPhase = "";
    return {
      update(p) {
        const now = Date.now();
        if (p.phase === lastPhase && now - lastLine < 1000 && p.progress < 1) return;
        lastLine = now;
        lastPhase = p.phase;
        const files = p.files === undefined ? "" : ` ${p.files} files`;
        const bytes = p.bytes === undefined ? "" : `, ${formatBytes(p.bytes)}`;
        io.stderr.write(`${label}: ${p.phase} ${Math.round(p.progress * 100)}%${files}${bytes}\n`);
      },
      stop() {
        io.stderr.write(`${label}: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      },
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr,
      format: `${label} [{bar}] {percentage}% | {files} files | {rate} files/s | {size} | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 20,
      noTTYOutput: false,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(1000, 0, { files: 0, rate: "0", size: "0 B" });
  return {
    update(p) {
      const seconds = Math.max((Date.now() - started) / 1000, 0.001);
      const files = p.files ?? 0;
      bar.update(Math.round(p.progress * 1000), {
        files,
        rate: (files / seconds).toFixed(0),
        size: formatBytes(p.bytes ?? 0),
      });
    },
    stop() {
      bar.update(1000);
      bar.stop();
    },
  };
}
