import { randomUUID } from "node:crypto";
import { createServer, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { getRequestListener, RequestError } from "@hono/node-server";
import type { ErrorEnvelope, ServerErrorCode } from "./errors.js";
import type { Logger } from "./logger.js";

/** How the Node HTTP server is built around the app. */
export interface HttpServerOptions {
  /** The app's fetch handler. */
  fetch: (request: Request) => Response | Promise<Response>;
  /** The bound host, used as the URL's host when a request names none. */
  hostname: string;
  /** Time to receive a request's headers (VETTED_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body; never limits a response (VETTED_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  logger: Logger;
}

/** Node's own parse and timeout failures, each answered with the envelope. */
interface ClientFailure {
  status: number;
  code: ServerErrorCode;
  message: string;
}

function classify(err: NodeJS.ErrnoException): ClientFailure | undefined {
  const code = err.code ?? "";
  if (code === "ECONNRESET" || code === "EPIPE") return undefined;
  if (code === "HPE_HEADER_OVERFLOW") {
    return {
      status: 431,
      code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
      message: "The request headers are larger than the server accepts; send fewer or shorter headers.",
    };
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT" || code === "HPE_HEADERS_TIMEOUT") {
    return {
      status: 408,
      code: "REQUEST_TIMEOUT",
      message:
        "The request was not received in time (VETTED_HEADERS_TIMEOUT_MS / VETTED_REQUEST_TIMEOUT_MS); send it again.",
    };
  }
  return {
    status: 400,
    code: "BAD_REQUEST",
    message: `The request is not well-formed HTTP/1.1${code === "" ? "" : ` (${code})`}.`,
  };
}

function envelopeText(code: ServerErrorCode, message: string, requestId: string): string {
  const body: ErrorEnvelope = { error: { code, message, request_id: requestId } };
  return JSON.stringify(body);
}

/** Whether Node already sent the head of a response on this socket (then no other answer may be written). */
function responseStarted(socket: Duplex): boolean {
  const pending: unknown = Reflect.get(socket, "_httpMessage");
  return typeof pending === "object" && pending !== null && Reflect.get(pending, "headersSent") === true;
}

/**
 * The `clientError` hook: a request Node could not parse or did not receive in time is answered with the
 * envelope as a raw HTTP/1.1 response, then the connection is closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, logger: Logger): void {
  const failure = classify(err);
  if (failure === undefined || !socket.writable || responseStarted(socket)) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  logger.debug("client error", { code: err.code, status: failure.status, request_id: requestId });
  const body = envelopeText(failure.code, failure.message, requestId);
  socket.end(
    `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status] ?? "Error"}\r\n` +
      "Content-Type: application/json; charset=UTF-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}

/** Answers a request @hono/node-server could not turn into a `Request` (e.g. a malformed Host header). */
function answerUnbuildableRequest(err: unknown, logger: Logger): Response {
  const requestId = randomUUID();
  if (err instanceof RequestError) {
    const body = envelopeText(
      "BAD_REQUEST",
      `The request's target or Host header is malformed: ${err.message}.`,
      requestId,
    );
    return new Response(body, {
      status: 400,
      headers: { "Content-Type": "application/json; charset=UTF-8", "X-Request-Id": requestId },
    });
  }
  logger.error(`unhandled error outside the app (request ${requestId})`, { err });
  return new Response(envelopeText("INTERNAL_ERROR", "Internal server error.", requestId), {
    status: 500,
    headers: { "Content-Type": "application/json; charset=UTF-8", "X-Request-Id": requestId },
  });
}

/**
 * Builds the Node HTTP server around the app (it does not listen): tight header and request timeouts,
 * checked often enough to matter, and every Node-level failure answered with the envelope.
 */
export function createHttpServer(options: HttpServerOptions): Server {
  const { logger } = options;
  const listener = getRequestListener(options.fetch, {
    hostname: options.hostname,
    errorHandler: (err) => answerUnbuildableRequest(err, logger),
  });
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(options.headersTimeoutMs / 4))),
    },
    listener,
  );
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(err, socket, logger),
  );
  return server;
}
