import { describe, expect, it } from "vitest";
import { checkNamingTemplate, renderTemplateText } from "./template-check.js";

describe("checkNamingTemplate", () => {
  it("accepts the default template and every known token", () => {
    expect(checkNamingTemplate("{category}/{yyyy}/{name}{ext}")).toEqual([]);
    expect(checkNamingTemplate("{category}/{yyyy}-{mm}-{dd}/{name}-{hash8}{ext}")).toEqual([]);
  });

  it("names an unknown token as the offending part", () => {
    expect(checkNamingTemplate("{category}/{colour}/{name}{ext}")).toEqual([
      expect.objectContaining({ part: "{colour}" }),
    ]);
  });

  it.each([
    ["{category}/{name", "{name"],
    ["{category}}/{name}{ext}", "}"],
    ["../{name}{ext}", ".."],
    ["{category}/ /{name}{ext}", " "],
    ["{category}/con/{name}{ext}", "con"],
  ])("refuses %s at %s", (template, part) => {
    expect(checkNamingTemplate(template).map((i) => i.part)).toContain(part);
  });

  it("renders tokens with their values", () => {
    expect(
      renderTemplateText("{category}/{yyyy}/{mm}/{name}{ext}", {
        category: "receipts",
        yyyy: "2024",
        mm: "01",
        dd: "02",
        name: "a",
        ext: ".pdf",
        hash8: "x",
        camera_make: "",
        camera_model: "",
        artist: "",
        album: "",
        track: "",
        title: "",
        unit: "",
        parent: "Downloads",
        relpath: "a/b",
      }),
    ).toBe("receipts/2024/01/a.pdf");
  });
});

describe("checkNamingTemplate and the folder tokens", () => {
  it("accepts {parent} and a whole-segment {relpath}", () => {
    expect(checkNamingTemplate("{category}/{relpath}/{name}{ext}")).toEqual([]);
    expect(checkNamingTemplate("{parent}/{yyyy}/{name}{ext}")).toEqual([]);
  });

  it("names a segment that mixes {relpath} with other text", () => {
    expect(checkNamingTemplate("{category}/in-{relpath}/{name}{ext}")).toEqual([
      expect.objectContaining({ part: "in-{relpath}" }),
    ]);
  });
});
