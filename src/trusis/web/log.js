// The game log: every event this seat may see, with its time, private ones marked — vote
// changes included, so late votes are on record. Results of powers stay here for good.

import { clockTime, fill, h } from "./dom.js";
import { capital, hasMsg, lang, msg, sentence, t } from "./i18n.js";
import { PRIVATE_CODES } from "./game.js";
import { drawVoteGrid } from "./votegrid.js";

const SKIP = new Set(["said", "whispered"]);

export function kindOf(code) {
  if (code === "died" || code === "vote_killed") return "death";
  if (code === "revived") return "life";
  if (code === "vote_cast" || code === "vote_withdrawn") return "vote";
  if (code === "trusis_vote" || code === "trusis_vote_withdrawn") return "kill";
  if (code === "choice_made" || code === "choice_withdrawn" || code === "illusion_made") return "mine";
  if (code.endsWith("_result")) return "result";
  if (code === "phase_started") return "phase";
  return "system";
}

/**
 * Whether `list[i]` is a death already told: "X is killed by the vote" comes before the
 * deaths of that resolution, and one line says it (the vote), not two.
 */
export function toldDeath(list, i) {
  const e = list[i];
  if (e?.code !== "died") return false;
  for (let j = i - 1; j >= 0 && list[j].code !== "phase_started"; j -= 1) {
    if (list[j].code === "vote_killed") return list[j].params?.seat === e.params?.seat;
  }
  return false;
}

/**
 * One event as a sentence in the player's language. `owner`: the seat a private event
 * belongs to, for a reader who is not that seat (the replay with everything revealed says
 * "Vera sweeps Hugo", not "your sweep of Hugo").
 */
export function eventText(e, owner = null) {
  if (owner !== null && hasMsg(`event.${e.code}.of`)) {
    return sentence(`event.${e.code}.of`, { ...e.params, seat: owner });
  }
  if (e.code === "phase_started") {
    return msg(e.params.kind === "night" ? "play.banner_night" : "play.banner_day", { number: e.params.number });
  }
  if (e.code === "passed" && e.params.auto) return t("log.auto_passed", { text: sentence("event.passed", e.params) });
  if (e.code === "timed_out") return capital(msg("event.timed_out", {}));
  return sentence(`event.${e.code}`, e.params);
}

export class GameLog {
  constructor(store) {
    this.store = store;
    // A role="log" box around a real list (the items keep their list semantics). Not
    // live: the announcer says what matters once, whichever tab shows.
    this.list = h("ol", { class: "log-lines", attrs: { "aria-label": t("log.title"), tabindex: "0" } });
    this.box = h("div", { class: "log-box", attrs: { role: "log", "aria-live": "off", "aria-label": t("log.title") } }, this.list);
    this.grid = h("div", { class: "log-grid" });
    this.el = h("div", { class: "log" }, this.grid, this.box);
    this.drawn = 0;
  }

  entries() {
    const log = this.store.log;
    return log.filter((e, i) => !SKIP.has(e.code) && !toldDeath(log, i));
  }

  line(e) {
    const kind = kindOf(e.code);
    const secret = PRIVATE_CODES.has(e.code);
    const marks = { death: "☠", life: "✚", vote: "→", kill: "⚔", mine: "•", result: "◆", phase: "", system: "·" };
    return h("li", { class: ["log-line", `is-${kind}`, secret ? "is-private" : ""] },
      e.t && kind !== "phase" ? h("time", { class: "log-time" }, clockTime(e.t, lang())) : null,
      marks[kind] ? h("span", { class: "log-mark", attrs: { "aria-hidden": "true" } }, marks[kind]) : null,
      h("span", { class: "log-text" }, eventText(e)),
      secret ? h("span", { class: "log-private" }, ` ${t("log.private")}`) : null);
  }

  render(force = false) {
    const entries = this.entries();
    const follow = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 12;
    if (!force && this.drawn && entries.length >= this.drawn) {
      for (const e of entries.slice(this.drawn)) this.list.append(this.line(e));
    } else {
      fill(this.list, entries.length ? entries.map((e) => this.line(e)) : h("li", { class: "log-empty" }, t("log.empty")));
    }
    this.drawn = entries.length;
    const key = `${lang()}|${entries.length}|${this.store.view?.history?.length}`;
    if (key !== this.gridKey) {
      this.gridKey = key;
      drawVoteGrid(this.grid, this.store);
    }
    if (follow) this.list.scrollTop = this.list.scrollHeight;
  }

  toBottom() { this.list.scrollTop = this.list.scrollHeight; }

  redraw() {
    this.list.setAttribute("aria-label", t("log.title"));
    this.box.setAttribute("aria-label", t("log.title"));
    this.render(true);
  }
}
