import type { Run } from "@vetted/runs";

/** One answer: the status, the raw JSON, the body read as a run, and the error code when it is an error. */
export interface Answer {
  status: number;
  json: unknown;
  /** The body as a run (meaningful when the answer is one). */
  run: Run;
  /** `error.code` of an error envelope. */
  code: string | undefined;
  headers: Headers;
}

function connectionReset(err: unknown): boolean {
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === "ECONNRESET";
}

/** A tiny JSON client for a running server. */
export function apiClient(baseUrl: string) {
  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const send = () =>
      fetch(`${baseUrl}${path}`, {
        method,
        redirect: "manual",
        headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // A GET on a kept-alive connection the server closed at that moment is sent again, once, on a new
    // one (a server that died answers the second try with ECONNREFUSED, and the test fails).
    const res = await send().catch((err: unknown) => {
      if (method === "GET" && connectionReset(err)) return send();
      throw err;
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    const envelope = json as { error?: { code?: unknown } } | null;
    const code =
      res.status >= 400 && typeof envelope?.error?.code === "string" ? envelope.error.code : undefined;
    return { status: res.status, json, run: json as Run, code, headers: res.headers };
  }
  return {
    call,
    get: (path: string) => call("GET", path),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call("POST", path, body, headers),
    patch: (path: string, body: unknown) => call("PATCH", path, body),
    /** Polls a run until `done` holds (or fails after `timeoutMs`). */
    async waitForRun(runId: string, done: (run: Run) => boolean, timeoutMs = 8000): Promise<Run> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { run } = await call("GET", `/api/runs/${runId}`);
        if (done(run)) return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} never got there: ${JSON.stringify(run)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}
