import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "./schema.js";

/** The error every API call surfaces: the server's `{ error: { code, message } }` plus the HTTP status. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

const TOKEN_KEY = "vetted.api-token";
const tokenListeners = new Set<() => void>();

/** The API token for this tab only (`sessionStorage`), or undefined. */
export function getToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

/** Keeps the token for this tab (sessionStorage only, never localStorage) and retries waiting queries. */
export function setToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
  for (const listener of tokenListeners) listener();
}

/** Calls `listener` when a token is set. */
export function onTokenSet(listener: () => void): () => void {
  tokenListeners.add(listener);
  return () => tokenListeners.delete(listener);
}

/** The `Authorization` header for raw `fetch`/`EventSource` users (EventSource cannot send it). */
export function authHeaders(): Record<string, string> {
  const token = getToken();
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** Turns any failed response into an {@link ApiError} (envelope when present, else the status text). */
export async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    const e = body.error;
    if (e !== undefined && typeof e.code === "string" && typeof e.message === "string") {
      return new ApiError(res.status, e.code, e.message, e.details);
    }
  } catch {
    // not JSON: fall through
  }
  return new ApiError(res.status, `HTTP_${res.status}`, text.slice(0, 200) || res.statusText);
}

const auth: Middleware = {
  onRequest({ request }) {
    const token = getToken();
    if (token !== undefined) request.headers.set("authorization", `Bearer ${token}`);
    return request;
  },
};

/** The typed client of the server's API (types generated from its OpenAPI document). */
export const api = createClient<paths>({ baseUrl: "" });
api.use(auth);

/**
 * Unwraps an openapi-fetch result: the data, or throws an {@link ApiError}. Use inside query functions:
 * `queryFn: () => unwrap(api.GET("/api/runs", { params: { query } }))`.
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok && error === undefined && data !== undefined) return data;
  const e = error as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  if (e?.error !== undefined && typeof e.error.code === "string" && typeof e.error.message === "string") {
    throw new ApiError(response.status, e.error.code, e.error.message, e.error.details);
  }
  throw new ApiError(response.status, `HTTP_${response.status}`, response.statusText || "Request failed");
}

/** A random idempotency key for a state-changing call. */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}
