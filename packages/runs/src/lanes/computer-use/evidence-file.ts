import { readFileSync } from "node:fs";
import { and, eq } from "drizzle-orm";
import { ComputerUseNotFoundError } from "../../kernel/lane-errors.js";
import { cuEvidence } from "../../store/lanes-schema.js";
import { underDataDir } from "../sessions/artifacts.js";
import type { ComputerUseResources } from "./resources.js";

/** The bytes and type of one evidence file of a session. @throws ACTION_NOT_FOUND (no such evidence) */
export async function evidenceFile(
  r: ComputerUseResources,
  cusId: string,
  evidenceId: string,
): Promise<{ data: Buffer; contentType: string }> {
  const [row] = await r.db
    .select()
    .from(cuEvidence)
    .where(and(eq(cuEvidence.id, evidenceId), eq(cuEvidence.cuSessionId, cusId)))
    .limit(1);
  if (row === undefined) throw new ComputerUseNotFoundError("ACTION_NOT_FOUND", evidenceId, cusId);
  return { data: readFileSync(underDataDir(r.dataDir, row.path)), contentType: row.contentType };
}
