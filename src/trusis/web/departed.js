// The host's cards of departed seats, under the seats (R53): a seat whose player left goes to a
// bot (a seat that passes by itself) or, through a link the host passes on, to a person — the
// same player, to let them back after leaving on purpose (D31), or someone new. A seat whose
// player lost their connection goes to a person only after a long absence (D52): until then its
// card says from when (the table's `person_from`, or the server's refusal where the table did
// not say), in the place of the link, which it offers only then — the card holds its place, so
// nothing moves when the link comes.

import { fill, focusKey, focusLost, h, localeFor, refocus } from "./dom.js";
import { post } from "./api.js";
import { lang, seatName, t } from "./i18n.js";
import { errorText } from "./errors.js";

export class DepartedSeats {
  constructor(store, { invite, onRefused }) {
    this.store = store;
    this.invite = invite;
    this.onRefused = onRefused;
    this.links = new Map(); // seat -> the claim link the host made for it
    this.waits = new Map(); // seat -> the refusal saying from when a person may take it (D52)
    this.el = h("div", { class: "departed-seats" });
    this.key = null;
  }

  stop() { clearTimeout(this.timer); }

  /** Drawn again only when what the cards say changes (a focused button stays focused). */
  render(view = this.store.view) {
    if (!view) return;
    const table = this.store.table;
    const host = table?.you_host && view.status === "running";
    const departed = host ? (table?.seats || []).filter((s) => s.departed) : [];
    const toBot = new Set((view.players || []).filter((p) => p.left).map((p) => p.seat));
    const from = new Map(departed.map((s) => [s.seat, this.personFrom(s)]));
    const key = JSON.stringify([lang(), departed.map((s) => [s.seat, s.name, s.kind, this.store.isBot(s.seat)]),
      [...toBot], [...this.links], [...from]]);
    if (key === this.key) return;
    this.key = key;
    this.wake([...from.values()]);
    const had = focusKey(this.el);
    fill(this.el, departed.map((s) => this.card(s, { toBot: toBot.has(s.seat), from: from.get(s.seat) })));
    // The link's button, or the one beside it, keeps the focus when its card is drawn again.
    if (had && focusLost()) refocus(this.el, [had, had.replace(/^btn-link-/, "btn-bot-"), had.replace(/^btn-bot-/, "btn-link-")]);
  }

  card(s, { toBot, from }) {
    const bot = this.store.isBot(s.seat);
    const wait = this.waits.get(s.seat);
    // A person may not take it yet: in the link's place, from when.
    const person = from !== null
      ? h("p", { class: "hint hand-wait" }, wait && !s.person_from
        ? errorText(wait, { offset: this.store.clock.offset || 0 })
        : t("host.person_from", { seat: seatName(s.seat), time: this.clock(from) }))
      : this.button("btn-link", "✉ ", t("host.to_person"), s.seat, () => this.replace(s.seat, "person"));
    // Who left on a line of its own, then short buttons (each named with the seat for a
    // screen reader): with the seat's whole name inside, they were tall and squeezed.
    return h("section", { class: "departed", attrs: { "data-seat": String(s.seat), "aria-label": seatName(s.seat) } },
      h("p", { class: "departed-who" }, t(bot ? "host.departed_bot" : "host.departed_left", { seat: seatName(s.seat) })),
      h("div", { class: "departed-buttons" },
        toBot && !bot ? this.button("btn-bot", "⚙ ", t("host.to_bot"), s.seat, () => this.replace(s.seat, "bot")) : null,
        person),
      this.links.has(s.seat) ? this.linkBox(s.seat, this.links.get(s.seat)) : null);
  }

  button(cls, mark, label, seat, click) {
    return h("button", {
      class: ["btn", "btn-small", cls], type: "button", dataset: { focus: `${cls}-${seat}` },
      attrs: { "aria-label": t("host.for_seat", { action: label, seat: seatName(seat) }) },
      on: { click },
    }, h("span", { attrs: { "aria-hidden": "true" } }, mark), label);
  }

  /** D52: when (server time) a person may take departed seat `s`, while still to come,
   * else null: the table's `person_from`, or a refusal's `until` where it did not say. */
  personFrom(s) {
    const now = this.store.now();
    const wait = this.waits.get(s.seat);
    const moments = [Number(s.person_from), Number(wait?.params?.until)].filter((m) => Number.isFinite(m) && m > now);
    return moments.length ? Math.max(...moments) : null;
  }

  /** The cards are drawn again when the first of `moments` (server time) comes. */
  wake(moments) {
    clearTimeout(this.timer);
    const next = moments.filter((m) => m !== null);
    if (!next.length) return;
    const ms = (Math.min(...next) - this.store.now()) * 1000 + 250;
    this.timer = setTimeout(() => { this.key = null; this.render(); }, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
  }

  /** hh:mm:ss on this browser's clock of a moment in server time. */
  clock(moment) {
    const local = new Date((moment - (this.store.clock.offset || 0)) * 1000);
    return local.toLocaleTimeString(localeFor(lang()), { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  /** The claim link to pass on, with what it does, and a button to copy it. */
  linkBox(seat, url) {
    const input = h("input", { class: "claim-url", type: "text", value: url, readOnly: true,
      attrs: { "aria-label": t("host.link_label", { seat: seatName(seat) }) } });
    const copied = h("span", { class: "hint", attrs: { role: "status" } });
    return h("div", { class: "claim-box" },
      h("p", { class: "hint" }, t("host.link_help", { seat: seatName(seat) })),
      h("div", { class: "claim-row" }, input,
        h("button", { class: "btn btn-small", type: "button", text: t("host.link_copy"), on: { click: async () => {
          input.select();
          try { await navigator.clipboard.writeText(url); copied.textContent = t("host.link_copied"); }
          catch { copied.textContent = t("host.link_select"); }
        } } })),
      copied);
  }

  async replace(seat, by) {
    const q = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    try {
      const answer = await post(`/api/tables/${encodeURIComponent(this.store.tableId)}/seats/${seat}/replace${q}`, { by, kind: "heuristic" });
      if (answer.link) this.links.set(seat, new URL(answer.link, location.origin).href);
      this.waits.delete(seat);
      this.key = null;
      if (answer.table) this.store.setTable(answer.table);  // the table draws the cards again
      else this.render();
    } catch (err) {
      if (err?.code !== "player_may_return") { this.onRefused(err); return; }
      // The table had not said when (another process counts the absence): the refusal does.
      this.waits.set(seat, { code: err.code, params: err.params || {} });
      this.key = null;
      this.render();
    }
  }
}
