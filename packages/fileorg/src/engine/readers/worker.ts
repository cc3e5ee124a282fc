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

/** Runs one batch; its caches (open directories) are released whatever happens. */
function runBatch(request: ReaderRequest): Array<Result | Promise<Result>> {
  const caches: BatchCaches = { parents: new Map(), dirs: new Map() };
  const { scope } = request;
  try {
    switch (request.op) {
      case "inspect":
        return request.items.map((file) => inspectFile(confined, file, scope, caches));
      case "stat":
        return request.items.map((file) => statPath(confined, file, scope, caches));
      case "link":
        return request.items.map((move) => linkMove(confined, move, scope, caches));
    }
  } finally {
    confined.closeDirs(caches.dirs);
  }
}

/** The results as they are, or — when a photo's EXIF is still being parsed — a promise of them all. */
function settled(results: Array<Result | Promise<Result>>): Result[] | Promise<Result[]> {
  const ready: Result[] = [];
  for (const r of results) {
    if (r instanceof Promise) return Promise.all(results);
    ready.push(r);
  }
  return ready;
}

const port = parentPort;
if (port !== null) {
  port.on("message", (request: ReaderRequest) => {
    const answer = (results: Result[]) => {
      const message: ReaderAnswer = { id: request.id, results };
      port.postMessage(message);
    };
    const results = settled(runBatch(request));
    if (Array.isArray(results)) answer(results);
    else void results.then(answer);
  });
}
