import { describe, expect, it } from "vitest";
import { previewNamingTemplate } from "./naming-preview.js";

const ROOT = "/home/me/Downloads";

describe("naming preview", () => {
  it("shows three targets for the default template", () => {
    expect(previewNamingTemplate("{category}/{yyyy}/{name}{ext}", ROOT)).toEqual({
      ok: true,
      targets: [
        "documents/2024/Invoice March.pdf",
        "images/2023/IMG_20230211_101500.jpg",
        "archives/2021/site.tar.gz",
      ],
    });
  });

  it("renders folders under the source root, dates, the parent and the hash", () => {
    expect(previewNamingTemplate("{category}/{relpath}/{name}{ext}", ROOT)).toEqual({
      ok: true,
      targets: [
        "documents/Invoice March.pdf",
        "images/Camera/IMG_20230211_101500.jpg",
        "archives/old/backups/site.tar.gz",
      ],
    });
    expect(previewNamingTemplate("{yyyy}-{mm}-{dd}/{parent}/{hash8}{ext}", `${ROOT}/`)).toEqual({
      ok: true,
      targets: [
        "2024-03-14/Downloads/3f2a9c01.pdf",
        "2023-02-11/Camera/a81be0c2.jpg",
        "2021-11-02/backups/0c9d8e7f.gz",
      ],
    });
  });

  it("refuses a template with its reason", () => {
    for (const [bad, reason] of [
      ["/abs/{name}", "must be relative"],
      ["{category}//{name}", "empty"],
      ["{bogus}/{name}", "Unknown token {bogus}"],
      ["{category}/x{relpath}/{name}", "whole path segment"],
      ["{category}", "must contain {name} or {hash8}"],
      ["  ", "Type a naming template"],
    ] as const) {
      const preview = previewNamingTemplate(bad, ROOT);
      expect(preview.ok, bad).toBe(false);
      if (!preview.ok) expect(preview.message, bad).toContain(reason);
    }
  });
});
