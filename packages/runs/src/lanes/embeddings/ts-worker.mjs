// Runs a TypeScript worker module from the sources (tests and `tsx` runs; a build loads the `.js` directly):
// registers tsx in this worker thread, then imports the module named by `workerData.tsEntry`.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.tsEntry);
