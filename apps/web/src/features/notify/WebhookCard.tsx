import { ErrorState, Loading, TableScroll } from "../../ui/states.js";
import {
  useDeleteWebhook,
  useDeliveries,
  useRedeliver,
  useSendTest,
  type Webhook,
  type WebhookDelivery,
} from "./webhook-api.js";

function when(iso: string): string {
  return new Date(iso).toLocaleString();
}

/** What a delivery's last attempt answered, as a person reads it. */
function outcome(d: WebhookDelivery): string {
  if (d.status === "delivered") return `HTTP ${d.last_status_code ?? "2xx"}`;
  if (d.attempts === 0) return "not sent yet";
  const answer = d.last_status_code === null ? (d.last_error ?? "no answer") : `HTTP ${d.last_status_code}`;
  return d.status === "pending" && d.next_attempt_at !== null
    ? `${answer}; retrying at ${when(d.next_attempt_at)}`
    : answer;
}

function Deliveries({ hook }: { hook: Webhook }) {
  const deliveries = useDeliveries(hook.id);
  const redeliver = useRedeliver(hook.id);
  if (deliveries.isPending) return <Loading what="deliveries" />;
  if (deliveries.isError) return <ErrorState error={deliveries.error} />;
  if (deliveries.data.items.length === 0) return <p className="muted">No deliveries yet.</p>;
  return (
    <TableScroll label="Deliveries">
      <table>
        <caption className="muted">Recent deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Queued</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.items.map((d) => (
            <tr key={d.id} data-testid="delivery" data-status={d.status}>
              <td>
                <code>{d.event_type}</code>
              </td>
              <td>
                <span className={`badge badge-delivery-${d.status}`}>{d.status}</span>
              </td>
              <td>{d.attempts}</td>
              <td>{outcome(d)}</td>
              <td>{when(d.created_at)}</td>
              <td>
                <button
                  type="button"
                  disabled={redeliver.isPending}
                  onClick={() => redeliver.mutate(d.id)}
                  aria-label={`Redeliver ${d.event_type} ${d.id}`}
                >
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** One webhook: where it posts, its events, a test delivery, delete, and its recent deliveries. */
export function WebhookCard({ hook }: { hook: Webhook }) {
  const test = useSendTest(hook.id);
  const remove = useDeleteWebhook();
  return (
    <article className="card webhook" aria-label={`Webhook ${hook.url}`} data-testid="webhook">
      <h3 className="webhook-url">
        <code>{hook.url}</code>
      </h3>
      {hook.description === null ? null : <p>{hook.description}</p>}
      <p className="muted">
        Events: {hook.events.join(", ")} · added {when(hook.created_at)}
      </p>
      <p className="toolbar">
        <button type="button" disabled={test.isPending} onClick={() => test.mutate()}>
          Send test delivery
        </button>
        <button
          type="button"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete the webhook to ${hook.url} and its deliveries?`))
              remove.mutate(hook.id);
          }}
        >
          Delete
        </button>
      </p>
      {test.isError ? <ErrorState error={test.error} title="The test was not sent" /> : null}
      {remove.isError ? <ErrorState error={remove.error} title="The webhook was not deleted" /> : null}
      <Deliveries hook={hook} />
    </article>
  );
}
