// The vote history during the game (ProAvalon's grid): for each day, where each seat's
// visible vote stood when the day ended, read from the public vote events the page holds.
// It shows votes as everyone saw them and counts nothing (tallies come from the server).

import { fill, h } from "./dom.js";
import { msg, seatName, t } from "./i18n.js";

/** [{number, votes: Map(voter -> target), killed}] for every day the log covers. */
export function daysFromLog(log, history) {
  const days = [];
  let day = null;
  for (const e of log) {
    if (e.code === "phase_started") {
      day = e.params.kind === "day" ? { number: e.params.number, votes: new Map(), killed: null } : null;
      if (day) days.push(day);
    } else if (day && e.code === "vote_cast") {
      day.votes.set(e.params.voter, e.params.target);
    } else if (day && e.code === "vote_withdrawn") {
      day.votes.delete(e.params.voter);
    }
  }
  for (const d of days) {
    const h0 = (history || []).find((x) => x.phase.kind === "day" && x.phase.number === d.number);
    d.killed = h0 ? h0.vote_killed : undefined;
  }
  return days;
}

export function voteGrid(store) {
  const view = store.view;
  // Day 1 begins with no event (D12): the log's first day starts with the log itself.
  const log = store.log[0]?.code === "phase_started" ? store.log
    : [{ code: "phase_started", params: { kind: "day", number: 1 } }, ...store.log];
  const days = daysFromLog(log, view?.history).filter((d) => d.votes.size || d.killed !== undefined);
  if (!days.length) return null;
  const seats = (view?.players || []).map((p) => p.seat);
  return h("section", { class: "vote-history" },
    h("h3", {}, msg("play.votes_title")),
    h("div", { class: "scroll-x", attrs: { tabindex: "0", role: "region", "aria-label": msg("play.votes_title") } },
      h("table", { class: "data vote-grid" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("end.voter")),
          days.map((d) => h("th", { scope: "col" }, msg("play.phase", { kind: "day", number: d.number }))))),
        h("tbody", {},
          seats.map((s) => h("tr", { class: s === store.seat ? "is-me" : "" },
            h("th", { scope: "row" }, seatName(s)),
            days.map((d) => voteCell(d.votes.get(s))))),
          h("tr", { class: "killed-row" }, h("th", { scope: "row" }, msg("play.outcome")),
            days.map((d) => (d.killed === undefined ? h("td", {}, h("span", { attrs: { "aria-hidden": "true" } }, "…"), h("span", { class: "sr-only" }, t("grid.open")))
              : h("td", {}, d.killed ? killedText(d.killed, String(d.killed)) : msg("play.nobody")))))))));
}

/** A vote in the grid: "→ 7" to the eye, the seat's name in words to a reader. */
export function voteCell(target, ...extra) {
  if (!target) return h("td", { class: "empty" }, h("span", { attrs: { "aria-hidden": "true" } }, "·"), h("span", { class: "sr-only" }, t("grid.no_vote")));
  return h("td", { attrs: { title: seatName(target) } },
    h("span", { attrs: { "aria-hidden": "true" } }, `→ ${target}`), h("span", { class: "sr-only" }, seatName(target)), ...extra);
}

/** "☠ 7" (or "☠ Wim (seat 7)") with the death in words. */
export function killedText(seat, shown) {
  return [h("span", { attrs: { "aria-hidden": "true" } }, `☠ ${shown}`), h("span", { class: "sr-only" }, t("grid.killed", { seat: seatName(seat) }))];
}

export function drawVoteGrid(el, store) {
  fill(el, voteGrid(store));
}
