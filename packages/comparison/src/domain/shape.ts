import { FIRST_SUCCESS_MODES, HOST_FAMILIES, ROW_STATUSES, STARTER_KINDS } from "./vocabulary.js";

/**
 * What one field of the document accepts. This table drives the issue-collecting validator without
 * pulling zod into the browser entry; a test proves it describes exactly the generated JSON Schema.
 */
export type FieldSpec =
  | { readonly type: "string"; readonly minLength: 0 | 1 }
  | { readonly type: "enum"; readonly values: readonly string[] }
  | { readonly type: "boolean" }
  | { readonly type: "integer"; readonly minimum: number; readonly maximum: number }
  | { readonly type: "strings" }
  | { readonly type: "objects"; readonly of: ObjectSpec };

/** An object of the document: every field is required and no other key is allowed. */
export interface ObjectSpec {
  /** How messages name this kind of object ("row", "filter group"...). */
  readonly noun: string;
  readonly fields: Readonly<Record<string, FieldSpec>>;
}

const text = { type: "string", minLength: 1 } as const;
const strings = { type: "strings" } as const;
const flag = { type: "boolean" } as const;

/** A comparison row. */
export const ROW_SPEC: ObjectSpec = {
  noun: "row",
  fields: {
    id: text,
    label: text,
    status: { type: "enum", values: ROW_STATUSES },
    starterKind: { type: "enum", values: STARTER_KINDS },
    recommendedPack: text,
    hostFamily: { type: "enum", values: HOST_FAMILIES },
    firstSuccessMode: { type: "enum", values: FIRST_SUCCESS_MODES },
    readOnly: flag,
    needsRuntimeInvoke: flag,
    needsMcpTransport: flag,
    bestEntry: text,
    smokeCommand: text,
    copyReadyPackPath: text,
    compareAgainst: strings,
    recommendedDocs: strings,
    bestWhen: strings,
    avoidWhen: strings,
    safeClaims: strings,
    notYetSupported: strings,
  },
};

/** A value of a filter group. */
export const FILTER_VALUE_SPEC: ObjectSpec = {
  noun: "filter value",
  fields: { id: text, label: text, comparisonIds: strings },
};

/** A filter group. */
export const FILTER_GROUP_SPEC: ObjectSpec = {
  noun: "filter group",
  fields: { id: text, label: text, field: text, values: { type: "objects", of: FILTER_VALUE_SPEC } },
};

/** The whole document. */
export const DOCUMENT_SPEC: ObjectSpec = {
  noun: "document",
  fields: {
    $schema: { type: "string", minLength: 0 },
    comparisonVersion: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    filters: { type: "objects", of: FILTER_GROUP_SPEC },
    comparisons: { type: "objects", of: ROW_SPEC },
  },
};
