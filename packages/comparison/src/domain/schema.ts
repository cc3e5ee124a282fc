import { z } from "zod";
import { FIRST_SUCCESS_MODES, HOST_FAMILIES, ROW_STATUSES, STARTER_KINDS } from "./vocabulary.js";

const text = () => z.string().min(1);
const texts = () => z.array(z.string().min(1));

/** One starter pack compared in the document. */
export const ComparisonRow = z
  .strictObject({
    id: text().describe("Stable id of the row, referenced by filter values and compareAgainst"),
    label: text().describe("Human name of the starter"),
    status: z.enum(ROW_STATUSES),
    starterKind: z.enum(STARTER_KINDS),
    recommendedPack: text(),
    hostFamily: z.enum(HOST_FAMILIES),
    firstSuccessMode: z.enum(FIRST_SUCCESS_MODES),
    readOnly: z.boolean(),
    needsRuntimeInvoke: z.boolean(),
    needsMcpTransport: z.boolean(),
    bestEntry: text(),
    smokeCommand: text(),
    copyReadyPackPath: text().describe("Path of the copy-ready pack, relative to the document"),
    compareAgainst: texts().describe("Ids of rows this one is compared against"),
    recommendedDocs: texts().describe("Documents to read, paths relative to the document or URLs"),
    bestWhen: texts(),
    avoidWhen: texts(),
    safeClaims: texts(),
    notYetSupported: texts(),
  })
  .meta({ id: "ComparisonRow" });
/** One starter pack compared in the document. */
export type ComparisonRow = z.infer<typeof ComparisonRow>;

/** One value of a filter group: the rows it selects. */
export const FilterValue = z
  .strictObject({
    id: text(),
    label: text(),
    comparisonIds: texts().describe("Ids of the rows this value selects"),
  })
  .meta({ id: "FilterValue" });
/** One value of a filter group: the rows it selects. */
export type FilterValue = z.infer<typeof FilterValue>;

/** A filter group: a row field and the values a reader can pick. */
export const FilterGroup = z
  .strictObject({
    id: text(),
    label: text(),
    field: text().describe("The row field this group filters on"),
    values: z.array(FilterValue),
  })
  .meta({ id: "FilterGroup" });
/** A filter group: a row field and the values a reader can pick. */
export type FilterGroup = z.infer<typeof FilterGroup>;

/** The starter-pack comparison document. */
export const ComparisonDocument = z
  .strictObject({
    $schema: z.string(),
    comparisonVersion: z.int().min(1),
    filters: z.array(FilterGroup),
    comparisons: z.array(ComparisonRow),
  })
  .meta({ title: "Starter-pack comparison" });
/** The starter-pack comparison document. */
export type ComparisonDocument = z.infer<typeof ComparisonDocument>;
