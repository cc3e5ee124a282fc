/*
 * What computer use treats as secret: text typed into a password or payment-card field. Such text is
 * kept only sealed and every answer shows it as {@link SECRET_SHOWN}. Pure.
 */

/** How a secret typed text shows in every answer and stored view. */
export const SECRET_SHOWN = "[redacted]";

/** Names of fields whose text is secret: passwords, PINs, card numbers, security codes, IBANs. */
export const SECRET_FIELD_WORDS =
  /\bpass(?:word|code|phrase)?\b|\bpin\b|card|\bcc-|\bcvc|\bcvv|\bcsc\b|security\s*code|\bexp(?:iry|iration)?\b|iban|account\s*number/i;

/** What is known of a field an action types into: its accessible name and, from the page, its attributes. */
export interface FieldFacts {
  /** The accessible name (the label). */
  name: string;
  type?: string | undefined;
  autocomplete?: string | undefined;
  /** The field's `name` and `id` attributes. */
  attributes?: readonly string[] | undefined;
}

/**
 * Whether text typed into the field is secret: a password input, an `autocomplete` of `cc-*`,
 * `*password` or `one-time-code`, or a label/name/id naming a password, PIN, card, security code or IBAN.
 */
export function isSecretField(field: FieldFacts): boolean {
  if ((field.type ?? "").toLowerCase() === "password") return true;
  const autocomplete = (field.autocomplete ?? "").toLowerCase();
  if (/(^|\s)(cc-|one-time-code|current-password|new-password)/.test(autocomplete)) return true;
  return [field.name, ...(field.attributes ?? [])].some((s) => SECRET_FIELD_WORDS.test(s));
}

const TYPE_VERB = /^(\s*(?:type|enter|fill\s+in)\s+)/i;
const INTO = /\s+(?:into|in)\s+/gi;

/**
 * The instruction as it may be stored and shown when it types into a field named as secret
 * (`type "hunter2" into Password` → `type [redacted] into Password`); undefined when it does not. Every
 * way of splitting it at " into "/" in " is tried (the planner splits at the first, a secret may hold
 * one), and all but the last field name is hidden. A field that is secret only by its attributes is found
 * at preview, on the page.
 */
export function secretInstructionShown(instruction: string): string | undefined {
  const verb = TYPE_VERB.exec(instruction)?.[1];
  if (verb === undefined) return undefined;
  const rest = instruction.slice(verb.length);
  const splits = [...rest.matchAll(INTO)];
  const secret = splits.some((m) => isSecretField({ name: rest.slice(m.index + m[0].length) }));
  const last = splits.at(-1);
  if (!secret || last === undefined) return undefined;
  return `${verb}${SECRET_SHOWN}${last[0]}${rest.slice(last.index + last[0].length)}`;
}
