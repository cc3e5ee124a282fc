import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { api, idempotencyKey, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { EmptyState, ErrorState, Loading } from "../../ui/states.js";

type ParamSpec = components["schemas"]["ParamSpec"];
type Template = components["schemas"]["Template"];

/** `/templates`: the templates (read view) with a link to start each. */
export function TemplatesPage() {
  const templates = useQuery({
    queryKey: ["templates"],
    queryFn: () => unwrap(api.GET("/api/templates", {})),
  });
  return (
    <section>
      <h1>Templates</h1>
      {templates.isPending ? <Loading what="templates" /> : null}
      {templates.isError ? <ErrorState error={templates.error} /> : null}
      {templates.data?.items.length === 0 ? <EmptyState title="No templates yet" /> : null}
      <ul>
        {templates.data?.items.map((t) => (
          <li key={t.id}>
            <Link to="/templates/$templateId" params={{ templateId: t.id }}>
              {t.name}
            </Link>{" "}
            <span className="muted">{t.params_schema.length} params</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function coerce(spec: ParamSpec, raw: string): string | number | boolean {
  if (spec.type === "number") return Number(raw);
  if (spec.type === "boolean") return raw === "true";
  return raw;
}

function ParamField({
  spec,
  value,
  onChange,
}: {
  spec: ParamSpec;
  value: string;
  onChange: (v: string) => void;
}) {
  const label = `${spec.key}${spec.required ? " *" : ""}`;
  const id = `param-${spec.key}`;
  return (
    <div style={{ display: "grid" }}>
      <label htmlFor={id}>{label}</label>
      {spec.enum !== undefined || spec.type === "boolean" ? (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">—</option>
          {(spec.enum ?? [true, false]).map((v) => (
            <option key={String(v)} value={String(v)}>
              {String(v)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type={spec.type === "secret" ? "password" : spec.type === "number" ? "number" : "text"}
          value={value}
          required={spec.required}
          {...(spec.pattern === undefined ? {} : { pattern: spec.pattern })}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {spec.description ? <span className="muted">{spec.description}</span> : null}
    </div>
  );
}

function StartForm({ template }: { template: Template }) {
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(template.params_schema.map((p) => [p.key, String(template.defaults[p.key] ?? "")])),
  );
  const start = useMutation({
    mutationFn: (params: Record<string, unknown>) =>
      unwrap(
        api.POST("/api/runs", {
          params: { header: { "idempotency-key": idempotencyKey() } },
          body: { template_id: template.id, params },
        }),
      ),
    onSuccess: (run) => void navigate({ to: "/runs/$runId", params: { runId: run.id } }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const params = Object.fromEntries(
      template.params_schema.flatMap((spec) => {
        const raw = values[spec.key] ?? "";
        return raw === "" ? [] : [[spec.key, coerce(spec, raw)]];
      }),
    );
    start.mutate(params);
  };
  return (
    <form onSubmit={submit} style={{ display: "grid", gap: "0.6rem", maxWidth: "28rem" }}>
      {template.params_schema.map((spec) => (
        <ParamField
          key={spec.key}
          spec={spec}
          value={values[spec.key] ?? ""}
          onChange={(v) => setValues((prev) => ({ ...prev, [spec.key]: v }))}
        />
      ))}
      <button type="submit" className="primary" disabled={start.isPending}>
        Start run
      </button>
      {start.isError ? <ErrorState error={start.error} title="The run was not started" /> : null}
    </form>
  );
}

/** `/templates/$templateId`: a template and its params form to start a run. */
export function TemplatePage() {
  const { templateId } = useParams({ from: "/templates/$templateId" });
  const template = useQuery({
    queryKey: ["template", templateId],
    queryFn: () =>
      unwrap(api.GET("/api/templates/{template_id}", { params: { path: { template_id: templateId } } })),
  });
  if (template.isPending) return <Loading what="the template" />;
  if (template.isError) return <ErrorState error={template.error} />;
  return (
    <section>
      <p>
        <Link to="/templates">← Templates</Link>
      </p>
      <h1>{template.data.name}</h1>
      <p className="muted">
        Flow{" "}
        <Link to="/flows/$flowId" params={{ flowId: template.data.flow_id }}>
          {template.data.flow_id}
        </Link>
      </p>
      <h2>Start a run</h2>
      <StartForm template={template.data} />
    </section>
  );
}
