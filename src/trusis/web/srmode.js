// The screen-reader mode (opt-in, remembered in this browser, like lichess's blind mode):
// the seats as a flat list, every vote, withdrawal, pass, tally change and chat line spoken
// through the announcer, at a verbosity the player picks. docs/accessibility.md.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const MODE_KEY = "trusis.sr";
const VERBOSITY_KEY = "trusis.sr.verbosity";

/** How much the announcer says: brief (phases, deaths, results, private messages), normal
 * (and votes, withdrawals, passes, tallies, chat not on screen), full (and every log line). */
export const VERBOSITIES = ["brief", "normal", "full"];

function read(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}

function write(key, value) {
  try { localStorage.setItem(key, value); } catch { /* storage may be off */ }
}

export function srMode() { return read(MODE_KEY) === "on"; }

export function setSrMode(on) {
  write(MODE_KEY, on ? "on" : "off");
  applySrMode();
}

/** The body's class follows the stored choice (the CSS flattens the ring under it). */
export function applySrMode() { document.body.classList.toggle("sr-mode", srMode()); }

export function verbosity() {
  const kept = read(VERBOSITY_KEY);
  return VERBOSITIES.includes(kept) ? kept : "normal";
}

export function setVerbosity(level) {
  if (VERBOSITIES.includes(level)) write(VERBOSITY_KEY, level);
}

/** The verbosity's list, shown under the chat in the screen-reader mode (CSS hides it otherwise). */
export function verbosityControl() {
  const select = h("select", {
    id: "sr-verbosity", class: "sr-verbosity",
    on: { change: (ev) => setVerbosity(ev.target.value) },
  });
  const label = h("label", { attrs: { for: "sr-verbosity" } });
  const el = h("div", { class: "sr-settings" }, label, select);
  const render = () => {
    label.textContent = t("sr.verbosity");
    select.replaceChildren(...VERBOSITIES.map((v) => h("option", { value: v, text: t(`sr.verbosity.${v}`) })));
    select.value = verbosity();
  };
  render();
  return { el, render };
}
