import { readFileSync, statSync } from "node:fs";
import { exceedsJsonTextDepth, MAX_JSON_DEPTH } from "@vetted/store";
import { eq } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { ReconstructionArtifacts } from "../../domain/reconstruction/api.js";
import { Har, harExchanges } from "../../domain/reconstruction/har.js";
import type { ReconstructionInputs } from "../../domain/reconstruction/inputs.js";
import { SessionNotFoundError } from "../../kernel/errors.js";
import { SessionNotActiveError } from "../../kernel/lane-errors.js";
import { sessions } from "../../store/lanes-schema.js";
import { underDataDir } from "../sessions/artifacts.js";
import { confineArtifactPath } from "./confine.js";
import { ArtifactNotFoundError, ArtifactTooLargeError, HarInvalidError } from "./reconstruction-errors.js";

/** A session's own HAR may be larger than a request body: it is read up to this size. */
export const MAX_SESSION_HAR_BYTES = 64 * 1024 * 1024;

/** What loading artifacts needs. */
export interface ArtifactSources {
  db: LibSQLDatabase;
  dataDir: string;
  /** Roots `har_path` / `html_path` may lie in (the data directory is always allowed). */
  allowedRoots: readonly string[];
  maxArtifactBytes: number;
}

/** Parses HAR text or a HAR object. @throws HAR_INVALID */
export function parseHar(content: string | Record<string, unknown>): Har {
  let raw: unknown = content;
  if (typeof content === "string") {
    if (exceedsJsonTextDepth(content, MAX_JSON_DEPTH)) {
      throw new HarInvalidError(`The HAR nests deeper than ${MAX_JSON_DEPTH} levels.`);
    }
    try {
      raw = JSON.parse(content);
    } catch {
      throw new HarInvalidError("The HAR is not JSON.");
    }
  }
  const parsed = Har.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 10)
      .map((i) => ({ path: i.path.join("."), message: i.message }));
    const first = issues[0];
    throw new HarInvalidError(
      `The HAR is not HAR 1.2${first === undefined ? "" : `: ${first.path || "log"}: ${first.message}`}.`,
      issues,
    );
  }
  return parsed.data;
}

async function fromSession(s: ArtifactSources, id: string, inputs: ReconstructionInputs): Promise<void> {
  const [row] = await s.db.select().from(sessions).where(eq(sessions.id, id)).limit(1);
  if (row === undefined) throw new SessionNotFoundError(id);
  if (row.status !== "finished") {
    throw new SessionNotActiveError(
      id,
      row.status,
      "finish it first: reconstruction reads a finished session's artifacts.",
    );
  }
  inputs.sessionId = id;
  inputs.startUrl = row.startUrl;
  inputs.events = row.events;
  const har = row.artifacts.find((a) => a.kind === "har");
  if (har === undefined) return;
  const path = underDataDir(s.dataDir, har.path);
  const bytes = statSync(path).size;
  if (bytes > MAX_SESSION_HAR_BYTES)
    throw new ArtifactTooLargeError(`Session ${id}'s HAR`, bytes, MAX_SESSION_HAR_BYTES);
  inputs.har = harExchanges(parseHar(readFileSync(path, "utf8")));
}

function readConfined(s: ArtifactSources, path: string): string {
  const real = confineArtifactPath(path, [...s.allowedRoots, s.dataDir], s.maxArtifactBytes);
  try {
    return readFileSync(real, "utf8");
  } catch {
    throw new ArtifactNotFoundError(`${path} could not be read.`);
  }
}

/**
 * Loads the artifacts of a request into planner inputs: a finished session's HAR, events and start URL;
 * a HAR and an HTML page given as paths (confined) or content.
 * @throws SESSION_NOT_FOUND, SESSION_NOT_ACTIVE, PATH_OUTSIDE_ROOT, ARTIFACT_NOT_FOUND, ARTIFACT_TOO_LARGE, HAR_INVALID
 */
export async function loadInputs(
  s: ArtifactSources,
  a: ReconstructionArtifacts,
): Promise<ReconstructionInputs> {
  const inputs: ReconstructionInputs = {};
  if (a.session_id !== undefined) await fromSession(s, a.session_id, inputs);
  const harText = a.har_path === undefined ? a.har_content : readConfined(s, a.har_path);
  if (harText !== undefined) {
    const bytes = typeof harText === "string" ? Buffer.byteLength(harText) : 0;
    if (bytes > s.maxArtifactBytes) throw new ArtifactTooLargeError("The HAR", bytes, s.maxArtifactBytes);
    inputs.har = harExchanges(parseHar(harText));
  }
  const html = a.html_path === undefined ? a.html_content : readConfined(s, a.html_path);
  if (html !== undefined) {
    // parse5 is loaded with the first page read, not with the package.
    const { summarizeHtml } = await import("../../domain/reconstruction/html-parse.js");
    inputs.html = summarizeHtml(html);
  }
  if (a.start_url !== undefined) inputs.startUrl = a.start_url;
  return inputs;
}
