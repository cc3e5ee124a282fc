import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, idempotencyKey, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { ErrorState } from "../../ui/states.js";
import { checkInput } from "./input-check.js";
import { relative } from "./time.js";

type Run = components["schemas"]["Run"];
type Resume = components["schemas"]["ResumeRequest"];
/** The server's limit on an approval comment. */
const MAX_COMMENT = 2000;

/** Resumes the run with an `Idempotency-Key`, refusing if the run moved on (`expected_version`). */
function useResume(run: Run) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Resume) =>
      unwrap(
        api.POST("/api/runs/{run_id}/resume", {
          params: { path: { run_id: run.id }, header: { "idempotency-key": idempotencyKey() } },
          body,
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["run", run.id] }),
  });
}

function OtpForm({ run }: { run: Run }) {
  const [code, setCode] = useState("");
  const resume = useResume(run);
  const ctx = run.wait_context;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    resume.mutate({ kind: "otp", otp_code: code.trim(), expected_version: run.version });
    setCode("");
  };
  return (
    <form onSubmit={submit} className="toolbar">
      <label>
        One-time code{" "}
        <input
          name="otp"
          inputMode="numeric"
          autoComplete="one-time-code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          required
        />
      </label>
      <button type="submit" className="primary" disabled={resume.isPending}>
        Submit code
      </button>
      <span data-testid="otp-attempts">
        Attempts: {ctx?.otp_attempts ?? run.otp_attempts}
        {ctx?.max_otp_attempts === undefined ? "" : ` of ${ctx.max_otp_attempts}`}
      </span>
      {ctx?.reason_code === "otp_rejected" ? (
        <p className="field-error" role="alert">
          The last code was rejected.
        </p>
      ) : null}
      {resume.isError ? <ErrorState error={resume.error} title="The code was not accepted" /> : null}
    </form>
  );
}

function ApprovalForm({ run }: { run: Run }) {
  const resume = useResume(run);
  const [comment, setComment] = useState("");
  const domain = run.wait_context?.provider_domain;
  const answer = (approved: boolean) =>
    resume.mutate({
      kind: "approval",
      approved,
      expected_version: run.version,
      ...(comment.trim() === "" ? {} : { comment: comment.trim() }),
    });
  return (
    <div>
      {domain ? (
        <p>
          Payment provider:{" "}
          <span className="provider-domain" data-testid="provider-domain">
            {domain}
          </span>
        </p>
      ) : null}
      <div style={{ display: "grid", maxWidth: "32rem" }}>
        <label htmlFor="gate-comment">Comment (optional, kept with the run's events)</label>
        <textarea
          id="gate-comment"
          rows={2}
          maxLength={MAX_COMMENT}
          value={comment}
          onChange={(e) => setComment(e.target.value)}
        />
      </div>
      <div className="toolbar">
        <button type="button" className="primary" disabled={resume.isPending} onClick={() => answer(true)}>
          Approve
        </button>
        <button type="button" disabled={resume.isPending} onClick={() => answer(false)}>
          Reject
        </button>
      </div>
      {resume.isError ? <ErrorState error={resume.error} title="The answer was not accepted" /> : null}
    </div>
  );
}

function InputForm({ run }: { run: Run }) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  const resume = useResume(run);
  const rules = run.wait_context?.input_schema;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const issue = checkInput(text, rules);
    setProblem(issue);
    if (issue === undefined)
      resume.mutate({ kind: "input", input_text: text, expected_version: run.version });
  };
  return (
    <form onSubmit={submit} className="toolbar" noValidate>
      <label>
        Your answer{" "}
        <input
          name="input"
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-invalid={problem !== undefined}
          aria-describedby="input-problem"
        />
      </label>
      <button type="submit" className="primary" disabled={resume.isPending}>
        Send
      </button>
      <span id="input-problem" className="field-error" role={problem ? "alert" : undefined}>
        {problem ?? ""}
      </span>
      {resume.isError ? <ErrorState error={resume.error} title="The answer was not accepted" /> : null}
    </form>
  );
}

/** The form the run's `wait_context` describes: OTP, approval (provider domain prominent) or text input. */
export function GateForm({ run }: { run: Run }) {
  const ctx = run.wait_context;
  if (ctx === null) return null;
  const kinds = ctx.allowed_resume_kinds;
  return (
    <section className="gate" aria-labelledby="gate-title">
      <h2 id="gate-title">Waiting: {ctx.prompt}</h2>
      <p className="muted">
        Gate {ctx.reason_code} at step <code>{ctx.at_step_id}</code>, expires{" "}
        {relative(ctx.expires_at, Date.now())}.
      </p>
      {kinds.includes("otp") ? <OtpForm run={run} /> : null}
      {kinds.includes("approval") ? <ApprovalForm run={run} /> : null}
      {kinds.includes("input") ? <InputForm run={run} /> : null}
    </section>
  );
}
