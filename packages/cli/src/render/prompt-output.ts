import { Writable } from "node:stream";
import type { CliIo } from "../io.js";
import { colorsEnabled } from "../io.js";

/** SGR sequences (colours, bold, dim…); cursor movement is left alone. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const SGR = /\x1b\[[0-9;]*m/g;

/**
 * The stream prompts draw on: stdout itself when colours are allowed; else a pass-through that drops the
 * colour sequences (prompt libraries colour regardless of `NO_COLOR`) but keeps the cursor movements.
 */
export function promptOutput(io: CliIo): Writable {
  if (colorsEnabled(io)) return io.stdout;
  const out = io.stdout as NodeJS.WriteStream;
  const plain = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      out.write(String(chunk).replace(SGR, ""), callback);
    },
  });
  return Object.assign(plain, {
    isTTY: out.isTTY,
    get columns() {
      return out.columns;
    },
    get rows() {
      return out.rows;
    },
  });
}
