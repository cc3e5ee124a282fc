import { type FormEvent, useState } from "react";
import type { components } from "../../api/schema.js";
import { ErrorState } from "../../ui/states.js";
import { checkInput } from "./input-check.js";
import type { GateAnswer } from "./resume.js";
import { relative } from "./time.js";

type Run = components["schemas"]["Run"];
/** The server's limit on an approval comment. */
const MAX_COMMENT = 2000;

/** What a gate form answers through: the page's one answer at a time, and what to do first. */
interface FormProps {
  run: Run;
  resume: GateAnswer;
  /** Set while this tab holds the run's page: hand it back before the answer. */
  before?: (() => Promise<void>) | undefined;
}

function OtpForm({ run, resume, before }: FormProps) {
  const [code, setCode] = useState("");
  const ctx = run.wait_context;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    resume.answer({ kind: "otp", otp_code: code.trim(), expected_version: run.version }, before);
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

function ApprovalForm({ run, resume, before }: FormProps) {
  const [comment, setComment] = useState("");
  const domain = run.wait_context?.provider_domain;
  const answer = (approved: boolean) =>
    resume.answer(
      {
        kind: "approval",
        approved,
        expected_version: run.version,
        ...(comment.trim() === "" ? {} : { comment: comment.trim() }),
      },
      before,
    );
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

function InputForm({ run, resume, before }: FormProps) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  const rules = run.wait_context?.input_schema;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const issue = checkInput(text, rules);
    setProblem(issue);
    if (issue === undefined)
      resume.answer({ kind: "input", input_text: text, expected_version: run.version }, before);
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

/**
 * The form the run's `wait_context` describes: OTP, approval (provider domain prominent) or text input.
 * While this tab holds the run's page (`before` set), an answer hands the page back first.
 */
export function GateForm({ run, resume, before }: FormProps) {
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
      {kinds.includes("otp") ? <OtpForm run={run} resume={resume} before={before} /> : null}
      {kinds.includes("approval") ? <ApprovalForm run={run} resume={resume} before={before} /> : null}
      {kinds.includes("input") ? <InputForm run={run} resume={resume} before={before} /> : null}
    </section>
  );
}
