import { createHmac } from "node:crypto";
import type { Scope } from "../domain/interpolate.js";
import { references } from "../domain/interpolate.js";
import { isTerminal } from "../domain/status.js";
import {
  type EventDraft,
  type GateValues,
  REDACTED,
  type RunState,
  type Transition,
} from "../domain/transitions.js";
import { createRedactor, type Redactor } from "../kernel/redactor.js";
import { createSecretBox } from "../kernel/secret-box.js";
import type { Step } from "./steps/registry.js";
import type { RunRow } from "./views.js";

/**
 * A run's sealed values as stored in its `secrets` column: slot → `v1:` ciphertext. Slots are `p:<key>`
 * (a secret param), `v:<name>` (a var whose value holds a live secret or code) and `otp` (the one-time
 * code a gate received, until the step that sends it finishes).
 */
export type SealedSlots = Record<string, string>;

const PARAM = "p:";
const VAR = "v:";
const OTP = "otp";

/** A run's sealed values, decrypted in memory. */
export interface OpenedVault {
  secrets: Record<string, string>;
  vars: Record<string, unknown>;
  otpCode: string | undefined;
  /** Slots that did not decrypt (another key, or an altered ciphertext). */
  unreadable: string[];
}

/** A transition made safe to store: sealed, redacted, codes erased where they are spent. */
export interface ProtectedTransition {
  state: RunState;
  events: EventDraft[];
  slots: SealedSlots;
}

function contextOf(runId: string, slot: string): string {
  return `run:${runId}\u0000${slot}`;
}

function isPlainCode(code: string | undefined): code is string {
  return code !== undefined && code !== "" && code !== REDACTED;
}

/**
 * The run engine's guard of secrets at rest: seals secret params, one-time codes and vars holding them
 * under the installation key (AES-256-GCM), opens them in memory for a step, and turns every transition
 * into what may be written — secrets and codes sealed or redacted, everything else passed through a
 * {@link Redactor} that knows the run's values.
 */
export class RunVault {
  private readonly box: ReturnType<typeof createSecretBox>;
  private readonly digestKey: Buffer;

  constructor(key: Buffer) {
    this.box = createSecretBox(key);
    this.digestKey = createHmac("sha256", key).update("vetted-runs/request-digest").digest();
  }

  /** Seals a new run's secret params. */
  sealParams(runId: string, secrets: Record<string, string>): SealedSlots {
    const slots: SealedSlots = {};
    for (const [name, value] of Object.entries(secrets)) {
      slots[`${PARAM}${name}`] = this.box.seal(JSON.stringify(value), contextOf(runId, `${PARAM}${name}`));
    }
    return slots;
  }

  /** Decrypts a run's slots in memory; a slot that does not verify is listed in `unreadable`. */
  open(row: Pick<RunRow, "id" | "secrets">): OpenedVault {
    const opened: OpenedVault = { secrets: {}, vars: {}, otpCode: undefined, unreadable: [] };
    for (const [slot, sealed] of Object.entries(row.secrets)) {
      const text = this.box.open(sealed, contextOf(row.id, slot));
      let value: unknown;
      try {
        value = text === undefined ? undefined : JSON.parse(text);
      } catch {
        value = undefined;
      }
      if (value === undefined) opened.unreadable.push(slot);
      else if (slot.startsWith(PARAM) && typeof value === "string")
        opened.secrets[slot.slice(PARAM.length)] = value;
      else if (slot.startsWith(VAR)) opened.vars[slot.slice(VAR.length)] = value;
      else if (slot === OTP && typeof value === "string") opened.otpCode = value;
      else opened.unreadable.push(slot);
    }
    return opened;
  }

  /** What a step's `${…}` references see: sealed vars and the sealed code in plain, in memory only. */
  scopeOf(row: RunRow, state: RunState, opened: OpenedVault): Scope {
    const vars: Record<string, unknown> = { ...state.vars };
    for (const [name, value] of Object.entries(state.vars)) {
      if (value === REDACTED && Object.hasOwn(opened.vars, name)) vars[name] = opened.vars[name];
    }
    const otp = state.gate.otp_code === REDACTED ? opened.otpCode : state.gate.otp_code;
    return {
      params: row.params,
      vars,
      secrets: opened.secrets,
      gate: {
        ...(otp === undefined ? {} : { otp_code: otp }),
        ...(state.gate.input_text === undefined ? {} : { input_text: state.gate.input_text }),
      },
    };
  }

  /**
   * Turns `t` (a transition of `row`) into what may be stored. Secret params stay sealed; a one-time code
   * is sealed while live and erased once spent; a var holding a live secret or code is sealed (stored as
   * `[redacted]`), one holding a spent code is erased; the wait context, the error and every event pass
   * through the redactor. When the run ends, nothing sealed remains.
   */
  protect(row: RunRow, t: Transition): ProtectedTransition {
    const opened = this.open(row);
    const s = t.state;
    const ending = isTerminal(s.status);
    const newCode = isPlainCode(s.gate.otp_code) ? s.gate.otp_code : undefined;
    const liveCode = ending
      ? undefined
      : (newCode ?? (s.gate.otp_code === REDACTED ? opened.otpCode : undefined));
    const secretValues = Object.values(opened.secrets);
    const known = [...secretValues, ...[opened.otpCode, newCode].filter(isPlainCode)];
    const full = createRedactor(known);
    const live = createRedactor(
      ending ? [] : [...secretValues, ...(liveCode === undefined ? [] : [liveCode])],
    );
    const slots: SealedSlots = {};
    const keep = (slot: string) => {
      const sealed = row.secrets[slot];
      if (!ending && sealed !== undefined) slots[slot] = sealed;
    };
    for (const slot of Object.keys(row.secrets)) if (slot.startsWith(PARAM)) keep(slot);

    const vars: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(s.vars)) {
      const slot = `${VAR}${name}`;
      const wasSealed = value === REDACTED;
      if (wasSealed && opened.unreadable.includes(slot)) {
        keep(slot);
        vars[name] = REDACTED;
        continue;
      }
      const plain = wasSealed && Object.hasOwn(opened.vars, name) ? opened.vars[name] : value;
      if (live.reveals(plain)) {
        slots[slot] = this.box.seal(JSON.stringify(plain), contextOf(row.id, slot));
        vars[name] = REDACTED;
      } else {
        vars[name] = full.reveals(plain) ? REDACTED : plain;
      }
    }

    const gate: GateValues = { ...s.gate };
    delete gate.otp_code;
    if (liveCode !== undefined) {
      slots[OTP] =
        newCode === undefined && row.secrets[OTP] !== undefined
          ? row.secrets[OTP]
          : this.box.seal(JSON.stringify(liveCode), contextOf(row.id, OTP));
      gate.otp_code = REDACTED;
    } else if (!ending && s.gate.otp_code === REDACTED && opened.unreadable.includes(OTP)) {
      keep(OTP);
      gate.otp_code = REDACTED;
    } else if (!ending && s.gate.otp_code === "") {
      gate.otp_code = "";
    }

    return {
      state: {
        ...s,
        vars,
        gate,
        wait: full.redactDeep(s.wait),
        error: s.error === null ? null : full.redactText(s.error),
      },
      events: t.events.map((e) => ({ ...e, data: full.redactDeep(e.data) })),
      slots,
    };
  }

  /** Seals a text that belongs to a run (a saved browser storage state) under the slot `slot`. */
  sealText(runId: string, slot: string, text: string): string {
    return this.box.seal(text, contextOf(runId, slot));
  }

  /** Opens what {@link sealText} sealed; undefined when it does not verify. */
  openText(runId: string, slot: string, sealed: string): string | undefined {
    return this.box.open(sealed, contextOf(runId, slot));
  }

  /** A keyed digest (HMAC-SHA256) of request text, so stored request hashes reveal no code or secret. */
  digest(text: string): string {
    return createHmac("sha256", this.digestKey).update(text).digest("hex");
  }
}

/** The vault of one installation key. */
export function createRunVault(key: Buffer): RunVault {
  return new RunVault(key);
}

/**
 * Erases the run's one-time code once the step that sends it has finished: a step that takes time (an
 * `http` request) and references `${gate.otp_code}`. The code is then gone from the gate, and the next
 * {@link RunVault.protect} erases copies of it from vars.
 */
export function spendCode(step: Step, t: Transition): Transition {
  const code = t.state.gate.otp_code;
  if (code === undefined || code === "" || !references(step, "gate", "otp_code")) return t;
  return { ...t, state: { ...t.state, gate: { ...t.state.gate, otp_code: undefined } } };
}

/**
 * `err` with the run's secret values and code redacted from its message and stack, for the host's logs.
 * Anything but an Error passes through the redactor as text.
 */
export function redactError(vault: RunVault, row: RunRow, err: unknown): unknown {
  const opened = vault.open(row);
  const redactor: Redactor = createRedactor([
    ...Object.values(opened.secrets),
    ...(opened.otpCode === undefined ? [] : [opened.otpCode]),
  ]);
  if (!(err instanceof Error)) return redactor.redactDeep(err);
  const safe = new Error(redactor.redactText(err.message));
  safe.name = err.name;
  if (err.stack !== undefined) safe.stack = redactor.redactText(err.stack);
  return safe;
}
