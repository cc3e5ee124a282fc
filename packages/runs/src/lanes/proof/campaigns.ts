import { decodeCursor, encodeCursor, type KeysetPage, runTransaction, toKeysetPage } from "@vetted/store";
import { and, desc, eq, lt, or } from "drizzle-orm";
import { type ListQuery, pageLimit } from "../../core/lists.js";
import { parseInput } from "../../core/persist.js";
import { buildReport, diffReports } from "../../domain/proof/report.js";
import {
  type Campaign,
  type CampaignDiff,
  CampaignDiffInput,
  CampaignInput,
  type CampaignWithReport,
} from "../../domain/proof/schemas.js";
import { CampaignNotFoundError, InvalidInputError } from "../../kernel/errors.js";
import { proofCampaigns } from "../../store/schema.js";
import type { ProofResources } from "./resources.js";
import { loadRunFacts, missingRuns } from "./run-facts.js";

type CampaignRow = typeof proofCampaigns.$inferSelect;
const LIST = "proof_campaigns";

function toCampaign(row: CampaignRow): Campaign {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    policy: row.policy,
    run_ids: row.runIds,
    status: row.status,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

/**
 * Creates a campaign over existing runs and stores it with its report, computed now (a snapshot: later
 * changes of the runs do not change it).
 * @throws REQUEST_INVALID (the body, repeated or unknown run ids)
 */
export async function createCampaign(p: ProofResources, input: unknown): Promise<CampaignWithReport> {
  const body = parseInput(CampaignInput, input, "REQUEST_INVALID", "The campaign");
  const repeated = body.run_ids.filter((id, i) => body.run_ids.indexOf(id) !== i);
  if (repeated.length > 0) {
    throw new InvalidInputError("REQUEST_INVALID", `run_ids names ${repeated[0]} more than once.`, {
      repeated_run_ids: [...new Set(repeated)],
    });
  }
  const missing = await missingRuns(p.db, body.run_ids);
  if (missing.length > 0) {
    throw new InvalidInputError("REQUEST_INVALID", `No run ${missing.join(", ")}.`, {
      unknown_run_ids: missing,
    });
  }
  const facts = await loadRunFacts(p.db, body.run_ids);
  const report = buildReport(facts, body.policy);
  const row: CampaignRow = {
    id: p.newId("camp"),
    name: body.name,
    description: body.description ?? null,
    policy: body.policy,
    runIds: body.run_ids,
    status: report.status,
    report,
    createdAt: p.now(),
  };
  await runTransaction(p.db, (tx) => tx.insert(proofCampaigns).values(row));
  return { campaign: toCampaign(row), report };
}

async function loadCampaign(p: ProofResources, campaignId: string): Promise<CampaignRow> {
  const [row] = await p.db.select().from(proofCampaigns).where(eq(proofCampaigns.id, campaignId)).limit(1);
  if (row === undefined) throw new CampaignNotFoundError(campaignId);
  return row;
}

/** A campaign and its stored report. @throws CAMPAIGN_NOT_FOUND */
export async function getCampaign(p: ProofResources, campaignId: string): Promise<CampaignWithReport> {
  const row = await loadCampaign(p, campaignId);
  return { campaign: toCampaign(row), report: row.report };
}

/** Campaigns, newest first. @throws CURSOR_INVALID */
export async function listCampaigns(p: ProofResources, query: ListQuery = {}): Promise<KeysetPage<Campaign>> {
  const limit = pageLimit(query.limit);
  let after: ReturnType<typeof or>;
  if (query.cursor !== undefined) {
    const [createdAt, id] = decodeCursor(query.cursor, LIST, ["integer", "string"]);
    after = or(
      lt(proofCampaigns.createdAt, Number(createdAt)),
      and(eq(proofCampaigns.createdAt, Number(createdAt)), lt(proofCampaigns.id, String(id))),
    );
  }
  const rows = await p.db
    .select()
    .from(proofCampaigns)
    .where(after)
    .orderBy(desc(proofCampaigns.createdAt), desc(proofCampaigns.id))
    .limit(limit + 1);
  return toKeysetPage(rows, limit, toCampaign, (last) => encodeCursor(LIST, [last.createdAt, last.id]));
}

/** This campaign's report against another's. @throws CAMPAIGN_NOT_FOUND, REQUEST_INVALID */
export async function diffCampaigns(
  p: ProofResources,
  campaignId: string,
  input: unknown,
): Promise<CampaignDiff> {
  const { other_campaign_id } = parseInput(CampaignDiffInput, input, "REQUEST_INVALID", "The diff request");
  const mine = await loadCampaign(p, campaignId);
  const other = await loadCampaign(p, other_campaign_id);
  return diffReports({ campaign: mine.id, other: other.id }, mine.report, other.report);
}
