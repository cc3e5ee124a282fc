import { parseTemplate, renderTemplate } from "@vetted/fileorg";
import { describe, expect, it } from "vitest";
import { parseNamingTemplate, previewNamingTemplate, renderSample, sampleFiles } from "./naming-preview.js";

const ROOT = "/home/me/Downloads";
const TEMPLATES = [
  "{category}/{yyyy}/{name}{ext}",
  "{category}/{relpath}/{name}{ext}",
  "{yyyy}-{mm}-{dd}/{parent}/{hash8}{ext}",
  "by type/{category}/{name} ({yyyy}){ext}",
  "con/{name}.{ext}.",
];

describe("naming preview", () => {
  it("renders three sample targets like the server's renderer", () => {
    for (const template of TEMPLATES) {
      const server = parseTemplate(template);
      if (!server.ok) throw new Error(server.message);
      const ours = parseNamingTemplate(template);
      if (typeof ours === "string") throw new Error(ours);
      for (const file of sampleFiles(ROOT)) {
        const expected = renderTemplate(server.template, {
          category: file.category,
          mtime: file.date,
          date: file.date,
          fileName: file.sourcePath.slice(file.sourcePath.lastIndexOf("/") + 1),
          sha256: file.sha256,
          sourcePath: file.sourcePath,
          sourceRoot: ROOT,
        });
        expect(renderSample(ours, file, ROOT), template).toBe(expected);
      }
    }
  });

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

  it("refuses what the server refuses, with its reason", () => {
    for (const bad of [
      "/abs/{name}",
      "{category}//{name}",
      "{bogus}/{name}",
      "{category}/x{relpath}/{name}",
      "{category}",
    ]) {
      const server = parseTemplate(bad);
      expect(server.ok, bad).toBe(false);
      const ours = previewNamingTemplate(bad, ROOT);
      expect(ours.ok, bad).toBe(false);
      if (!ours.ok && !server.ok) expect(ours.message.slice(0, 30)).toBe(server.message.slice(0, 30));
    }
    expect(previewNamingTemplate("", ROOT).ok).toBe(false);
  });
});
