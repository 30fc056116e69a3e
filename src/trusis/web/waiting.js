// Before the start: the table's seats, taking and leaving one, and for the host bots of a
// kind (GET /api/bots), freeing seats, the invite link of a private table, Start, and
// Close table (D51).

import { fill, focusKey, focusLost, h, refocus } from "./dom.js";
import { del, get, post } from "./api.js";
import { lang, roleName, t } from "./i18n.js";
import { Balance } from "./balance.js";
import { errorText } from "./errors.js";
import { confirmDialog } from "./dialogs.js";
import { keptBadge, keptCount, takeBotButton, waitingRematch, waitingSeries } from "./rematch.js";
import { paceText } from "./yourgames.js";

let botKinds = null;

/** The bot kinds (GET /api/bots), asked once: every draw waiting for them waits for the
 * same answer, so none can finish before one that began earlier. */
function kinds() {
  if (!botKinds) {
    botKinds = get("/api/bots").then((data) => {
      const list = Array.isArray(data) ? data : data.kinds || [];
      return { kinds: list.map((k) => (typeof k === "string" ? k : k.kind || k.name)), default: data.default || list[0] };
    }, () => ({ kinds: ["heuristic", "random"], default: "heuristic" }));
  }
  return botKinds;
}

/** After how long away a bot plays a seat: the host's seconds, or a slow table's day or
 * whole day and night, the longer (D63). */
function takeoverText(opts) {
  if (!opts.slow) return t("wait.takeover", { count: opts.grace_seconds });
  const hours = Math.max(24, Math.round((opts.day_seconds + opts.night_seconds) / 360) / 10);
  return t("wait.takeover_slow", { hours });
}

export class WaitingRoom {
  constructor(app, store, { invite, onClosed, onRemoved }) {
    this.app = app;
    this.store = store;
    this.invite = invite;
    this.onClosed = onClosed;
    this.onRemoved = onRemoved;
    this.closing = false;  // this page's Close table is under way, or done (D51)
    this.balance = new Balance();
    this.error = h("p", { class: "form-error", attrs: { role: "alert" } });
    this.el = h("section", { class: "waiting", attrs: { tabindex: "-1" } });
    this.kind = null;
    this.busy = false;
    // A redraw replaces the buttons: one between a press and its release loses the click
    // (seen when another player sat down just then). While a press is held in the waiting
    // room the redraw waits, and happens once the click has been delivered.
    this.pressed = false;
    this.el.addEventListener("pointerdown", () => { this.pressed = true; });
    this.release = () => {
      if (!this.pressed) return;
      this.pressed = false;
      setTimeout(() => this.render(), 0);
    };
    document.addEventListener("pointerup", this.release);
    document.addEventListener("pointercancel", this.release);
  }

  path(suffix = "") {
    const q = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    return `/api/tables/${encodeURIComponent(this.store.tableId)}${suffix}${q}`;
  }

  async call(fn) {
    if (this.busy) return;
    this.busy = true;
    this.pending = focusKey(this.el) || this.pending;
    this.error.textContent = "";
    try {
      const answer = await fn();
      const table = answer?.table || (answer?.seats ? answer : null);
      if (table) this.store.setTable(table);
    } catch (err) {
      this.error.textContent = errorText(err);
      // D55: the host removed this player (the news of it did not reach this page): the
      // page says so as it would have, rather than offer the seats again.
      if (err?.code === "removed") this.onRemoved?.();
    } finally {
      this.busy = false;
      this.render();
    }
  }

  sit(seat) { return this.call(() => post(this.path("/seats"), seat ? { seat } : {})); }
  stand() { return this.call(() => del(this.path("/seats/mine"))); }
  addBot(seat) { return this.call(() => post(this.path("/bots"), { kind: this.kind, ...(seat ? { seat } : {}) })); }
  free(seat) { return this.call(() => del(this.path(`/seats/${seat}`))); }
  /** D34: the person leaves the waiting room and cannot sit here again (asked first). */
  async remove(seat, name) {
    const sure = await confirmDialog({ title: t("wait.remove_title", { name }), body: t("wait.remove_body"), confirm: t("wait.remove"), danger: true });
    if (sure) await this.call(() => post(this.path(`/seats/${seat}/remove`)));
  }
  start() { return this.call(() => post(this.path("/start"))); }

  /** D51: the host calls the table off for everyone at it (asked first): the page goes
   * back to the lobby, and everyone else's says that the host closed it. */
  async closeTable() {
    const name = this.store.table?.name || "";
    const sure = await confirmDialog({ title: t("wait.close_title", { name }), body: t("wait.close_body"), confirm: t("wait.close_confirm"), danger: true });
    if (!sure || this.busy) return;
    this.busy = true;
    this.closing = true;
    this.error.textContent = "";
    try {
      await post(this.path("/close"));
    } catch (err) {
      if (err?.code !== "table_closed") {  // closed already (another page of theirs): done
        this.closing = false;
        this.error.textContent = errorText(err);
      }
    } finally {
      this.busy = false;
    }
    if (this.closing) this.onClosed(name);
    else this.render();
  }

  async fill() {
    const empty = (this.store.table?.seats || []).filter((s) => !s.kind).map((s) => s.seat);
    for (const seat of empty) {
      await this.addBot(seat);
      if (this.error.textContent) break;
    }
  }

  async render() {
    if (!this.store.table) { fill(this.el, h("p", { class: "hint" }, t("wait.loading"))); return; }
    const { kinds: list, default: def } = await kinds();
    // The table as it is now, read after the wait: a draw that waited must not put back
    // the seats of the moment it was asked for (another player sat down meanwhile).
    const table = this.store.table;
    if (!this.kind) this.kind = def;
    if (this.pressed) return;  // drawn on release (see the constructor)
    // Drawn again only when the table changes: an open list or a focused button stays.
    const key = JSON.stringify([lang(), table, this.busy, !!this.app.me]);
    if (key === this.key) return;
    this.key = key;
    const host = !!table.you_host;
    const seats = table.seats || [];
    const mine = seats.find((s) => s.you);
    const empty = seats.filter((s) => !s.kind);
    const opts = table.options || {};
    // A private table's link carries its invite (the host alone sees it); a public table's
    // link is its plain address, for everybody to pass on.
    const secret = table.invite && opts.private;
    const link = secret ? `${location.origin}/t/${encodeURIComponent(table.id)}?invite=${encodeURIComponent(table.invite)}`
      : opts.private ? null : `${location.origin}/t/${encodeURIComponent(table.id)}`;
    const kindSelect = h("select", { id: "bot-kind", dataset: { focus: "bot-kind" }, on: { change: (ev) => { this.kind = ev.target.value; } } },
      list.map((k) => h("option", { value: k, text: t(`bot.${k}`) === `bot.${k}` ? k : t(`bot.${k}`) })));
    kindSelect.value = this.kind;
    const copy = link ? h("button", { class: "btn btn-small", type: "button", text: t("wait.copy"),
      on: { click: async (ev) => {
        try {
          await navigator.clipboard.writeText(link);
          ev.target.textContent = t("wait.copied");
          copied.textContent = t("wait.copied_note");
          this.copiedAt = Date.now();  // a redraw meanwhile keeps the note
        } catch { linkInput.select(); }
      } } }) : null;
    const copied = h("p", { class: "hint invite-copied", attrs: { role: "status" } },
      Date.now() - (this.copiedAt || 0) < 10000 ? t("wait.copied_note") : "");
    const linkInput = link ? h("input", { type: "text", readOnly: true, value: link, id: "invite-link", on: { focus: (ev) => ev.target.select() } }) : null;
    this.balance.show(opts.seats || seats.length, opts.set || { standard: true });
    // Every redraw replaces the buttons: focus goes back where the player was (WCAG 2.4.3).
    const parked = document.activeElement === this.el;  // the room itself (a name just chosen)
    const had = focusKey(this.el) || (focusLost() || parked ? this.pending : null);
    fill(this.el,
      h("div", { class: "waiting-head" },
        h("h1", {}, table.name),
        h("p", { class: "hint" }, t("wait.host", { name: table.host?.name || "?" }), " · ",
          opts.slow ? paceText(opts) : t("lobby.timers", { day: opts.day_seconds, night: opts.night_seconds }), " · ",
          opts.set?.custom ? t("lobby.custom") : t("lobby.standard"),
          opts.private ? ` · ${t("wait.private")}` : "",
          opts.bots_take_over ? ` · ${takeoverText(opts)}` : "")),
      waitingRematch(this),
      // D72: a ban freed their seat, and someone took it before the ban was lifted.
      table.seat_lost && !mine ? h("p", { class: "card notice seat-lost", attrs: { role: "status" } },
        t("wait.seat_lost", { seat: table.seat_lost })) : null,
      link ? h("div", { class: "card invite" }, h("label", { attrs: { for: "invite-link" } }, t(secret ? "wait.invite" : "wait.share")),
        h("div", { class: "row" }, linkInput, copy), copied, h("p", { class: "hint" }, t(secret ? "wait.invite_hint" : "wait.share_hint"))) : null,
      h("div", { class: "waiting-grid" },
        h("section", { class: "card" },
          h("h2", {}, t("wait.seats", { taken: seats.length - empty.length - keptCount(seats), count: seats.length })),
          h("ol", { class: "wait-seats" }, seats.map((s) => this.seatRow(s, { host, mine }))),
          h("div", { class: "row wrap" },
            !this.app.me ? h("p", { class: "hint" }, t("wait.need_name"))
              : mine ? h("button", { class: "btn", type: "button", text: t("wait.stand"), dataset: { focus: "stand" }, on: { click: () => this.stand() } })
                : empty.length ? h("button", { class: "btn btn-primary", type: "button", text: t("wait.sit"), dataset: { focus: "sit" }, on: { click: () => this.sit(null) } }) : null),
          host ? h("div", { class: "host-tools" },
            h("h3", {}, t("wait.host_tools")),
            h("div", { class: "row wrap" },
              h("label", { attrs: { for: "bot-kind" } }, t("wait.bot_kind")), kindSelect,
              h("button", { class: "btn", type: "button", text: t("wait.add_bot"), dataset: { focus: "add-bot" }, disabled: !empty.length, on: { click: () => this.addBot(null) } }),
              h("button", { class: "btn", type: "button", text: t("wait.fill_bots"), dataset: { focus: "fill" }, disabled: !empty.length, on: { click: () => this.fill() } })),
            h("div", { class: "row wrap" },
              h("button", { class: "btn btn-primary btn-start", type: "button", text: t("wait.start"), dataset: { focus: "start" }, disabled: !!empty.length || keptCount(seats) > 0, on: { click: () => this.start() } }),
              empty.length ? h("span", { class: "hint" }, t("wait.empty", { count: empty.length })) : null),
            h("div", { class: "row wrap host-close" },
              h("button", { class: "btn btn-small btn-ghost btn-close-table", type: "button", text: t("wait.close"), dataset: { focus: "close-table" }, disabled: this.busy, on: { click: () => this.closeTable() } }),
              h("span", { class: "hint" }, t("wait.close_hint"))))
            : h("p", { class: "hint" }, t("wait.host_starts")),
          this.error),
        h("section", { class: "card" },
          h("h2", {}, t("create.dealt")),
          h("ul", { class: "dealt-list" }, Object.entries(table.roles || {}).map(([r, n]) =>
            h("li", {}, h("span", { class: "count" }, `${n} ×`), " ", roleName(r)))),
          this.balance.el)),
      waitingSeries(this));
    if (had && (focusLost() || parked)) refocus(this.el, this.nextFocus(had, empty), this.el);
    if (!this.busy) this.pending = null;
  }

  /** Where the player continues when the control they used is gone or asleep. */
  nextFocus(key, empty) {
    const seat = key.match(/-(\d+)$/)?.[1];
    const free = empty.map((s) => s.seat);
    const after = free.find((s) => s > Number(seat)) ?? free[0];
    if (key.startsWith("sit")) return [key, "fill", "stand"];
    if (key === "stand") return ["sit", "stand"];
    if (key.startsWith("bot-")) return [key, `bot-${after}`, "start"];
    if (key.startsWith("free-")) return [`bot-${seat}`, `sit-${seat}`, "add-bot"];
    if (key === "add-bot" || key === "fill") return [key, "start"];
    return [key];
  }

  seatRow(s, { host, mine }) {
    const kind = s.kind;
    const label = !kind ? t("wait.free")
      : kind === "bot" ? `⚙ ${s.name}` : kind === "program" ? `⌨ ${s.name}` : s.name;
    return h("li", { class: ["wait-seat", kind ? "is-taken" : "is-free", s.you ? "is-me" : ""] },
      h("span", { class: "seat-num" }, String(s.seat)),
      h("span", { class: "wait-name" }, label),
      s.you ? h("span", { class: "badge badge-you" }, t("seat.you")) : null,
      keptBadge(s),
      kind === "bot" ? h("span", { class: "badge" }, t("seat.bot"), s.bot_kind ? ` · ${s.bot_kind}` : "") : null,
      kind === "person" && s.connected === false ? h("span", { class: "badge" }, `⚡ ${t("seat.offline")}`) : null,
      h("span", { class: "wait-actions" },
        !kind && this.app.me ? h("button", { class: "btn btn-small", type: "button", text: t("wait.sit_here"), dataset: { focus: `sit-${s.seat}` }, attrs: { "aria-label": t("wait.sit_in", { seat: s.seat }) }, on: { click: () => this.sit(s.seat) } }) : null,
        !kind && host ? h("button", { class: "btn btn-small", type: "button", text: t("wait.bot_here"), dataset: { focus: `bot-${s.seat}` }, attrs: { "aria-label": t("wait.bot_in", { seat: s.seat }) }, on: { click: () => this.addBot(s.seat) } }) : null,
        takeBotButton(this, s),
        kind && kind !== "person" && host && !s.you ? h("button", { class: "btn btn-small btn-ghost", type: "button", text: t(kind === "bot" ? "wait.remove_bot" : "wait.free_seat"), dataset: { focus: `free-${s.seat}` }, attrs: { "aria-label": t(kind === "bot" ? "wait.remove_bot_n" : "wait.free_seat_n", { seat: s.seat, name: s.name }) }, on: { click: () => this.free(s.seat) } }) : null,
        kind === "person" && host && !s.you ? h("button", { class: "btn btn-small btn-ghost", type: "button", text: t("wait.remove"), dataset: { focus: `free-${s.seat}` }, attrs: { "aria-label": t("wait.remove_label", { name: s.name }) }, on: { click: () => this.remove(s.seat, s.name) } }) : null));
  }

  stop() {
    this.balance.stop();
    document.removeEventListener("pointerup", this.release);
    document.removeEventListener("pointercancel", this.release);
  }
}
