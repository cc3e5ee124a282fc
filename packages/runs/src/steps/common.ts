import { z } from "zod";

/** A step id: stable, unique in its flow. */
export const StepId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "a step id is 1-64 letters, digits, _ or -")
  .meta({ description: "Stable step id, unique in the flow" });

/** Sleeps `ms`, rejecting with the signal's reason when aborted. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A gate's prompt. */
export const Prompt = z.string().min(1).max(1000);

/** A gate's own timeout, overriding the template's. */
export const GateTimeout = z
  .number()
  .int()
  .min(1)
  .max(30 * 86_400)
  .optional();
