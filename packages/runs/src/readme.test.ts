import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runReadmeExample } from "../../../tools/readme-example.js";

describe("the README", () => {
  it("runs its TypeScript example verbatim and prints what its comments say", { timeout: 60_000 }, () => {
    const run = runReadmeExample(join(dirname(fileURLToPath(import.meta.url)), ".."));
    expect(run.expected).toEqual(["waiting_otp", "success cart_1"]);
    expect(run.printed).toEqual(run.expected);
  });
});
