import { useQueryClient } from "@tanstack/react-query";
import { Link, Outlet } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { GateNotifier } from "../features/notify/GateNotifier.js";
import { onUnauthorized } from "../queries.js";
import { TokenPrompt } from "./TokenPrompt.js";
import { type ThemeChoice, useTheme } from "./theme.js";

/** The app shell: header with nav (Runs, Files, Comparison, API docs), theme toggle, token prompt. */
export function Layout() {
  const [theme, setTheme] = useTheme();
  const [askToken, setAskToken] = useState(false);
  const queryClient = useQueryClient();
  useEffect(() => onUnauthorized(() => setAskToken(true)), []);
  return (
    <div className="app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Vetted
        </Link>
        <nav aria-label="Main">
          <Link to="/runs" activeProps={{ "aria-current": "page" }}>
            Runs
          </Link>
          <Link to="/files" activeProps={{ "aria-current": "page" }}>
            Files
          </Link>
          <Link to="/comparison" activeProps={{ "aria-current": "page" }}>
            Comparison
          </Link>
          <Link to="/notifications" activeProps={{ "aria-current": "page" }}>
            Notifications
          </Link>
          <a href="/api/docs">API docs</a>
        </nav>
        <label className="theme">
          Theme{" "}
          <select value={theme} onChange={(e) => setTheme(e.target.value as ThemeChoice)}>
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </header>
      <main id="main">
        <GateNotifier />
        <Outlet />
      </main>
      {askToken ? (
        <TokenPrompt
          onDone={() => {
            setAskToken(false);
            void queryClient.invalidateQueries();
          }}
        />
      ) : null}
    </div>
  );
}
