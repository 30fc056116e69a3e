// Keyboard shortcuts at a table (issue 38): Alt+Shift and a letter reach the action bar, the
// seats and the chat box from anywhere, where Tab took 12 to 22 presses. A modifier, never
// a bare letter: a letter alone would type into the chat box, and WCAG 2.1.4 asks that a
// single-character shortcut can be turned off. The letters avoid Chromium's own Alt+Shift
// ones (A, B, I, T). The first time a keyboard player is at a game, the page tells them the
// list (announced, and in a note on screen); Alt+Shift+K tells it again, and the rules
// dialog and docs/accessibility.md hold it.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { announce, note, topModal } from "./dialogs.js";

/** Each shortcut's letter and what it reaches (the names of keys.* in the locales). */
export const SHORTCUTS = [
  { letter: "P", target: "actions" },
  { letter: "S", target: "seats" },
  { letter: "C", target: "chat" },
  { letter: "K", target: "list" },
];

const TOLD_KEY = "trusis.keys.told";

/** The letter a key press means: the one typed, or where a modifier makes it another sign
 * (macOS's Option+Shift+P is "∏") the key's place on the keyboard. */
function letterOf(ev) {
  if (/^[a-z]$/i.test(ev.key)) return ev.key.toUpperCase();
  const place = /^Key([A-Z])$/.exec(ev.code || "");
  return place ? place[1] : null;
}

/** "Alt+Shift+P: the action bar · …", in the player's language. */
export function shortcutList() {
  return SHORTCUTS.map((s) => t("keys.one", { keys: t("keys.combo", { letter: s.letter }), what: t(`keys.${s.target}`) })).join(" · ");
}

/** The list as the rules dialog shows it (the page's own help). */
export function shortcutHelp() {
  return h("section", { class: "keys-help", attrs: { "aria-labelledby": "keys-title" } },
    h("h3", { id: "keys-title" }, t("keys.title")),
    h("ul", {}, SHORTCUTS.map((s) => h("li", {},
      h("kbd", {}, t("keys.combo", { letter: s.letter })), " ", t(`keys.${s.target}`)))),
    h("p", { class: "hint" }, t("keys.seat_tab")));
}

function told() {
  try { return localStorage.getItem(TOLD_KEY) === "yes"; } catch { return false; }
}

function remember() {
  try { localStorage.setItem(TOLD_KEY, "yes"); } catch { /* storage may be off */ }
}

/** Say the list: announced, and a note on screen for a sighted keyboard player. */
export function tellShortcuts() {
  const text = `${t("keys.intro")} ${shortcutList()}`;
  announce(text);
  note(text, { quiet: true, seconds: 20, kind: "keys" });
}

/**
 * Listen at a table: `go(target)` moves the focus ("actions", "seats", "chat");
 * `playing()` says whether a game runs here (the list is told at the first Tab then).
 * Returns the function that stops listening.
 */
export function listenForShortcuts({ go, playing }) {
  const onKey = (ev) => {
    if (ev.key === "Tab" && !told() && playing()) {
      remember();
      tellShortcuts();
      return;
    }
    if (!ev.altKey || !ev.shiftKey || ev.ctrlKey || ev.metaKey) return;
    const shortcut = SHORTCUTS.find((s) => s.letter === letterOf(ev));
    if (!shortcut || topModal()) return;  // a dialog keeps the focus until it is closed
    ev.preventDefault();
    remember();
    if (shortcut.target === "list") tellShortcuts();
    else go(shortcut.target);
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
