/** Severity levels, lowest first. */
const LEVELS = ["debug", "info", "warn", "error"] as const;
type Level = (typeof LEVELS)[number];

/** A structured logger writing one JSON line per entry to stderr. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

function serialize(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** Creates a logger that drops entries below `minLevel` (`silent` drops all). */
export function createLogger(
  minLevel: Level | "silent",
  write: (line: string) => void = writeStderr,
): Logger {
  const min = minLevel === "silent" ? LEVELS.length : LEVELS.indexOf(minLevel);
  const emit = (level: Level) => (msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS.indexOf(level) < min) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, msg };
    for (const [key, value] of Object.entries(fields ?? {})) entry[key] = serialize(value);
    write(JSON.stringify(entry));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

function writeStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}
