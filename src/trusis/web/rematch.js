// Play again (issue 21, docs/rules.md D19): on the end screen, the host's "Play again"
// and everyone's one-click answer to a rematch; in the waiting room, the seat kept for
// you; on both, the series (who won which game). The server decides everything: these
// boxes only ask (POST …/rematch, …/rematch/accept, …/rematch/decline, GET …/series).

import { fill, focusKey, focusLost, h, refocus } from "./dom.js";
import { get, post } from "./api.js";
import { announce } from "./dialogs.js";
import { capital, lang, msg, t } from "./i18n.js";
import { errorText } from "./errors.js";

const query = (invite) => (invite ? `?invite=${encodeURIComponent(invite)}` : "");
const path = (id, suffix, invite) => `/api/tables/${encodeURIComponent(id)}${suffix}${query(invite)}`;
const clock = (seconds) => new Date(seconds * 1000).toLocaleTimeString(lang(), { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });

/** The series a table belongs to: the score by team, each game, each player's wins. */
export class SeriesBox {
  constructor(tableId, invite) {
    this.tableId = tableId;
    this.invite = invite;
    this.el = h("section", { class: "card series", hidden: true, attrs: { "aria-labelledby": `series-${tableId}` } });
    this.data = null;
    this.at = 0;
  }

  /** Ask again (at most every few seconds unless `force`): a game of it may have ended. */
  refresh(force = false) {
    if (!force && Date.now() - this.at < 3000) return;
    this.at = Date.now();
    get(path(this.tableId, "/series", this.invite)).then((d) => { this.data = d; this.render(); }).catch(() => {});
  }

  /** Drawn again when its data or the page's language changed (called at every draw of
   * the screen that holds it). */
  render() {
    const key = JSON.stringify([lang(), this.data]);
    if (key === this.key) return;
    this.key = key;
    const d = this.data;
    const games = d?.games || [];
    this.el.hidden = games.length < 2;
    if (this.el.hidden) { fill(this.el); return; }
    const teams = d.teams || {};
    const current = games.find((g) => g.current) || games[games.length - 1];
    const extra = ["CASTAWAY", "DRAW"].filter((k) => teams[k]).map((k) =>
      k === "DRAW" ? t("series.draws", { count: teams[k] }) : `${msg(`play.team_short.${k}`)} ${teams[k]}`);
    fill(this.el,
      h("h2", { id: `series-${this.tableId}` }, t("series.title", { number: current.number })),
      h("p", { class: "series-score" },
        h("span", {}, msg("play.team_short.HUMAN")), " ",
        h("strong", {}, `${teams.HUMAN || 0} – ${teams.TRUSIS || 0}`), " ",
        h("span", {}, msg("play.team_short.TRUSIS")),
        extra.length ? h("span", { class: "hint" }, ` · ${extra.join(" · ")}`) : null),
      h("ol", { class: "series-games" }, games.map((g) => h("li", { class: g.current ? "is-current" : "" },
        h("span", { class: "series-game" }, t("series.game", { number: g.number })), " ",
        g.status === "finished"
          ? [capital(msg(`winner.${g.winner}`)), g.winners?.length ? h("span", { class: "hint" }, ` (${g.winners.join(", ")})`) : null]
          : t(g.status === "open" ? "series.waiting" : g.status === "running" ? "series.playing" : "series.closed")))),
      h("div", { class: "scroll-x" }, h("table", { class: "data series-players" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("end.player")), h("th", { scope: "col" }, t("series.wins")), h("th", { scope: "col" }, t("series.games")))),
        h("tbody", {}, (d.players || []).map((p) => h("tr", { class: p.you ? "is-me" : "" },
          h("th", { scope: "row" }, p.kind === "bot" ? `⚙ ${p.name}` : p.name),
          h("td", {}, String(p.wins)), h("td", {}, String(p.games))))))));
  }
}

/** The end screen's part: "Play again", then the offer to join the rematch. */
export class RematchBox {
  constructor(app, store, invite) {
    this.app = app;
    this.store = store;
    this.invite = invite;
    this.series = new SeriesBox(store.tableId, invite);
    this.error = h("p", { class: "form-error", attrs: { role: "alert" } });
    this.offer = h("div", { class: "rematch-offer" });
    // Not a live region: a proposal is announced once (told), not at every redraw.
    this.el = h("div", { class: "rematch-area" },
      h("section", { class: "card rematch" }, this.offer, this.error), this.series.el);
    this.next = null;
    this.newTable = null;
    this.declined = false;
    this.busy = false;
    // The proposal comes with the finished table's facts (a `table` frame).
    store.subscribe((change) => { if (change.kind === "table" && this.el.isConnected) this.render(); });
  }

  /** A private table's rematch keeps its invite (the host's page may have come without it). */
  get inviteCode() {
    const table = this.store.table;
    return this.invite || (table?.options?.private ? table.invite : null) || null;
  }

  go(id) {
    document.getElementById("banners")?.replaceChildren(); // the last game's news stays behind
    this.app.navigate(`/t/${encodeURIComponent(id)}${query(this.inviteCode)}`);
  }

  async ask(fn) {
    if (this.busy) return;
    this.busy = true;
    this.error.textContent = "";
    try { await fn(); } catch (err) { this.error.textContent = errorText(err); } finally { this.busy = false; this.draw(); }
  }

  propose() {
    return this.ask(async () => {
      const answer = await post(path(this.store.tableId, "/rematch", this.invite));
      this.go(answer.table.id);
    });
  }

  accept() {
    return this.ask(async () => {
      await post(path(this.next, "/rematch/accept", this.inviteCode));
      this.go(this.next);
    });
  }

  decline() {
    return this.ask(async () => {
      this.newTable = (await post(path(this.next, "/rematch/decline", this.inviteCode))).table;
      this.declined = true;
    });
  }

  /** Called whenever the end screen draws: a proposal arrives with the table's facts. */
  render() {
    const next = this.store.table?.rematch || null;
    if (next && next !== this.next) {
      this.next = next;
      this.series.refresh(true);
      get(path(next, "", this.inviteCode)).then((d) => { this.newTable = d; this.told(); this.draw(); }).catch(() => {});
    } else this.series.refresh();
    this.series.render();
    this.draw();
  }

  /** A proposal is said once, as it arrives (D19): with the seat kept for this player. */
  told() {
    if (!this.next || this.toldFor === this.next) return;
    this.toldFor = this.next;
    const kept = (this.newTable?.seats || []).find((s) => s.kind === "reserved" && s.for_you);
    announce(kept ? t("rematch.kept", { seat: kept.seat, time: clock(kept.until) }) : t("rematch.proposed"));
  }

  /** Drawn again only when what it offers changes: a redraw under a focused "Join the
   * rematch" replaced the button, and the Enter pressed on it went to <body>. */
  draw() {
    const table = this.store.table || {};
    const seats = this.newTable?.seats || [];
    const kept = seats.find((s) => s.kind === "reserved" && s.for_you);
    const seated = seats.find((s) => s.you);
    const may = !!(table.you_host || (this.app.me && this.store.seat));
    const key = JSON.stringify([lang(), this.next, this.declined, kept?.seat, kept?.until, !!seated, may, this.busy]);
    if (key === this.drawn) return;
    this.drawn = key;
    const goButton = (text) => h("button", { class: "btn", type: "button", text, dataset: { focus: "rematch-go" }, on: { click: () => this.go(this.next) } });
    let body;
    if (!this.next) {
      body = may ? [h("p", {}, t("rematch.ask")),
        h("button", { class: "btn btn-primary btn-rematch", type: "button", text: `↻ ${t("rematch.propose")}`, disabled: this.busy, dataset: { focus: "rematch-propose" }, on: { click: () => this.propose() } })]
        : [h("p", { class: "hint" }, t("rematch.host_may"))];
    } else if (this.declined) {
      body = [h("p", {}, t("rematch.declined")), goButton(t("rematch.watch"))];
    } else if (kept) {
      body = [h("p", { class: "rematch-kept" }, t("rematch.kept", { seat: kept.seat, time: clock(kept.until) })),
        h("div", { class: "row wrap" },
          h("button", { class: "btn btn-primary btn-join", type: "button", text: t("rematch.join"), disabled: this.busy, dataset: { focus: "rematch-join" }, on: { click: () => this.accept() } }),
          h("button", { class: "btn btn-ghost btn-decline", type: "button", text: t("rematch.decline"), disabled: this.busy, dataset: { focus: "rematch-decline" }, on: { click: () => this.decline() } }))];
    } else {
      body = [h("p", {}, t("rematch.proposed")), goButton(seated ? t("rematch.back") : t("rematch.open"))];
    }
    const had = focusKey(this.offer);
    fill(this.offer, h("h2", {}, t("rematch.title")), body);
    // The same control after the redraw, else the first one awake (WCAG 2.4.3).
    if (had && focusLost()) {
      const first = [...this.offer.querySelectorAll("button")].find((b) => !b.disabled);
      refocus(this.offer, [had, first?.dataset.focus], this.offer.closest(".endscreen")?.querySelector("#end-title"));
    }
  }
}

/** The waiting room's part: join or decline the seat kept for you (the series goes below). */
export class WaitingRematch {
  constructor(room) {
    this.room = room;
    this.series = new SeriesBox(room.store.tableId, room.invite);
    this.series.refresh(true);
    this.el = h("div", { class: "rematch-waiting" });
  }

  render() {
    const room = this.room;
    const seats = room.store.table?.seats || [];
    const kept = seats.find((s) => s.kind === "reserved" && s.for_you);
    const waiting = seats.filter((s) => s.kind === "reserved");
    fill(this.el,
      room.store.table?.you_host && waiting.length ? h("p", { class: "hint rematch-host-hint" },
        t("rematch.host_wait", { seats: waiting.map((s) => t("rematch.seat_of", { name: s.name, seat: s.seat })).join(", "), time: clock(Math.max(...waiting.map((s) => s.until))) })) : null,
      kept ? h("div", { class: "card rematch rematch-kept-here", attrs: { role: "status" } },
        h("p", {}, t("rematch.kept", { seat: kept.seat, time: clock(kept.until) })),
        h("div", { class: "row wrap" },
          h("button", { class: "btn btn-primary btn-join", type: "button", text: t("rematch.join"), on: { click: () => room.call(() => post(path(room.store.tableId, "/rematch/accept", room.invite))) } }),
          h("button", { class: "btn btn-ghost btn-decline", type: "button", text: t("rematch.decline"), on: { click: () => room.call(() => post(path(room.store.tableId, "/rematch/decline", room.invite))) } }))) : null);
    return this.el;
  }
}

function boxOf(room) {
  if (!room.rematchBox) room.rematchBox = new WaitingRematch(room);
  return room.rematchBox;
}

/** The waiting room's offer of a kept seat (waiting.js draws it under the title). */
export function waitingRematch(room) { return boxOf(room).render(); }

/** The waiting room's series (waiting.js draws it under the seats; hidden for a first game). */
export function waitingSeries(room) {
  const { series } = boxOf(room);
  series.render();
  return series.el;
}

/** How many seats wait for a player of the last game (not taken yet: the start waits). */
export function keptCount(seats) { return seats.filter((s) => s.kind === "reserved").length; }

/** A kept seat's badge in the waiting room: for whom, until when. */
export function keptBadge(seat) {
  return seat.kind === "reserved" ? h("span", { class: "badge badge-kept" }, t("rematch.badge", { time: clock(seat.until) })) : null;
}

/** At a rematch's table a bot only keeps its seat: a person with none may take it (D19). */
export function takeBotButton(room, seat) {
  const table = room.store.table;
  if (seat.kind !== "bot" || !table?.previous || !room.app.me || (table.seats || []).some((s) => s.you)) return null;
  return h("button", { class: "btn btn-small btn-take-bot", type: "button", text: t("rematch.take_bot"), on: { click: () => room.sit(seat.seat) } });
}
