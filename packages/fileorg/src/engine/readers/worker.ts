/**
 * The file threads' entry (`createInspectPool` starts a few): each message is a batch of one op's items,
 * answered in order with `{ id, results }`. From the sources it is loaded through `ts-worker.mjs`; the
 * build has it as `dist/inspect-worker.js`, beside the bundle that starts it.
 */
import { parentPort } from "node:worker_threads";
// ── The confined file-system layer: the ONE place the file threads obtain it. Every read, stat and move
// below goes through `confined`, which checks each real parent right before it acts, on this thread.
import { confinedFs } from "../confined-fs.js";
import { type BatchCaches, inspectFile, linkMove, statPath, type ThreadConfinedFs } from "./inspect-file.js";
import type { ReaderAnswer, ReaderRequest } from "./protocol.js";

const confined = confinedFs as ThreadConfinedFs;
// ── End of the confined layer's wiring.

type Result = ReaderAnswer["results"][number];

/**
 * Runs one batch, one item at a time: an item whose content is parsed asynchronously (a photo's EXIF, a
 * track's tags) is awaited before the next one is read, so a thread holds at most one copy of a file's
 * head. Its caches (open directories) are released whatever happens.
 */
async function runBatch(request: ReaderRequest): Promise<Result[]> {
  const caches: BatchCaches = { parents: new Map(), dirs: new Map() };
  const { scope } = request;
  try {
    switch (request.op) {
      case "inspect": {
        const results: Result[] = [];
        for (const file of request.items) {
          const r = inspectFile(confined, file, scope, caches, request.pdfText === true);
          results.push(r instanceof Promise ? await r : r);
        }
        return results;
      }
      case "stat":
        return request.items.map((file) => statPath(confined, file, scope, caches));
      case "link":
        return request.items.map((move) => linkMove(confined, move, scope, caches));
    }
  } finally {
    confined.closeDirs(caches.dirs);
  }
}

const port = parentPort;
if (port !== null) {
  // Batches run one after another (a batch awaiting a parse never interleaves with the next one).
  let queue: Promise<void> = Promise.resolve();
  port.on("message", (request: ReaderRequest) => {
    queue = queue
      .then(() => runBatch(request))
      .then((results) => {
        const message: ReaderAnswer = { id: request.id, results };
        port.postMessage(message);
      });
  });
}
