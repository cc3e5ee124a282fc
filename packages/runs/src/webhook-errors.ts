import { RunsError } from "./errors.js";

/*
 * The errors of signed webhooks. Their codes are listed in `RUNS_ERROR_CODES` with the others.
 */

/** No webhook, or no delivery of that webhook, with that id. */
export class WebhookNotFoundError extends RunsError {
  override readonly name = "WebhookNotFoundError";
  constructor(code: "WEBHOOK_NOT_FOUND" | "WEBHOOK_DELIVERY_NOT_FOUND", id: string, webhookId?: string) {
    super(
      code,
      code === "WEBHOOK_NOT_FOUND"
        ? `No webhook ${id}.`
        : `Webhook ${webhookId ?? "?"} has no delivery ${id}.`,
    );
  }
}

/** The webhook's URL is refused by the outbound policy (metadata or link-local address, deny list, allow list). */
export class WebhookUrlDeniedError extends RunsError {
  override readonly name = "WebhookUrlDeniedError";
  constructor(url: string, reason: string) {
    super(
      "WEBHOOK_URL_DENIED",
      `The webhook URL ${url} is refused by the outbound policy: ${reason}. ` +
        "Use a host the server may reach (see VETTED_HTTP_ALLOW and VETTED_HTTP_DENY).",
      { url, reason },
    );
  }
}
