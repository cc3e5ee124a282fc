import { useMutation } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { api, idempotencyKey, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { ErrorState } from "../../ui/states.js";

export type ParamSpec = components["schemas"]["ParamSpec"];
type CreateRun = components["schemas"]["CreateRunInput"];
/** What a run starts from: a template (its params schema) or a bare flow (the params its steps read). */
export type RunOrigin = { template_id: string } | { flow_id: string };

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

/** Starts a run (`POST /api/runs` with an `Idempotency-Key`) and opens its page. */
export function useStartRun() {
  const navigate = useNavigate();
  return useMutation({
    mutationFn: (body: CreateRun) =>
      unwrap(api.POST("/api/runs", { params: { header: { "idempotency-key": idempotencyKey() } }, body })),
    onSuccess: (run) => void navigate({ to: "/runs/$runId", params: { runId: run.id } }),
  });
}

/** A form with one field per param; empty fields are left out (the template's defaults apply). */
export function StartRunForm({
  origin,
  specs,
  defaults = {},
}: {
  origin: RunOrigin;
  specs: ParamSpec[];
  defaults?: Record<string, unknown>;
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(specs.map((p) => [p.key, String(defaults[p.key] ?? "")])),
  );
  const start = useStartRun();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const params = Object.fromEntries(
      specs.flatMap((spec) => {
        const raw = values[spec.key] ?? "";
        return raw === "" ? [] : [[spec.key, coerce(spec, raw)]];
      }),
    );
    start.mutate({ ...origin, params });
  };
  return (
    <form
      onSubmit={submit}
      aria-label="Start a run"
      style={{ display: "grid", gap: "0.6rem", maxWidth: "28rem" }}
    >
      {specs.length === 0 ? <p className="muted">This run takes no params.</p> : null}
      {specs.map((spec) => (
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
