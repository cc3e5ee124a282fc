import { EmptyState, ErrorState, Loading } from "../../ui/states.js";
import { turnOff, turnOn, useNotifyState } from "./notify-client.js";
import { WebhookCard } from "./WebhookCard.js";
import { WebhookForm } from "./WebhookForm.js";
import { useWebhooks } from "./webhook-api.js";

/** This browser's gate notifications: what they are set to and the switch. */
function BrowserNotifications() {
  const state = useNotifyState();
  let status: string;
  if (state.support === "unsupported") status = "This browser cannot show notifications from the console.";
  else if (state.support === "denied")
    status = "Blocked in this browser: allow notifications for this site in its settings to turn them on.";
  else if (state.enabled) status = "On: this browser is told when a run starts waiting at a gate.";
  else status = "Off.";
  return (
    <section aria-labelledby="browser-notify-title">
      <h2 id="browser-notify-title">In this browser</h2>
      <p data-testid="notify-status">{status}</p>
      {state.support === "default" || (state.support === "granted" && !state.enabled) ? (
        <p className="toolbar">
          <button type="button" className="primary" onClick={() => void turnOn()}>
            Turn on notifications
          </button>
        </p>
      ) : null}
      {state.enabled ? (
        <p className="toolbar">
          <button type="button" onClick={turnOff}>
            Turn off notifications
          </button>
        </p>
      ) : null}
    </section>
  );
}

/** `/notifications`: browser notifications of waiting gates, and webhooks with their deliveries. */
export function NotificationsPage() {
  const hooks = useWebhooks();
  return (
    <section>
      <h1>Notifications</h1>
      <BrowserNotifications />
      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhooks</h2>
        <p className="muted">
          Signed POSTs (<code>X-Vetted-Signature</code>) to your own endpoint when a run waits or ends, or a
          file job or automation task ends. Failed deliveries are retried with backoff for 24 hours.
        </p>
        <WebhookForm />
        {hooks.isPending ? <Loading what="webhooks" /> : null}
        {hooks.isError ? <ErrorState error={hooks.error} /> : null}
        {hooks.data?.items.length === 0 ? (
          <EmptyState title="No webhooks">
            <p>Add one above to be told elsewhere (chat, a pager, your own service).</p>
          </EmptyState>
        ) : null}
        <div className="webhooks">
          {hooks.data?.items.map((hook) => (
            <WebhookCard key={hook.id} hook={hook} />
          ))}
        </div>
      </section>
    </section>
  );
}
