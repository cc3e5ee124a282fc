// From the sources (tests, `tsx` runs) the file threads' TypeScript entry cannot be loaded by Node itself:
// this shim registers tsx in the worker thread, then imports the entry named in `workerData.tsEntry`.
// A build never uses it: it starts `dist/inspect-worker.js` directly.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.tsEntry);
