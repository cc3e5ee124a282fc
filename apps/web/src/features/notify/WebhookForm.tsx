import { type FormEvent, useState } from "react";
import { ApiError } from "../../api/client.js";
import { ErrorState } from "../../ui/states.js";
import { fieldErrors, issuesOf } from "../fileorg/model/field-errors.js";
import { EVENT_CHOICES, useCreateWebhook, type WebhookEvent } from "./webhook-api.js";

/** A random signing secret the person can copy to the receiver (hex, 32 bytes). */
function newSecret(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

/**
 * Subscribes a URL to events: where, which events (`run.waiting` and `run.failed` ticked first) and the
 * signing secret (suggested, shown once: the server never returns it). The server's refusals show at their
 * field.
 */
export function WebhookForm() {
  const create = useCreateWebhook();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<WebhookEvent[]>(["run.waiting", "run.failed"]);
  const [secret, setSecret] = useState(newSecret);
  const [description, setDescription] = useState("");
  const errors =
    create.error instanceof ApiError
      ? fieldErrors(issuesOf(create.error.details))
      : ({} as Record<string, string>);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { url, events, secret, ...(description.trim() === "" ? {} : { description }) },
      {
        onSuccess: () => {
          setUrl("");
          setDescription("");
          setSecret(newSecret());
        },
      },
    );
  };
  const toggle = (type: WebhookEvent, on: boolean) =>
    setEvents((prev) => (on ? [...prev, type] : prev.filter((t) => t !== type)));
  return (
    <form onSubmit={onSubmit} className="webhook-form" aria-labelledby="new-webhook-title">
      <h3 id="new-webhook-title">Add a webhook</h3>
      <label>
        URL
        <input
          type="url"
          required
          value={url}
          placeholder="https://example.com/hooks/vetted"
          onChange={(e) => setUrl(e.target.value)}
          aria-invalid={errors.url !== undefined}
          aria-describedby={errors.url === undefined ? undefined : "webhook-url-error"}
        />
      </label>
      {errors.url === undefined ? null : (
        <p id="webhook-url-error" className="field-error">
          {errors.url}
        </p>
      )}
      <fieldset>
        <legend>Events</legend>
        {EVENT_CHOICES.map((choice) => (
          <label key={choice.type} className="check">
            <input
              type="checkbox"
              checked={events.includes(choice.type)}
              onChange={(e) => toggle(choice.type, e.target.checked)}
            />{" "}
            {choice.label}
          </label>
        ))}
      </fieldset>
      <label>
        Signing secret (copy it to the receiver now; it is never shown again)
        <input
          value={secret}
          minLength={16}
          maxLength={256}
          required
          onChange={(e) => setSecret(e.target.value)}
          aria-invalid={errors.secret !== undefined}
        />
      </label>
      {errors.secret === undefined ? null : <p className="field-error">{errors.secret}</p>}
      <label>
        Description (optional)
        <input value={description} maxLength={500} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <p className="toolbar">
        <button type="submit" className="primary" disabled={create.isPending || events.length === 0}>
          Add webhook
        </button>
        {events.length === 0 ? <span className="muted">Tick at least one event.</span> : null}
      </p>
      {create.isError ? <ErrorState error={create.error} title="The webhook was not added" /> : null}
    </form>
  );
}
