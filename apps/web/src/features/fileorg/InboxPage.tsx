import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ApiError, api, unwrap } from "../../api/client.js";
import { ErrorState, Loading } from "../../ui/states.js";
import { fieldErrors, issuesOf } from "./model/field-errors.js";

/** The inbox: watch sources (add, remove), the new batches a scan finds, analyzing a batch. */
export function InboxPage() {
  const client = useQueryClient();
  const sources = useQuery({
    queryKey: ["fileorg", "watch-sources"],
    queryFn: () => unwrap(api.GET("/api/preferences/watch-sources", {})),
  });
  const scan = useQuery({
    queryKey: ["fileorg", "inbox-scan"],
    queryFn: () => unwrap(api.POST("/api/inbox/scan", {})),
  });
  const [name, setName] = useState("");
  const [path, setPath] = useState("");
  const add = useMutation({
    mutationFn: () =>
      unwrap(api.POST("/api/preferences/watch-sources", { body: { name, path, enabled: true } as never })),
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg"] }),
  });
  const analyze = useMutation({
    mutationFn: (b: { watch_source_id: string; batch_id: string }) =>
      unwrap(api.POST("/api/inbox/analyze", { body: b })),
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg"] }),
  });
  const errs = add.error instanceof ApiError ? fieldErrors(issuesOf(add.error.details)) : {};
  return (
    <section>
      <h1>Inbox</h1>
      <nav className="subnav" aria-label="File organization">
        <Link to="/files">Jobs</Link> · <Link to="/files/preferences">Preferences</Link>
      </nav>
      <h2>Watch sources</h2>
      {sources.isPending ? <Loading what="watch sources" /> : null}
      {sources.isError ? <ErrorState error={sources.error} /> : null}
      <ul>
        {(sources.data?.items ?? []).map((s) => (
          <li key={s.id}>
            {s.name} <code>{s.path}</code> {s.enabled ? "watching" : "paused"}
          </li>
        ))}
      </ul>
      <form
        className="card"
        aria-label="Add a watch source"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <label>
          Name
          <input
            name="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={errs.name !== undefined}
          />
          {errs.name !== undefined ? <span className="field-error">{errs.name}</span> : null}
        </label>
        <label>
          Folder
          <input
            name="path"
            value={path}
            onChange={(e) => setPath(e.target.value)}
            aria-invalid={errs.path !== undefined}
          />
          {errs.path !== undefined ? <span className="field-error">{errs.path}</span> : null}
        </label>
        <button type="submit">Add</button>
        {add.isError ? <ErrorState error={add.error} title="The watch source was refused" /> : null}
      </form>
      <h2>New batches</h2>
      {scan.isError ? <ErrorState error={scan.error} /> : null}
      <ul>
        {(scan.data?.items ?? []).map((b) => (
          <li key={b.watch_source_id}>
            {b.watch_source_id}: {b.files.length} new file(s)
            {b.error !== undefined ? <code className="error-code"> {b.error.code}</code> : null}
            {b.batch_id !== null ? (
              <button
                type="button"
                onClick={() =>
                  analyze.mutate({ watch_source_id: b.watch_source_id, batch_id: b.batch_id ?? "" })
                }
              >
                Analyze this batch
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {analyze.isError ? <ErrorState error={analyze.error} /> : null}
    </section>
  );
}
