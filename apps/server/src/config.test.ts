import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("defaults to 127.0.0.1:8787 and a file database under the data directory", () => {
    const config = loadConfig({ VETTED_DATA_DIR: "/tmp/vetted-data" });
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 8787,
      databaseUrl: "file:/tmp/vetted-data/vetted.db",
      databaseIsFile: true,
      apiToken: undefined,
    });
  });

  it("takes a libsql:// URL with an auth token for a shared server", () => {
    const config = loadConfig({ DATABASE_URL: "libsql://db.example.turso.io", DATABASE_AUTH_TOKEN: "t" });
    expect(config).toMatchObject({ databaseIsFile: false, databaseAuthToken: "t" });
  });

  it("explains a bad PORT", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT: PORT must be a number/);
  });

  it("refuses a non-loopback HOST without a token", () => {
    expect(() => loadConfig({ HOST: "0.0.0.0" })).toThrow(ConfigError);
    expect(() => loadConfig({ HOST: "0.0.0.0" })).toThrow(/set VETTED_API_TOKEN/);
    expect(loadConfig({ HOST: "0.0.0.0", VETTED_API_TOKEN: "0123456789abcdef" }).host).toBe("0.0.0.0");
  });

  it("refuses an unknown database scheme", () => {
    expect(() => loadConfig({ DATABASE_URL: "postgres://x" })).toThrow(/DATABASE_URL must start with/);
  });

  it("reads the run engine's settings with sane defaults", () => {
    expect(loadConfig({}).frontendUrl).toBeUndefined();
    expect(loadConfig({})).toMatchObject({
      protectedProviderDomains: expect.arrayContaining(["stripe.com", "js.stripe.com"]),
      runsLeaseMs: 30_000,
      runsPollMs: 500,
      runsConcurrency: 4,
    });
    expect(
      loadConfig({
        VETTED_PROTECTED_PROVIDER_DOMAINS: "pay.example, 127.0.0.2",
        VETTED_RUNS_LEASE_MS: "1000",
        VETTED_RUNS_POLL_MS: "50",
      }),
    ).toMatchObject({
      protectedProviderDomains: ["pay.example", "127.0.0.2"],
      runsLeaseMs: 1000,
      runsPollMs: 50,
    });
  });

  it("reads VETTED_SECRETS_KEY and refuses a short one", () => {
    expect(loadConfig({}).secretsKey).toBeUndefined();
    expect(loadConfig({ VETTED_SECRETS_KEY: "a-long-enough-secrets-key" }).secretsKey).toBe(
      "a-long-enough-secrets-key",
    );
    expect(() => loadConfig({ VETTED_SECRETS_KEY: "short" })).toThrow(
      /VETTED_SECRETS_KEY must be at least 16/,
    );
  });

  it("refuses a frontend URL that is not absolute", () => {
    expect(() => loadConfig({ VETTED_FRONTEND_URL: "/register" })).toThrow(
      /VETTED_FRONTEND_URL must be an absolute URL/,
    );
  });

  it("reads request timeouts tighter than Node's defaults and refuses headers slower than the request", () => {
    expect(loadConfig({})).toMatchObject({ headersTimeoutMs: 15_000, requestTimeoutMs: 60_000 });
    expect(loadConfig({ VETTED_HEADERS_TIMEOUT_MS: "500", VETTED_REQUEST_TIMEOUT_MS: "1000" })).toMatchObject(
      { headersTimeoutMs: 500, requestTimeoutMs: 1000 },
    );
    expect(() => loadConfig({ VETTED_REQUEST_TIMEOUT_MS: "Infinity" })).toThrow(/VETTED_REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ VETTED_HEADERS_TIMEOUT_MS: "50" })).toThrow(/at least 100/);
    expect(() =>
      loadConfig({ VETTED_HEADERS_TIMEOUT_MS: "5000", VETTED_REQUEST_TIMEOUT_MS: "1000" }),
    ).toThrow(/must not exceed VETTED_REQUEST_TIMEOUT_MS/);
  });
});
