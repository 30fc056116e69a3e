// Confirmations, banners, result cards and the polite screen-reader announcements.

import { $, append, focusLost, h, prefersReducedMotion } from "./dom.js";
import { t } from "./i18n.js";

/**
 * Show `dlg` as a modal dialog with an announcer of its own. While a modal dialog is open,
 * Chromium leaves everything outside it out of the accessibility tree (`activeModalDialog`),
 * the page's announcer included: what is announced meanwhile is said in the dialog's own
 * live region too (announce), which exists before its first line, as live regions must.
 */
export function openModal(dlg) {
  if (!dlg.querySelector(":scope > .dialog-announcer")) {
    dlg.append(h("div", { class: "sr-only dialog-announcer", attrs: { role: "log", "aria-live": "polite", "aria-relevant": "additions" } }));
  }
  dlg.showModal();
}

/** The modal dialog on top (the last one opened), or null. */
export function topModal() {
  const open = [...document.querySelectorAll("dialog[open]")].filter((d) => d.matches(":modal"));
  return open[open.length - 1] || null;
}

/**
 * Open `dlg` as a modal dialog; Escape closes it too. Returns the function that closes
 * it, once (later calls do nothing), removes it from the page and then calls `onClose`.
 * The focus goes back where it was — or, when that control is gone (the dialog closed by
 * itself as its phase ended and the bar was drawn again), to the action bar or the main
 * content: never to <body> (WCAG 2.4.3).
 */
export function showModal(dlg, onClose = null) {
  let closed = false;
  const before = document.activeElement;
  const close = () => {
    if (closed) return;
    closed = true;
    dlg.close();
    dlg.remove();
    onClose?.();
    if (!focusLost()) return;
    const back = before && before !== document.body && before.isConnected && !before.disabled ? before : null;
    // The control it came from, drawn anew (data-focus names it across redraws).
    const key = before?.dataset?.focus;
    const again = key ? [...document.querySelectorAll(`[data-focus="${CSS.escape(key)}"]`)].find((el) => !el.disabled) : null;
    for (const el of [back, again, $(".actions:not([hidden])"), $("#main")]) {
      el?.focus();
      if (el && !focusLost()) break;
    }
  };
  dlg.addEventListener("cancel", (ev) => { ev.preventDefault(); close(); });
  document.body.append(dlg);
  openModal(dlg);
  return close;
}

const SPOKEN = 40; // lines kept in the announcer (older ones are dropped)

function addLines(region, lines) {
  for (const line of lines) region.append(h("p", {}, String(line)));
  while (region.childElementCount > SPOKEN) region.firstElementChild.remove();
}

/**
 * Say something to screen readers, politely: each call adds lines to the announcer (a
 * role="log" live region in index.html), so announcements in a row are all read rather
 * than replacing each other, and the tests read them back from its text. While a modal
 * dialog is open the announcer is out of the accessibility tree: the lines go to the
 * dialog's own live region as well (openModal), and are heard there.
 */
export function announce(text) {
  const region = $("#announcer");
  if (!region) return;
  const lines = (Array.isArray(text) ? text : [text]).filter(Boolean);
  if (!lines.length) return;
  addLines(region, lines);
  const inDialog = topModal()?.querySelector(":scope > .dialog-announcer");
  if (inDialog) addLines(inDialog, lines);
}

/** A new screen (another table, the lobby, the ban page) starts with an empty announcer:
 * a screen reader that reads it through finds nothing of the last game there. */
export function clearAnnouncer() {
  const region = $("#announcer");
  while (region?.firstChild) region.firstChild.remove();
}

/**
 * A banner (dawn, dusk, deaths, revivals): one box for the lines of one batch of events,
 * replacing the one before, with the same words for screen readers.
 */
export function banner(lines, kind = "info") {
  const host = $("#banners");
  if (!host) return;
  const list = Array.isArray(lines) ? lines : [lines];
  const el = h("div", { class: ["banner", `banner-${kind}`] }, list.map((line) => h("p", {}, line)));
  while (host.firstChild) host.firstChild.remove();
  host.append(el);
  const life = (prefersReducedMotion() ? 5000 : 3000) + 600 * list.length;
  setTimeout(() => {
    el.classList.add("banner-out");
    setTimeout(() => el.remove(), prefersReducedMotion() ? 0 : 400);
  }, life);
  announce(list.join(". "));
}

/** Take down the banner on screen (the end screen needs the room it covers). */
export function clearBanners() {
  const host = $("#banners");
  while (host?.firstChild) host.firstChild.remove();
}

/**
 * A modal question. Resolves true when confirmed. `danger` styles the confirm button as an
 * irreversible act, and then the focus starts on Cancel so a stray Enter does nothing.
 */
export function confirmDialog({ title, body, confirm, cancel, danger = false, extra = null, stale = null, first = null }) {
  return new Promise((resolve) => {
    const dlg = h("dialog", { class: "dialog", attrs: { "aria-labelledby": "dlg-title" } });
    const no = h("button", { class: "btn", type: "button", text: cancel || t("cancel") });
    const yes = h("button", {
      class: ["btn", danger ? "btn-danger" : "btn-primary"], type: "button", text: confirm || t("ok"),
    });
    append(dlg, [
      h("h2", { id: "dlg-title", class: "dialog-title" }, title),
      body ? h("p", { class: "dialog-body" }, body) : null,
      extra,
      h("div", { class: "dialog-buttons" }, no, yes),
    ]);
    let answer = false;
    const watch = stale ? () => {
      const why = stale();
      if (!why) return false;
      answer = false;
      close();
      note(why);
      return true;
    } : null;
    const close = showModal(dlg, () => { if (watch) watched.delete(watch); resolve(answer); });
    if (watch) watched.add(watch);
    no.addEventListener("click", close);
    // Confirming asks once more: an answer never acts on a question that no longer holds.
    yes.addEventListener("click", () => { if (watch?.()) return; answer = true; close(); });
    // `first`: a field of `extra` to fill first (the illusion's two seats), else a button.
    (first || (danger ? no : yes)).focus();
  });
}

/** The open questions about an action, each with its own test of whether it still holds. */
const watched = new Set();

/**
 * Close every open question about an action that no longer holds (the phase changed, the
 * game ended, the action is no longer legal), each with a note that says why. The table
 * calls it on every change of the game.
 */
export function recheckDialogs() {
  for (const watch of [...watched]) watch();
}

/**
 * A short note that stays a while (or until closed): why a question went away unanswered.
 * `quiet`: not a live region of its own (what it says was announced already).
 */
export function note(text, { quiet = false, seconds = 12, kind = null } = {}) {
  const host = $("#cards");
  if (!host) return;
  // A note of the same kind is replaced, not stacked under the new one.
  if (kind) for (const old of host.querySelectorAll(`.dialog-note[data-kind="${CSS.escape(kind)}"]`)) old.remove();
  const ok = h("button", { class: "btn btn-small", type: "button", text: t("ok") });
  const el = h("div", { class: "dialog-note", dataset: kind ? { kind } : null, attrs: { role: quiet ? null : "status" } }, h("p", {}, text), ok);
  ok.addEventListener("click", () => {
    const had = el.contains(document.activeElement);
    el.remove();
    if (had) $("#main")?.focus();
  });
  host.append(el);
  setTimeout(() => {
    const had = el.contains(document.activeElement);
    el.remove();
    if (had) $("#main")?.focus();  // closed by itself: the focus is not left on <body>
  }, seconds * 1000);
}

/**
 * A private result (a sweep, a vision, the Gravekeeper's news) as a card that stays until
 * the player closes it with its own button — a click elsewhere never dismisses it, and the
 * button wakes up after a moment so a tap meant for something else cannot close it. `host`:
 * where it goes (the table puts it in its own flow, where it covers nothing).
 */
export function resultCard(title, text, host = $("#cards")) {
  if (!host) return;
  const ok = h("button", { class: "btn btn-primary", type: "button", text: t("result.ok"), disabled: true });
  const card = h("section", {
    class: "result-card", attrs: { role: "alertdialog", "aria-label": title, tabindex: "-1" },
  }, h("h2", { class: "result-title" }, "◆ ", title), h("p", { class: "result-text" }, text), ok);
  // An alertdialog takes focus (WCAG 2.4.3), and gives it back where the player was.
  const before = document.activeElement;
  ok.addEventListener("click", () => {
    card.remove();
    const back = before && before !== document.body && before.isConnected ? before : null;
    for (const el of [back, host.querySelector(".result-card"), $(".actions:not([hidden])"), $("#main")]) {
      el?.focus();
      if (el && document.activeElement === el) break;
    }
  });
  host.append(card);
  card.focus();
  setTimeout(() => { ok.disabled = false; }, 700);
  announce(`${title}: ${text}`);
}
