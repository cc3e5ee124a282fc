import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ApiError, api, unwrap } from "../../api/client.js";
import { ErrorState, Loading } from "../../ui/states.js";
import { fieldErrors, issuesOf } from "./model/field-errors.js";
import { previewNamingTemplate } from "./model/naming-preview.js";

/** Strategy packs, naming templates, review rules, categories, learned rules and runtime settings. */
export function PreferencesPage() {
  return (
    <section>
      <h1>File preferences</h1>
      <nav className="subnav" aria-label="File organization">
        <Link to="/files">Jobs</Link> · <Link to="/files/inbox">Inbox</Link>
      </nav>
      <RuntimeSettings />
      <NamingTemplates />
      <Lists />
    </section>
  );
}

function RuntimeSettings() {
  const client = useQueryClient();
  const runtime = useQuery({
    queryKey: ["fileorg", "runtime"],
    queryFn: () => unwrap(api.GET("/api/preferences/runtime", {})),
  });
  const packs = useQuery({
    queryKey: ["fileorg", "packs"],
    queryFn: () => unwrap(api.GET("/api/preferences/strategy-packs", {})),
  });
  const [workers, setWorkers] = useState("");
  const [output, setOutput] = useState("");
  const [pack, setPack] = useState("");
  const body = () => ({
    ...(workers === "" ? {} : { workers: Number(workers) }),
    ...(output === "" ? {} : { default_output_root: output }),
    ...(pack === "" ? {} : { active_strategy_pack: pack }),
  });
  const validate = useMutation({
    mutationFn: () => unwrap(api.POST("/api/preferences/runtime/validate", { body: body() as never })),
  });
  const save = useMutation({
    mutationFn: () => unwrap(api.POST("/api/preferences/runtime", { body: body() as never })),
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg"] }),
  });
  const errs = {
    ...fieldErrors(validate.data?.problems ?? []),
    ...(save.error instanceof ApiError ? fieldErrors(issuesOf(save.error.details)) : {}),
  };
  const r = runtime.data;
  return (
    <form
      className="card"
      aria-label="Runtime settings"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      onBlur={() => validate.mutate()}
    >
      <h2>Runtime settings</h2>
      {runtime.isPending ? <Loading what="settings" /> : null}
      {runtime.isError ? <ErrorState error={runtime.error} /> : null}
      {r !== undefined ? (
        <p>
          Roots: {r.effective_roots.join(", ")} · workers {r.workers} · active pack {r.active_strategy_pack}
        </p>
      ) : null}
      <label>
        Workers
        <input
          name="workers"
          inputMode="numeric"
          value={workers}
          placeholder={String(r?.workers ?? "")}
          onChange={(e) => setWorkers(e.target.value)}
          aria-invalid={errs.workers !== undefined}
        />
        {errs.workers !== undefined ? <span className="field-error">{errs.workers}</span> : null}
      </label>
      <label>
        Default output folder
        <input
          name="default_output_root"
          value={output}
          placeholder={r?.default_output_root ?? ""}
          onChange={(e) => setOutput(e.target.value)}
          aria-invalid={errs.default_output_root !== undefined}
        />
        {errs.default_output_root !== undefined ? (
          <span className="field-error">{errs.default_output_root}</span>
        ) : null}
      </label>
      <label>
        Active strategy pack
        <select name="active_strategy_pack" value={pack} onChange={(e) => setPack(e.target.value)}>
          <option value="">(unchanged)</option>
          {(packs.data?.items ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} — {p.description}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Save settings</button>
      {save.isError ? <ErrorState error={save.error} title="The settings were refused" /> : null}
      {save.isSuccess ? <p role="status">Saved.</p> : null}
    </form>
  );
}

function NamingTemplates() {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: ["fileorg", "naming-templates"],
    queryFn: () => unwrap(api.GET("/api/preferences/naming-templates", {})),
  });
  const [name, setName] = useState("");
  const [template, setTemplate] = useState("{category}/{yyyy}/{mm}/{name}{ext}");
  const preview = previewNamingTemplate(template, "/source");
  const save = useMutation({
    mutationFn: () => unwrap(api.POST("/api/preferences/naming-templates", { body: { name, template } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg", "naming-templates"] }),
  });
  return (
    <form
      className="card"
      aria-label="Naming templates"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2>Naming templates</h2>
      <ul>
        {(list.data?.items ?? []).map((t) => (
          <li key={t.id}>
            {t.name}: <code>{t.template}</code>
          </li>
        ))}
      </ul>
      <label>
        Name
        <input name="template_name" value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Template
        <input
          name="template"
          value={template}
          onChange={(e) => setTemplate(e.target.value)}
          aria-invalid={!preview.ok}
        />
        {preview.ok ? (
          <span>
            {" "}
            e.g. <code>{preview.targets[0]}</code>
          </span>
        ) : (
          <span className="field-error">{preview.message}</span>
        )}
      </label>
      <button type="submit" disabled={!preview.ok}>
        Save template
      </button>
      {save.isError ? <ErrorState error={save.error} title="The template was refused" /> : null}
    </form>
  );
}

function Lists() {
  const rules = useQuery({
    queryKey: ["fileorg", "review-rules"],
    queryFn: () => unwrap(api.GET("/api/preferences/review-rules", {})),
  });
  const cats = useQuery({
    queryKey: ["fileorg", "categories"],
    queryFn: () => unwrap(api.GET("/api/preferences/categories", {})),
  });
  const learned = useQuery({
    queryKey: ["fileorg", "learned"],
    queryFn: () => unwrap(api.GET("/api/preferences/learned-rules", {})),
  });
  const packs = useQuery({
    queryKey: ["fileorg", "packs"],
    queryFn: () => unwrap(api.GET("/api/preferences/strategy-packs", {})),
  });
  return (
    <div className="card">
      <h2>Strategy packs</h2>
      <ul>
        {(packs.data?.items ?? []).map((p) => (
          <li key={p.id}>
            {p.name}
            {p.active ? " (active)" : ""}: {p.description}
          </li>
        ))}
      </ul>
      <h2>Review rules</h2>
      <ul>
        {(rules.data?.items ?? []).map((r) => (
          <li key={r.id}>
            {r.name}
            {r.enabled ? "" : " (off)"}
          </li>
        ))}
      </ul>
      <h2>Categories</h2>
      <ul>
        {(cats.data?.items ?? []).map((c) => (
          <li key={c.name}>
            {c.name}
            {c.built_in ? "" : " (custom)"}
          </li>
        ))}
      </ul>
      <h2>Learned from your edits</h2>
      <ul>
        {(learned.data?.items ?? []).map((l) => (
          <li key={l.id}>
            {l.signal_kind} {l.signal_value} → {l.outcome_field} {l.outcome_value} ({l.count}×, strength{" "}
            {l.strength.toFixed(2)})
          </li>
        ))}
      </ul>
      {[rules.error, cats.error, learned.error, packs.error].map((e, i) =>
        e === null ? null : <ErrorState key={String(i)} error={e} />,
      )}
    </div>
  );
}
