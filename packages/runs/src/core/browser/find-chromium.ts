import { accessSync, constants, statSync } from "node:fs";

/** Where a system Chromium is looked for when `VETTED_CHROMIUM_PATH` is unset, in order. */
export const CHROMIUM_CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/lib/chromium/chromium",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
] as const;

/** The command that installs the browser on Debian and Ubuntu (quoted in `BROWSER_UNAVAILABLE`). */
export const CHROMIUM_INSTALL_COMMAND = "apt-get install -y chromium";

function isExecutableFile(path: string): boolean {
  try {
    const stat = statSync(path);
    // Some execute bit, checked on the mode too: access(X_OK) answers yes to root for any file.
    if (!stat.isFile() || (stat.mode & 0o111) === 0) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The system Chromium to drive: `VETTED_CHROMIUM_PATH` when set (then the only candidate: a missing or
 * non-executable file means no browser), else the first executable of {@link CHROMIUM_CANDIDATES}.
 * Nothing is ever downloaded.
 */
export function findChromium(env: Record<string, string | undefined>): string | undefined {
  const configured = env.VETTED_CHROMIUM_PATH?.trim();
  if (configured !== undefined && configured !== "") {
    return isExecutableFile(configured) ? configured : undefined;
  }
  return CHROMIUM_CANDIDATES.find(isExecutableFile);
}
