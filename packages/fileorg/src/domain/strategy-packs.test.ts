import { describe, expect, it } from "vitest";
import { CATEGORIES } from "./manifest.js";
import { ReviewRule } from "./review-rule.js";
import { STRATEGY_PACKS } from "./strategy-packs.js";
import { checkNamingTemplate } from "./template-check.js";

describe("built-in strategy packs", () => {
  it.each(STRATEGY_PACKS.map((p) => [p.id, p] as const))(
    "%s is valid: template, categories, threshold and rules",
    (_id, pack) => {
      expect(checkNamingTemplate(pack.naming_template)).toEqual([]);
      for (const c of pack.categories) expect(CATEGORIES).toContain(c);
      expect(pack.confidence_threshold).toBeGreaterThan(0);
      expect(pack.confidence_threshold).toBeLessThan(1);
      for (const rule of pack.default_rules) expect(ReviewRule.parse(rule)).toEqual(rule);
    },
  );
});
