import type { ReactNode } from "react";
import { ApiError } from "../api/client.js";

/** An error shown with the server's `code` and `message` (or the thrown error's message). */
export function ErrorState({ error, title = "Something went wrong" }: { error: unknown; title?: string }) {
  const code = error instanceof ApiError ? error.code : "CLIENT_ERROR";
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="state state-error" role="alert">
      <strong>{title}</strong>
      <p>
        <code className="error-code">{code}</code> <span className="error-message">{message}</span>
      </p>
    </div>
  );
}

/** An empty state: what is missing and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <strong>{title}</strong>
      {children === undefined ? null : <div>{children}</div>}
    </div>
  );
}

/** A loading line. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="state state-loading" aria-busy="true">
      Loading {what}…
    </p>
  );
}

/**
 * A table's horizontal scroller: on a narrow screen the table scrolls inside it instead of widening the
 * page. Focusable and named, so a keyboard user can scroll it too.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
