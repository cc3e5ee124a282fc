import { describe, expect, it } from "vitest";
import { bulkOutcome, runsQuery } from "./runs-filter.js";

describe("runs filter", () => {
  it("turns the URL's filters into the API's query", () => {
    expect(runsQuery({})).toEqual({});
    expect(runsQuery({ status: "failed", source: "template:tpl_1" })).toEqual({
      status: "failed",
      template_id: "tpl_1",
    });
    expect(runsQuery({ source: "flow:flow_9" })).toEqual({ flow_id: "flow_9" });
    expect(runsQuery({ source: "other:x" })).toEqual({});
    const q = runsQuery({ from: "2026-01-02T03:04", to: "2026-01-03T00:00" });
    expect(q.created_after).toBe(new Date("2026-01-02T03:04").toISOString());
    expect(q.created_before).toBe(new Date("2026-01-03T00:00").toISOString());
    expect(runsQuery({ from: "not a time" })).toEqual({});
  });

  it("counts a bulk cancel's outcomes, naming the failures", () => {
    const settled: PromiseSettledResult<unknown>[] = [
      { status: "fulfilled", value: 1 },
      { status: "rejected", reason: new Error("The run already ended (success).") },
    ];
    expect(bulkOutcome(["a", "b"], settled)).toEqual({
      cancelled: 1,
      failed: [{ id: "b", message: "The run already ended (success)." }],
    });
  });
});
