import picocolors from "picocolors";
import type { Colors } from "picocolors/types";
import { type CliIo, colorsEnabled } from "../io.js";

/** The colours of one run: real on a terminal, plain text otherwise and whenever `NO_COLOR` is set. */
export function stylesFor(io: CliIo): Colors {
  return picocolors.createColors(colorsEnabled(io));
}

/** A byte count for people: `512 B`, `3.4 KB`, `1.2 GB`. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** `1 file`, `2 files`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
