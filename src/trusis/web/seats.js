// The seats: a ring on wide screens (your own seat at the bottom; a grid past 18 seats), a
// two-column grid on phones (CSS). A radio group: arrow keys move the choice, one seat holds the tab stop.
// Votes and tallies come from the view (view.votes, view.vote_counts): never counted here.

import { fill, h } from "./dom.js";
import { roleName, seatName, t } from "./i18n.js";

export class SeatRing {
  constructor(store, notebook, { onSelect, onTab = () => null }) {
    this.store = store;
    this.notebook = notebook;
    this.onSelect = onSelect;
    this.onTab = onTab;
    this.selected = null;
    this.fresh = false;  // a seat chosen since the last Tab from the seats
    this.buttons = new Map();
    this.centre = h("div", { class: "ring-centre" });
    this.el = h("div", {
      class: "ring", attrs: { role: "radiogroup", "aria-label": t("seats.label") },
      on: { keydown: (ev) => this.key(ev) },
    });
    this.wrap = h("div", { class: "ring-wrap" }, this.el, this.centre);
  }

  seats() { return (this.store.view?.players || []).map((p) => p.seat); }

  select(seat, { focus = false } = {}) {
    this.selected = seat;
    this.fresh = true;
    this.render();
    if (focus) this.buttons.get(seat)?.focus();
    this.onSelect(seat);
  }

  key(ev) {
    const seats = this.seats();
    if (!seats.length) return;
    if (ev.key === "Tab") {
      // The seat just chosen: Tab goes on to its action ("Vote for Wim (seat 4)"), which
      // came 21 Tabs later in the page's order. Once: the next Tab from here goes on as
      // usual (to the chat and the panels), so the seats and the bar are no loop.
      const to = !ev.shiftKey && this.fresh && this.selected !== null ? this.onTab() : null;
      this.fresh = false;
      if (to) { ev.preventDefault(); to.focus(); }
      return;
    }
    const current = Number(ev.target?.dataset?.seat) || this.selected || seats[0];
    let i = seats.indexOf(current);
    if (["ArrowRight", "ArrowDown"].includes(ev.key)) i = (i + 1) % seats.length;
    else if (["ArrowLeft", "ArrowUp"].includes(ev.key)) i = (i - 1 + seats.length) % seats.length;
    else if (ev.key === "Home") i = 0;
    else if (ev.key === "End") i = seats.length - 1;
    else if (ev.key === " " || ev.key === "Enter") { ev.preventDefault(); this.select(current, { focus: true }); return; }
    else return;
    ev.preventDefault();
    this.select(seats[i], { focus: true });
  }

  /** Where each seat sits on the ellipse: evenly spaced, seat `me` at the bottom. */
  place(button, index, n, meIndex) {
    const angle = Math.PI / 2 + (2 * Math.PI * (index - meIndex)) / n;
    button.style.setProperty("--x", `${(50 + 41 * Math.cos(angle)).toFixed(2)}%`);
    button.style.setProperty("--y", `${(50 + 39 * Math.sin(angle)).toFixed(2)}%`);
  }

  render() {
    const view = this.store.view;
    if (!view) return;
    const players = view.players || [];
    const n = players.length;
    this.el.classList.toggle("ring-crowded", n > 12);
    // Past 18 seats a ring's cards overlap on a laptop: they line up in a grid instead.
    this.wrap.classList.toggle("is-grid", n > 18);
    const me = this.store.seat;
    const meIndex = Math.max(0, players.findIndex((p) => p.seat === me));
    const votes = view.votes || {};
    const counts = view.vote_counts || {};
    const night = view.phase?.kind === "night";
    const tabStop = this.selected ?? me ?? players[0]?.seat;
    const seen = new Set();
    players.forEach((p, index) => {
      seen.add(p.seat);
      let button = this.buttons.get(p.seat);
      if (!button) {
        button = h("button", {
          class: "seat", type: "button", dataset: { seat: String(p.seat) },
          attrs: { role: "radio" },
          on: { click: () => this.select(p.seat, { focus: true }) },
        });
        this.buttons.set(p.seat, button);
      }
      if (button.parentNode !== this.el) this.el.append(button);
      this.place(button, index, n, meIndex);
      this.card(button, p, { votes, counts, night, me });
      button.setAttribute("aria-checked", String(this.selected === p.seat));
      button.tabIndex = p.seat === tabStop ? 0 : -1;
    });
    for (const [seat, button] of this.buttons) {
      if (!seen.has(seat)) { button.remove(); this.buttons.delete(seat); }
    }
  }

  card(button, p, { votes, counts, night, me }) {
    const view = this.store.view;
    const bot = this.store.isBot(p.seat);
    const offline = !bot && !p.left && !this.store.connected(p.seat);
    const known = view.known?.[String(p.seat)];
    const myVote = votes[String(p.seat)];
    const voters = Object.entries(votes).filter(([, target]) => target === p.seat).map(([v]) => Number(v));
    const count = counts[String(p.seat)] || 0;
    const cls = button.classList;
    cls.toggle("is-dead", !p.alive);
    cls.toggle("is-passed", !!p.passed);
    cls.toggle("is-me", p.seat === me);
    cls.toggle("is-selected", this.selected === p.seat);
    cls.toggle("is-offline", offline);
    cls.toggle("is-left", !!p.left);
    cls.toggle("is-winner", (view.winners || []).includes(p.seat));

    const badges = [];
    if (p.seat === me) badges.push(["you", t("seat.you")]);
    badges.push(p.alive ? null : ["dead", `☠ ${t("seat.dead")}`]);
    if (p.passed) badges.push(["passed", `✓ ${t("seat.passed")}`]);
    if (p.left) badges.push(["left", `⎋ ${t("seat.left")}`]);
    else if (offline) badges.push(["offline", `⚡ ${t("seat.offline")}`]);
    if (bot) badges.push(["bot", `⚙ ${t("seat.bot")}`]);
    if ((view.winners || []).includes(p.seat)) badges.push(["winner", `★ ${t("seat.winner")}`]);

    const note = this.notebook?.get(p.seat);
    const tag = note && p.seat !== me ? this.notebook.tagText(note) : "";
    fill(button,
      h("span", { class: "seat-head" },
        h("span", { class: "seat-num", attrs: { "aria-hidden": "true" } }, String(p.seat)),
        h("span", { class: "seat-name", attrs: { title: p.name } }, p.name)),
      h("span", { class: "seat-badges" },
        badges.filter(Boolean).map(([k, text]) => h("span", { class: ["badge", `badge-${k}`] }, text))),
      known ? h("span", { class: "seat-known", attrs: { title: t("seat.known") } }, "◆ ", roleName(known)) : null,
      tag ? h("span", { class: "seat-tag" }, tag) : null,
      myVote ? h("span", { class: ["seat-vote", night ? "is-kill" : ""] },
        `${night ? "⚔" : "→"} ${myVote}`) : null,
      voters.length || count
        ? h("span", { class: "seat-votes" },
          h("span", { class: "vote-count" }, t(night ? "seat.kill_votes" : "seat.votes", { count })),
          voters.map((v) => h("span", { class: "chip", attrs: { title: seatName(v) } }, String(v))))
        : null,
    );
    button.setAttribute("aria-label", seatLabel(this.store, p, tag));
  }
}

/**
 * A seat in words, as the seat card's name and the /who command say it: "Rosa (seat 5),
 * alive, bot, votes for Wim (seat 4), 3 votes, from Hana, Ada, Wim". From the view only.
 */
export function seatLabel(store, p, tag = "") {
  const view = store.view || {};
  const me = store.seat;
  const night = view.phase?.kind === "night";
  const bot = store.isBot(p.seat);
  const offline = !bot && !p.left && !store.connected(p.seat);
  const known = view.known?.[String(p.seat)];
  const votes = view.votes || {};
  const myVote = votes[String(p.seat)];
  const voters = Object.entries(votes).filter(([, target]) => target === p.seat).map(([v]) => Number(v));
  const count = (view.vote_counts || {})[String(p.seat)] || 0;
  const parts = [seatName(p.seat)];
  if (p.seat === me) parts.push(t("seat.you"));
  parts.push(p.alive ? t("seat.alive") : t("seat.dead"));
  if (p.passed) parts.push(t("seat.passed"));
  if (p.left) parts.push(t("seat.left"));
  else if (offline) parts.push(t("seat.offline"));
  if (bot) parts.push(t("seat.bot"));
  if (known) parts.push(t("seat.known_is", { fact: roleName(known) }));
  if (tag) parts.push(tag);
  if (myVote) parts.push(t(night ? "seat.kills" : "seat.votes_for", { target: seatName(myVote) }));
  if (count) {
    parts.push(t(night ? "seat.kill_votes" : "seat.votes", { count }));
    if (voters.length) parts.push(t("seat.voted_by", { voters: voters.map(seatName).join(", ") }));
  }
  return parts.join(", ");
}
