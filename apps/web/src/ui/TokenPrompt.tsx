import { type FormEvent, useState } from "react";
import { setToken } from "../api/client.js";

/** Asks once for the API token (401 `UNAUTHORIZED`); it is kept in sessionStorage for this tab only. */
export function TokenPrompt({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim() === "") return;
    setToken(value.trim());
    onDone();
  };
  return (
    <div className="modal-backdrop">
      <form className="modal" onSubmit={submit} aria-labelledby="token-title">
        <h2 id="token-title">API token required</h2>
        <p>This server requires its API token (VETTED_API_TOKEN). It is kept for this browser tab only.</p>
        <label>
          Token
          <input
            type="password"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            autoComplete="off"
          />
        </label>
        <button type="submit">Continue</button>
      </form>
    </div>
  );
}
