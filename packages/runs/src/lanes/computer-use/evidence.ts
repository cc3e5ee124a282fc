import { join } from "node:path";
import { runTransaction } from "@vetted/store";
import { asc, eq } from "drizzle-orm";
import type { CuEvidence } from "../../domain/computer-use.js";
import { cuEvidence } from "../../store/lanes-schema.js";
import { writeFileWithDigest } from "../sessions/artifacts.js";
import type { ComputerUseResources } from "./resources.js";

/** A stored evidence row. */
export type EvidenceRow = typeof cuEvidence.$inferSelect;

/** An evidence row as the API shows it (no file path). */
export function toEvidence(row: EvidenceRow): CuEvidence {
  return {
    id: row.id,
    action_id: row.actionId,
    kind: row.kind,
    content_type: row.contentType,
    bytes: row.bytes,
    sha256: row.sha256,
    url: row.url,
    summary: row.summary,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
};

/** Writes a screenshot under `<dataDir>/computer-use/<id>/` and indexes it. */
export async function saveScreenshot(
  r: ComputerUseResources,
  cusId: string,
  actionId: string | null,
  kind: EvidenceRow["kind"],
  image: { data: Buffer; mimeType: string },
  page: { url: string | null; summary: string | null },
): Promise<EvidenceRow> {
  const id = r.newId("cue");
  const rel = join("computer-use", cusId, `${id}.${EXTENSIONS[image.mimeType] ?? "img"}`);
  const { bytes, sha256 } = writeFileWithDigest(join(r.dataDir, rel), image.data);
  const row: EvidenceRow = {
    id,
    cuSessionId: cusId,
    actionId,
    kind,
    path: rel,
    contentType: image.mimeType,
    bytes,
    sha256,
    url: page.url,
    summary: page.summary,
    createdAt: r.now(),
  };
  await runTransaction(r.db, (tx) => tx.insert(cuEvidence).values(row));
  return row;
}

/** A session's evidence, oldest first. */
export async function evidenceRows(r: ComputerUseResources, cusId: string): Promise<EvidenceRow[]> {
  return r.db
    .select()
    .from(cuEvidence)
    .where(eq(cuEvidence.cuSessionId, cusId))
    .orderBy(asc(cuEvidence.createdAt), asc(cuEvidence.id));
}
