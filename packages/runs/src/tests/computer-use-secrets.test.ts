import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lanes, openLanes } from "./lanes-harness.js";

/*
 * A password and a card number typed by computer use reach the page, and nowhere else: not the database
 * file (in plain), not an answer of the lane.
 */

const PASSWORD = "Tr0ub4dor-s3cret-pw";
const CARD = "4111222233334444";

let t: Lanes;

beforeAll(async () => {
  t = await openLanes({ site: { password: PASSWORD } });
}, 60_000);
afterAll(async () => {
  await t.close();
});

/** The database file and its write-ahead log, as bytes. */
function rawDatabase(): Buffer {
  const parts = [t.file, `${t.file}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f));
  return Buffer.concat(parts);
}

/** The sealed secret column of an action, read from the database. */
async function sealedSecret(actionId: string): Promise<unknown> {
  const { rows } = await t.client.execute({
    sql: "SELECT secret_sealed FROM runs_cu_actions WHERE id = ?",
    args: [actionId],
  });
  return rows[0]?.secret_sealed;
}

/** Previews the session's instruction, confirms it when it needs it, and executes it. */
async function act(cusId: string) {
  const action = await t.cu.preview(cusId);
  if (action.require_confirmation) await t.cu.confirm(cusId, action.action_id, { approved: true });
  return { action, result: await t.cu.execute(cusId, action.action_id) };
}

describe("computer use with secrets", { timeout: 90_000 }, () => {
  it("types a password and a card number into the page, keeping both out of the database and every answer", async () => {
    const answers: unknown[] = [];
    const login = await t.sessions.startSession({ start_url: `${t.site.url}/login` });
    const { page } = await t.sessions.livePage(login.id);
    await page.getByLabel("Email").fill(t.site.email);

    const typePw = await t.cu.createSession({
      instruction: `type "${PASSWORD}" into Password`,
      session_id: login.id,
    });
    expect(typePw.instruction).toBe("type [redacted] into Password");
    const pwAction = await t.cu.preview(typePw.id);
    // Until it runs, the action keeps the password sealed (it has to type it); once run, not at all.
    expect(await sealedSecret(pwAction.action_id)).toMatch(/^v1:/);
    const pw = { action: pwAction, result: await t.cu.execute(typePw.id, pwAction.action_id) };
    expect(await sealedSecret(pwAction.action_id)).toBeNull();
    expect(pw.result).toMatchObject({ ok: true, action: { args: { text: "[redacted]" } } });
    // The real password was typed: signing in works.
    const signIn = await t.cu.createSession({ instruction: "click Sign in", session_id: login.id });
    expect((await act(signIn.id)).result).toMatchObject({ ok: true, url_after: `${t.site.url}/account` });
    answers.push(typePw, pw, await t.cu.getSession(typePw.id), await t.cu.listEvidence(typePw.id));

    const shop = await t.sessions.startSession({ start_url: `${t.site.url}/frames` });
    const typeCard = await t.cu.createSession({
      instruction: `type ${CARD} into Card number`,
      session_id: shop.id,
    });
    const card = await act(typeCard.id);
    expect(card.action).toMatchObject({ risk_level: "critical", args: { text: "[redacted]" } });
    expect(card.result).toMatchObject({ ok: true });
    const pay = await t.cu.createSession({ instruction: "click Pay now", session_id: shop.id });
    const paid = await act(pay.id);
    expect(paid.result).toMatchObject({ ok: true });
    expect(t.site.cardsPaidWith()).toEqual([CARD]);
    answers.push(
      typeCard,
      card,
      paid,
      await t.cu.getSession(typeCard.id),
      await t.cu.listEvidence(typeCard.id),
    );
    answers.push(await t.cu.listEvidence(pay.id));

    const shown = JSON.stringify(answers);
    expect(shown).not.toContain(PASSWORD);
    expect(shown).not.toContain(CARD);
    await t.sessions.finishSession(login.id);
    await t.sessions.finishSession(shop.id);
    const raw = rawDatabase();
    // Read after the recording sessions finished (they store what they saw too). The reader sees what
    // the lane stored (the redacted instruction), and no plain secret.
    expect(raw.includes("type [redacted] into Password")).toBe(true);
    expect(raw.includes(PASSWORD)).toBe(false);
    expect(raw.includes(CARD)).toBe(false);
  });

  it("finds a password field by its type, and keeps what the page echoes of it out of the evidence", async () => {
    const secret = "plum-velvet-42";
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/reveal` });
    const cus = await t.cu.createSession({
      instruction: `type "${secret}" into Secret word`,
      session_id: session.id,
    });
    const { action, result } = await act(cus.id);
    expect(action.args).toMatchObject({ field: "Secret word", text: "[redacted]" });
    expect(result).toMatchObject({ ok: true });
    // The page shows the text it was typed: the real one, kept out of the stored summary.
    const { page } = await t.sessions.livePage(session.id);
    expect(await page.locator("#echo").textContent()).toBe(`You typed: ${secret}`);
    expect(result.accessibility_summary).toContain("You typed: [redacted]");
    const answers = [action, result, await t.cu.getSession(cus.id), await t.cu.listEvidence(cus.id)];
    expect(JSON.stringify(answers)).not.toContain(secret);
    await t.sessions.finishSession(session.id);
  });

  it("masks the card field inside the provider's frame in the after screenshot", async () => {
    const shop = await t.sessions.startSession({ start_url: `${t.site.url}/frames` });
    const afterShot = async (card: string) => {
      const cus = await t.cu.createSession({
        instruction: `type ${card} into Card number`,
        session_id: shop.id,
      });
      const { result } = await act(cus.id);
      expect(result).toMatchObject({ ok: true });
      return result.evidence.find((e) => e.kind === "after_screenshot")?.sha256;
    };
    // Two numbers of one length: a masked field looks the same whatever it holds.
    const first = await afterShot("5555666677778888");
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await afterShot("9999000011112222")).toBe(first);
    await t.sessions.finishSession(shop.id);
  });
});
