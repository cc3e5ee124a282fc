/**
 * The name of the binding the recorder reports through (`context.exposeBinding`).
 */
export const RECORDER_BINDING = "__vettedRecord";

/**
 * The in-page recorder, installed in every page of a recording session (`context.addInitScript`). It reports
 * the person's clicks, typing (the values of password, card and one-time-code fields replaced by
 * `${secrets.name}` references before they leave the page), choices in a `<select>` and form submissions,
 * each with selector candidates for its target — role + accessible name, label, text, test id, CSS and
 * XPath — scored from 0 to 1 (unique and semantic first). It runs in child frames too (the engine tags
 * their reports with the frame); navigations are reported by the engine from the page's main frame. Plain
 * JavaScript: it runs in the page, not in Node.
 */
export const RECORDER_SCRIPT = String.raw`(() => {
  if (window.__vettedRecorderInstalled) return;
  window.__vettedRecorderInstalled = true;
  const send = (event) => {
    try { window.${RECORDER_BINDING}(JSON.stringify(event)); } catch (_) {}
  };
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const TEXT_TYPES = ["", "text", "email", "password", "search", "tel", "url", "number", "date", "datetime-local", "month", "time", "week"];
  const isTextField = (el) =>
    (el.tagName === "INPUT" && TEXT_TYPES.includes((el.getAttribute("type") || "").toLowerCase())) ||
    el.tagName === "TEXTAREA" || el.isContentEditable === true;

  function roleOf(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(/\s+/)[0];
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "a" && el.hasAttribute("href")) return "link";
    if (tag === "button") return "button";
    if (tag === "input") {
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      if (type === "checkbox") return "checkbox";
      if (type === "radio") return "radio";
      if (type === "search") return "searchbox";
      if (type === "number") return "spinbutton";
      if (TEXT_TYPES.includes(type)) return "textbox";
      return undefined;
    }
    if (tag === "textarea") return "textbox";
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (tag === "option") return "option";
    return undefined;
  }

  function labelText(el) {
    const parts = [];
    if (el.id) {
      for (const l of document.querySelectorAll("label[for]")) if (l.htmlFor === el.id) parts.push(squash(l.textContent));
    }
    const wrap = el.closest("label");
    if (wrap) {
      const copy = wrap.cloneNode(true);
      for (const f of copy.querySelectorAll("input,select,textarea")) f.remove();
      parts.push(squash(copy.textContent));
    }
    return parts.find((p) => p.length > 0);
  }

  function nameOf(el) {
    const aria = squash(el.getAttribute("aria-label"));
    if (aria) return aria;
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const text = squash(by.split(/\s+/).map((id) => document.getElementById(id)?.textContent || "").join(" "));
      if (text) return text;
    }
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (["button", "submit", "reset"].includes(type)) return squash(el.value) || (type === "submit" ? "Submit" : "");
      return labelText(el) || squash(el.getAttribute("placeholder")) || squash(el.getAttribute("title"));
    }
    return squash(el.textContent) || squash(el.getAttribute("title")) || squash(el.getAttribute("alt"));
  }

  function xpathOf(el) {
    if (el.id && document.querySelectorAll("#" + CSS.escape(el.id)).length === 1) return '//*[@id="' + el.id + '"]';
    const steps = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) i++;
      steps.unshift(n.tagName.toLowerCase() + "[" + i + "]");
    }
    return "/" + steps.join("/");
  }

  const unique = (css) => { try { return document.querySelectorAll(css).length === 1; } catch (_) { return false; } };

  function cssOf(el) {
    const tag = el.tagName.toLowerCase();
    if (el.id && !/\d{3,}/.test(el.id) && unique("#" + CSS.escape(el.id))) return { value: "#" + CSS.escape(el.id), score: 0.8 };
    const name = el.getAttribute("name");
    if (name && unique(tag + '[name="' + CSS.escape(name) + '"]')) return { value: tag + '[name="' + CSS.escape(name) + '"]', score: 0.75 };
    const path = [];
    for (let n = el; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) i++;
      path.unshift(n.tagName.toLowerCase() + ":nth-of-type(" + i + ")");
    }
    return { value: path.join(" > "), score: 0.4 };
  }

  function sameRoleAndName(role, name) {
    let count = 0;
    for (const other of document.querySelectorAll("a,button,input,select,textarea,h1,h2,h3,h4,h5,h6,[role]")) {
      if (roleOf(other) === role && nameOf(other) === name) count++;
    }
    return count;
  }

  function targetOf(el) {
    const selectors = [];
    const testid = el.getAttribute("data-testid") || el.getAttribute("data-test-id") || el.getAttribute("data-test");
    if (testid) selectors.push({ kind: "testid", value: testid, score: 0.95 });
    const role = roleOf(el);
    const name = nameOf(el);
    if (role && name) selectors.push({ kind: "role", value: role, name: name.slice(0, 500), score: sameRoleAndName(role, name) === 1 ? 0.9 : 0.6 });
    const label = ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) ? labelText(el) : undefined;
    if (label) selectors.push({ kind: "label", value: label.slice(0, 500), score: 0.85 });
    if (!isTextField(el) && name && name.length <= 80 && el.tagName !== "SELECT") selectors.push({ kind: "text", value: name, score: 0.7 });
    const css = cssOf(el);
    selectors.push({ kind: "css", value: css.value, score: css.score });
    const xpath = xpathOf(el);
    selectors.push({ kind: "xpath", value: xpath, score: xpath.startsWith("//*[@id=") ? 0.5 : 0.3 });
    selectors.sort((a, b) => b.score - a.score);
    const type = el.tagName === "INPUT" ? (el.getAttribute("type") || "text").toLowerCase() : undefined;
    return { selectors, tag: el.tagName.toLowerCase(), ...(type ? { input_type: type } : {}), editable: isTextField(el), key: xpath };
  }

  const secretName = (raw, fallback) => {
    const s = (raw || "").toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64);
    return /^[a-z_][a-z0-9_]*$/.test(s) ? s : fallback;
  };
  const CARD = /card|cc-?num|ccnum|cc-?number|cvc|cvv|csc|expir|exp-?date|cc-/i;
  const OTP = /otp|one[-_ ]?time|verification[-_ ]?code|2fa|totp|mfa|security[-_ ]?code|passcode/i;

  function secretOf(el) {
    if (el.tagName !== "INPUT" && el.tagName !== "TEXTAREA") return undefined;
    const type = (el.getAttribute("type") || "").toLowerCase();
    const auto = (el.getAttribute("autocomplete") || "").toLowerCase();
    const hint = [el.getAttribute("name"), el.id, auto, labelText(el), el.getAttribute("placeholder")].join(" ");
    const named = el.getAttribute("name") || el.id;
    if (type === "password") return { kind: "password", name: secretName(named, "password") };
    if (auto.startsWith("cc-") || CARD.test(hint)) return { kind: "card", name: secretName(named, "card_number") };
    if (auto === "one-time-code" || OTP.test(hint)) return { kind: "otp", name: secretName(named, "otp_code") };
    return undefined;
  }

  let lastClick = { el: undefined, at: 0 };
  const actionable = (el) => (el instanceof Element ? el.closest("a,button,input,select,textarea,label,option,[role],[data-testid]") || el : undefined);

  document.addEventListener("click", (e) => {
    const el = actionable(e.target);
    if (!el) return;
    lastClick = { el, at: Date.now() };
    send({ kind: "click", url: location.href, target: targetOf(el) });
  }, true);

  document.addEventListener("input", (e) => {
    const el = e.target;
    if (!(el instanceof Element) || !isTextField(el)) return;
    const secret = secretOf(el);
    const value = secret ? "\${secrets." + secret.name + "}" : String(el.value ?? el.textContent ?? "");
    send({ kind: "type", url: location.href, target: targetOf(el), value: value.slice(0, 10000), ...(secret ? { secret } : {}) });
  }, true);

  document.addEventListener("change", (e) => {
    const el = e.target;
    if (!(el instanceof HTMLSelectElement)) return;
    const option = el.selectedOptions[0];
    if (!option) return;
    send({ kind: "select", url: location.href, target: targetOf(el), option: squash(option.label || option.textContent) || option.value });
  }, true);

  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement)) return;
    const submitter = e.submitter || form.querySelector('[type="submit"],button:not([type])');
    const clicked = lastClick.el;
    const byClick = clicked !== undefined && Date.now() - lastClick.at < 1500 && submitter !== null && (clicked === submitter || submitter.contains(clicked));
    send({ kind: "submit", url: location.href, by_click: Boolean(byClick), ...(submitter ? { submitter: targetOf(submitter) } : {}) });
  }, true);
})();`;
