import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client.js";
import { ErrorState } from "../../ui/states.js";

/**
 * "Draft a rule from the selected rows": the server infers a rule, the person edits its JSON, previews the
 * exact changes per row, then saves it (preferences) and applies it to this manifest.
 */
export function RuleDraft({
  jobId,
  rowIds,
  revision,
}: {
  jobId: string;
  rowIds: string[];
  revision: number;
}) {
  const client = useQueryClient();
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  const parsed = (): unknown => {
    try {
      setProblem(undefined);
      return JSON.parse(text);
    } catch (e) {
      setProblem(`The rule is not valid JSON: ${(e as Error).message}`);
      return undefined;
    }
  };
  const draft = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/jobs/{job_id}/review-rules/from-examples", {
          params: { path: { job_id: jobId } },
          body: { row_ids: rowIds },
        }),
      ),
    onSuccess: (d) => setText(JSON.stringify(d.draft, null, 2)),
  });
  const preview = useMutation({
    mutationFn: (rule: unknown) =>
      unwrap(
        api.POST("/api/jobs/{job_id}/review-rules/preview", {
          params: { path: { job_id: jobId } },
          body: { rule } as never,
        }),
      ),
  });
  const save = useMutation({
    mutationFn: async (rule: unknown) => {
      const saved = await unwrap(api.POST("/api/preferences/review-rules", { body: rule as never }));
      return unwrap(
        api.POST("/api/jobs/{job_id}/review-rules/apply", {
          params: { path: { job_id: jobId }, header: { "if-match": String(revision) } },
          body: { rule_id: saved.id },
        }),
      );
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg", "manifest", jobId] }),
  });
  return (
    <section className="rule-draft card" aria-label="Rule from examples">
      <h2>Rule from the selected rows</h2>
      <button type="button" disabled={rowIds.length < 2} onClick={() => draft.mutate()}>
        Draft a rule from {rowIds.length} selected row(s)
      </button>
      {draft.data?.warnings.map((w) => (
        <p key={w} className="field-error">
          {w}
        </p>
      ))}
      {text !== "" ? (
        <>
          <label>
            Rule (edit before saving)
            <textarea name="rule" rows={10} value={text} onChange={(e) => setText(e.target.value)} />
          </label>
          {problem !== undefined ? <p className="field-error">{problem}</p> : null}
          <button
            type="button"
            onClick={() => {
              const r = parsed();
              if (r !== undefined) preview.mutate(r);
            }}
          >
            Preview changes
          </button>
          <button
            type="button"
            disabled={preview.data === undefined}
            onClick={() => {
              const r = parsed();
              if (r !== undefined) save.mutate(r);
            }}
          >
            Save and apply
          </button>
        </>
      ) : null}
      {preview.data !== undefined ? (
        <div>
          <p>{preview.data.matched_count} row(s) would change:</p>
          <ul className="rule-changes">
            {preview.data.matches.slice(0, 50).map((m) => (
              <li key={m.row_id}>
                {m.row_id}:{" "}
                {Object.entries(m.changes).map(([field, ch]) =>
                  ch === undefined ? null : (
                    <span key={field}>
                      {field} {ch.from} → {ch.to}{" "}
                    </span>
                  ),
                )}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {save.data !== undefined ? <p role="status">Applied to {save.data.matched_count} row(s).</p> : null}
      {[draft.error, preview.error, save.error].map((e, i) =>
        e === null ? null : <ErrorState key={String(i)} error={e} title="The rule was refused" />,
      )}
    </section>
  );
}
