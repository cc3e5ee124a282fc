import type { components } from "../../api/schema.js";
import { EvidenceImage } from "./EvidenceImage.js";
import { gateAnswer, isMasked, type StepRow } from "./model/run-model.js";

type RunEvent = components["schemas"]["RunEvent"];
type Evidence = components["schemas"]["StepEvidence"];

function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** A run's params (masked secrets stay masked, as the API sends them) or vars, as a table. */
export function ValuesTable({ title, values }: { title: string; values: Record<string, unknown> }) {
  const entries = Object.entries(values);
  const id = `values-${title.toLowerCase()}`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {entries.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <table data-testid={id}>
          <tbody>
            {entries.map(([key, value]) => (
              <tr key={key}>
                <th scope="row">
                  <code>{key}</code>
                </th>
                <td>
                  {isMasked(value) ? (
                    <span className="muted" title="A secret: its value is never shown">
                      •••••• (secret)
                    </span>
                  ) : (
                    <code>{shown(value)}</code>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Every step of the flow, gates and those still to come included, with its state and evidence. */
export function StepsList({
  runId,
  rows,
  evidence,
  refresh,
}: {
  runId: string;
  rows: StepRow[];
  evidence: Evidence[];
  refresh: number;
}) {
  return (
    <ol className="timeline" data-testid="timeline">
      {rows.map((row) => {
        const ev = evidence.find((x) => x.step_id === row.id);
        return (
          <li key={row.id} data-testid="step" data-state={row.state}>
            <strong>{row.id}</strong> — {row.state}
            {row.durationMs === undefined ? "" : `, ${row.durationMs} ms`}{" "}
            <span className="badge">{row.type}</span>
            {ev?.screenshots.map((s) => (
              <EvidenceImage
                key={s.name}
                label={s.name}
                alt={`Screenshot ${s.name} of step ${row.id}`}
                src={`/api/runs/${encodeURIComponent(runId)}/evidence/${encodeURIComponent(ev.id)}/screenshots/${encodeURIComponent(s.name)}`}
                refresh={refresh}
              />
            ))}
          </li>
        );
      })}
    </ol>
  );
}

/** Every event of the run with its payload as the API returns it (already redacted); gate answers in words. */
export function EventsList({ events }: { events: RunEvent[] }) {
  return (
    <ol className="events" data-testid="events">
      {events.map((e) => {
        const answer = gateAnswer(e);
        return (
          <li key={e.id}>
            <code>{e.type}</code> <span className="muted">{new Date(e.at).toLocaleTimeString()}</span>
            {answer === undefined ? null : <span data-testid="gate-answer"> — {answer}</span>}
            {Object.keys(e.data).length === 0 ? null : (
              <details>
                <summary>Payload</summary>
                <pre className="payload">{JSON.stringify(e.data, null, 2)}</pre>
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}
