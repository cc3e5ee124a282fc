import { describe, expect, it } from "vitest";
import { ComparisonError, checkComparison, lint, UnknownCuratedGroupError } from "./index.js";
import { createSampleDocument } from "./tests/fixtures.js";

/* A hand-curated group id the document does not define, through the public API. */

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("nothing was thrown");
}

describe("lint's curatedGroups", () => {
  it("refuses an unknown id with UNKNOWN_GROUP and the closest known id", () => {
    const error = thrownBy(() => lint(createSampleDocument(), { curatedGroups: ["host", "audiance"] }));
    expect(error).toBeInstanceOf(UnknownCuratedGroupError);
    expect(error).toBeInstanceOf(ComparisonError);
    expect(error).toMatchObject({
      code: "UNKNOWN_GROUP",
      message:
        'curatedGroups names "audiance", which is no filter group of this document; did you mean "audience"? Known groups: host, kind, audience.',
      details: { id: "audiance", known: ["host", "kind", "audience"], suggestion: "audience" },
    });
  });

  it("names the known groups without a guess when no id is close", () => {
    const error = thrownBy(() => lint(createSampleDocument(), { curatedGroups: ["pricing"] }));
    expect(error).toMatchObject({ code: "UNKNOWN_GROUP", details: { id: "pricing" } });
    expect((error as ComparisonError).details).not.toHaveProperty("suggestion");
    expect((error as ComparisonError).message).toBe(
      'curatedGroups names "pricing", which is no filter group of this document. Known groups: host, kind, audience.',
    );
  });

  it("is refused by checkComparison too, which lints with it", () => {
    const error = thrownBy(() =>
      checkComparison({ document: createSampleDocument(), curated_groups: ["audeince"] }),
    );
    expect(error).toMatchObject({ code: "UNKNOWN_GROUP", details: { suggestion: "audience" } });
  });

  it("accepts the ids the document defines", () => {
    expect(lint(createSampleDocument(), { curatedGroups: ["audience"] })).toEqual([]);
  });
});
