import { RunsError } from "../../kernel/errors.js";

/*
 * The errors of signed webhooks. Their codes are listed in `RUNS_ERROR_CODES` with the others.
 */

/** No webhook, or no delivery of that webhook, with that id. */
export class WebhookNotFoundError extends RunsError {
  constructor(code: "WEBHOOK_NOT_FOUND" | "WEBHOOK_DELIVERY_NOT_FOUND", id: string, webhookId?: string) {
    super(
      code,
      code === "WEBHOOK_NOT_FOUND"
        ? `No webhook ${id}.`
        : `Webhook ${webhookId ?? "?"} has no delivery ${id}.`,
    );
  }
}

/**
 * The webhook's URL is refused: it carries credentials, names (or resolves to) a protected payment
 * provider, or the outbound policy denies it (metadata or link-local address, this server's own port, deny
 * list, allow list) or it does not resolve. `url` is shown without its credentials.
 */
export class WebhookUrlDeniedError extends RunsError {
  /** `final`: the refusal holds whatever the network says (credentials, a protected provider). */
  constructor(url: string, reason: string, final = false) {
    super(
      "WEBHOOK_URL_DENIED",
      `The webhook URL ${url} is refused: ${reason}.` +
        (final ? "" : " Use a host the server may reach (see VETTED_HTTP_ALLOW and VETTED_HTTP_DENY)."),
      { url, reason },
    );
  }
}
