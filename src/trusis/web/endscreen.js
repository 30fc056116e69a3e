// The end screen, which stays until the player leaves: the winner, every role revealed, the
// vote grid day by day, the night timeline, the statistics (R62: declaration order, labels,
// "-"), and the record to download. Built from GET /api/tables/{id}/summary.

import { fill, focusLost, h, refocus } from "./dom.js";
import { get } from "./api.js";
import { capital, lang, msg, roleName, roleTeam, seatName, sentence, t } from "./i18n.js";
import { eventText } from "./log.js";
import { teamMark } from "./rules.js";
import { errorText } from "./errors.js";
import { pageLink } from "./account.js";
import { replayPath } from "./replay.js";
import { refreshReports, reportButton, reportsSection } from "./report.js";
import { RematchBox } from "./rematch.js";
import { killedText, voteCell } from "./votegrid.js";

const dash = (v) => (v === null || v === undefined || v === "" ? "-" : String(v));

export class EndScreen {
  constructor(store, { invite, onLeave, app }) {
    this.store = store;
    this.invite = invite;
    this.onLeave = onLeave;
    this.data = null;
    this.el = h("section", { class: "endscreen", attrs: { "aria-labelledby": "end-title" } });
    this.rematch = new RematchBox(app, store, invite); // play again (issue 21)
  }

  q(extra = {}) {
    const params = new URLSearchParams(extra);
    if (this.invite) params.set("invite", this.invite);
    const s = params.toString();
    return s ? `?${s}` : "";
  }

  async load() {
    const base = `/api/tables/${encodeURIComponent(this.store.tableId)}`;
    try {
      this.data = await get(`${base}/summary${this.q({ lang: lang() })}`);
      this.error = null;
    } catch (err) {
      this.error = err;
    }
    this.render();
  }

  render() {
    const view = this.store.view || {};
    const d = this.data;
    const winner = d?.winner ?? view.winner;
    const winners = d?.winners ?? view.winners ?? [];
    const me = this.store.seat;
    const verdict = this.verdict();
    // D38: a game the server's staff ended says so (the log's event), not only "a draw".
    const byStaff = winner === "DRAW" && (this.store.log || []).some((e) => e.code === "operator_draw");
    const record = `/api/tables/${encodeURIComponent(this.store.tableId)}/record${this.q()}`;
    this.rematch.render();
    // Drawn again when the summary arrives: the focused control (the rematch's buttons are
    // kept, the others drawn anew with the same data-focus) keeps the focus (WCAG 2.4.3).
    const had = this.el.contains(document.activeElement) ? document.activeElement : null;
    const hadKey = had?.dataset?.focus || (had?.id === "end-title" ? "end-title" : null);
    fill(this.el,
      h("header", { class: ["end-head", `win-${String(winner || "").toLowerCase()}`] },
        h("p", { class: "end-kicker" }, t("end.over")),
        h("h1", { id: "end-title", attrs: { tabindex: "-1" } }, capital(msg(`winner.${winner}`))),
        verdict ? h("p", { class: "end-verdict" }, verdict) : null,
        byStaff ? h("p", { class: "end-why hint" }, capital(msg("event.operator_draw"))) : null,
        h("div", { class: "row wrap end-buttons" },
          h("a", { class: "btn", href: record, dataset: { focus: "end-download" }, attrs: { download: `trusis-${this.store.tableId}.json` } }, "⬇ ", t("end.download")),
          pageLink(replayPath(this.store.tableId, me, this.invite), { class: "btn btn-replay", dataset: { focus: "end-replay" } }, "▶ ", t("replay.button")),
          reportButton(this.store.tableId, { players: () => view.players || [], mySeat: () => me, small: false, onSent: () => refreshReports(this.store.tableId) }),
          h("button", { class: "btn btn-primary", type: "button", text: t("end.leave"), dataset: { focus: "end-leave" }, on: { click: () => this.onLeave() } }))),
      this.error ? h("p", { class: "form-error" }, errorText(this.error)) : null,
      this.rematch.el,
      this.rolesTable(d, view, winners),
      d ? this.voteGrid(d) : h("p", { class: "hint" }, t("end.loading")),
      d ? this.nights(d) : null,
      d?.stats ? this.stats(d.stats) : null,
      reportsSection(this.store.tableId, !!this.store.table?.you_host));
    if (had && focusLost()) {
      if (had.isConnected) had.focus();
      else if (hadKey === "end-title") this.focus();
      else if (!refocus(this.el, [hadKey])) this.focus();
    }
  }

  /** This seat's end in words ("You win!", "You lose.", "Nobody wins."); null to a spectator. */
  verdict() {
    const view = this.store.view || {};
    const winner = this.data?.winner ?? view.winner;
    const winners = this.data?.winners ?? view.winners ?? [];
    const me = this.store.seat;
    if (!me || !winner) return null;
    if (winner === "DRAW") return t("end.nobody_wins");
    return winners.includes(me) ? msg("play.result_won") : msg("play.result_lost");
  }

  /** Where the player continues when the game ends under their fingers: the verdict. */
  focus() { this.el.querySelector("#end-title")?.focus(); }

  rolesTable(d, view, winners) {
    const roles = d?.roles || view.known || {};
    const players = view.players || Object.keys(roles).map((s) => ({ seat: Number(s), name: d?.names?.[s] || "" }));
    return h("section", { class: "card" },
      h("h2", {}, msg("play.roles_title")),
      h("div", { class: "scroll-x", attrs: { tabindex: "0", role: "region", "aria-label": msg("play.roles_title") } },
        h("table", { class: "data end-roles" },
          h("thead", {}, h("tr", {}, ["#", t("end.player"), t("rules.role"), t("rules.team"), t("end.result")].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, players.map((p) => {
            const role = roles[String(p.seat)];
            const team = roleTeam(role);
            const won = winners.includes(p.seat);
            return h("tr", { class: [p.seat === this.store.seat ? "is-me" : "", won ? "is-winner" : ""] },
              h("td", {}, String(p.seat)),
              h("th", { scope: "row" }, p.name, p.alive === false
                ? [h("span", { attrs: { "aria-hidden": "true" } }, " ☠"), h("span", { class: "sr-only" }, `, ${t("seat.dead")}`)] : ""),
              h("td", {}, role ? roleName(role) : "-"),
              h("td", {}, team ? `${teamMark(team)} ${msg(`play.team_short.${team}`)}` : "-"),
              h("td", {}, won ? [h("span", { attrs: { "aria-hidden": "true" } }, "★ "), msg("play.winner")]
                : [h("span", { attrs: { "aria-hidden": "true" } }, "—"), h("span", { class: "sr-only" }, t("end.not_winner"))]));
          })))));
  }

  voteGrid(d) {
    const days = d.days || [];
    const seats = Object.keys(d.roles || {}).map(Number).sort((a, b) => a - b);
    const cell = (day, voter) => {
      const shown = (day.shown || day.votes || {})[String(voter)];
      const real = day.illusions?.[String(voter)]?.target;
      return voteCell(shown, real && real !== shown ? h("span", { class: "illusion" }, ` (${t("end.real", { seat: real })})`) : null);
    };
    return h("section", { class: "card" },
      h("h2", {}, msg("play.votes_title")),
      days.length ? h("div", { class: "scroll-x", attrs: { tabindex: "0", role: "region", "aria-label": msg("play.votes_title") } },
        h("table", { class: "data vote-grid" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("end.voter")),
            days.map((day) => h("th", { scope: "col" }, msg("play.phase", { kind: "day", number: day.number }))))),
          h("tbody", {},
            seats.map((s) => h("tr", { class: s === this.store.seat ? "is-me" : "" },
              h("th", { scope: "row" }, seatName(s)), days.map((day) => cell(day, s)))),
            h("tr", { class: "killed-row" }, h("th", { scope: "row" }, msg("play.outcome")),
              days.map((day) => h("td", {}, day.killed ? killedText(day.killed, seatName(day.killed)) : msg("play.nobody"))))))) : h("p", { class: "hint" }, t("end.no_days")));
  }

  nightLines(night) {
    if (Array.isArray(night.events)) return night.events.map((e) => eventText(e));
    const lines = [];
    const kills = Object.entries(night.trusis_votes || {});
    if (kills.length) lines.push(t("end.kill_votes", { votes: kills.map(([v, target]) => `${seatName(v)} → ${seatName(target)}`).join(", ") }));
    lines.push(night.target ? t("end.target", { seat: seatName(night.target) }) : t("end.no_target"));
    for (const [priest, target] of Object.entries(night.protects || {})) lines.push(t("end.protect", { seat: seatName(priest), target: seatName(target) }));
    if ((night.protected_by || []).length && night.target) lines.push(t("end.saved", { seat: seatName(night.target) }));
    for (const [k, target] of Object.entries(night.kamikaze || {})) lines.push(t("end.kamikaze", { seat: seatName(k), target: seatName(target) }));
    for (const s of night.sweeps || []) lines.push(t("end.sweep", { seat: seatName(s.seat), target: seatName(s.target), result: msg(`fact.${s.result}`) }));
    for (const v of night.visions || []) lines.push(t("end.vision", { seat: seatName(v.seat), target: seatName(v.target), role: roleName(v.role) }));
    for (const s of night.died || []) lines.push(`☠ ${sentence("event.died", { seat: s })}`);
    for (const s of night.revived || []) lines.push(`✚ ${sentence("event.revived", { seat: s })}`);
    return lines;
  }

  nights(d) {
    const nights = d.nights || [];
    return h("section", { class: "card" },
      h("h2", {}, t("end.nights")),
      nights.length ? h("ol", { class: "timeline" }, nights.map((n) => h("li", {},
        h("h3", {}, msg("play.phase", { kind: "night", number: n.number })),
        h("ul", {}, this.nightLines(n).map((line) => h("li", {}, line)))))) : h("p", { class: "hint" }, t("end.no_nights")));
  }

  stats(stats) {
    const rows = stats.table || [];
    const players = stats.players || { columns: [], rows: [] };
    return h("section", { class: "card" },
      h("h2", {}, msg("play.stats_game")),
      h("table", { class: "data stats-table" }, h("tbody", {}, rows.map((r) =>
        h("tr", {}, h("th", { scope: "row" }, r.label || r.name), h("td", {}, dash(r.value)))))),
      h("h2", {}, msg("play.stats_players")),
      h("div", { class: "scroll-x", attrs: { tabindex: "0", role: "region", "aria-label": msg("play.stats_players") } },
        h("table", { class: "data stats-players" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("end.player")),
            (players.columns || []).map((c) => h("th", { scope: "col" }, c.label || c.name)))),
          h("tbody", {}, (players.rows || []).map((r) => h("tr", { class: r.seat === this.store.seat ? "is-me" : "" },
            h("th", { scope: "row" }, seatName(r.seat)),
            (players.columns || []).map((_c, i) => h("td", {}, dash(r.values?.[i])))))))));
  }
}
