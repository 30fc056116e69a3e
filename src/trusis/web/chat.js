// Chat: the public channel and a private thread per seat (R50), in one panel. System lines
// look different from speech and can never pass for it; dead speakers are marked ☠; the
// panel stops following new lines as soon as the reader scrolls up. Text is always text.

import { clockTime, fill, h } from "./dom.js";
import { capital, lang, msg, phaseName, seatName, t } from "./i18n.js";
import { errorText } from "./errors.js";

const PUBLIC = "public";

export class Chat {
  constructor(store, { send, onUnread }) {
    this.store = store;
    this.send = send;
    this.onUnread = onUnread || (() => {});
    this.thread = PUBLIC;
    this.read = new Map();   // thread -> lines read
    this.visible = false;
    this.primed = false;
    this.chips = h("span", { class: "chat-chips" });
    this.pick = h("select", {
      class: "thread-pick", hidden: true,
      on: { change: (ev) => { if (ev.target.value) { this.open(ev.target.value); ev.target.value = ""; } } },
    });
    this.threads = h("div", { class: "chat-threads", attrs: { role: "group", "aria-label": t("chat.threads") } }, this.chips, this.pick);
    this.list = h("ol", {
      class: "chat-lines", attrs: { role: "log", "aria-live": "polite", "aria-label": t("chat.public"), tabindex: "0" },
      on: { scroll: () => this.scrolled() },
    });
    this.more = h("button", {
      class: "btn btn-small chat-more", type: "button", hidden: true, text: t("chat.new_below"),
      on: { click: () => this.toBottom() },
    });
    this.input = h("input", {
      type: "text", maxLength: 500, id: "chat-input",
      attrs: { autocomplete: "off", "aria-label": t("chat.input_label"), enterkeyhint: "send" },
    });
    this.to = h("p", { class: "chat-to", id: "chat-to" });
    this.error = h("p", { class: "chat-error", attrs: { role: "alert" } });
    this.form = h("form", { class: "chat-form", on: { submit: (ev) => { ev.preventDefault(); this.submit(); } } },
      this.to, h("div", { class: "chat-row" }, this.input,
        h("button", { class: "btn btn-primary", type: "submit", text: t("chat.send") })), this.error);
    this.el = h("div", { class: "chat" }, this.threads, h("div", { class: "chat-scroll" }, this.list, this.more), this.form);
    this.atBottom = true;
  }

  threadOf(line) {
    if (line.system || !line.to) return PUBLIC;
    return String(line.from === this.store.seat ? line.to : line.from);
  }

  lines(thread) { return this.store.chat.filter((l) => this.threadOf(l) === thread); }

  counts() {
    const counts = new Map([[PUBLIC, 0]]);
    for (const line of this.store.chat) {
      const th = this.threadOf(line);
      counts.set(th, (counts.get(th) || 0) + 1);
    }
    return counts;
  }

  setVisible(visible) {
    this.visible = visible;
    if (visible) this.markRead();
    this.render();
  }

  markRead() { this.read.set(this.thread, this.lines(this.thread).length); }

  unreadTotal() {
    let total = 0;
    for (const [th, n] of this.counts()) {
      const mine = this.store.chat.filter((l) => this.threadOf(l) === th && !l.system && l.from !== this.store.seat).length;
      total += Math.min(mine, Math.max(0, n - (this.read.get(th) || 0)));
    }
    return total;
  }

  open(thread) {
    this.thread = String(thread);
    this.markRead();
    this.atBottom = true;
    this.render();
    this.input.focus();
  }

  scrolled() {
    const el = this.list;
    this.atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - 12;
    if (this.atBottom) this.more.hidden = true;
  }

  toBottom() {
    this.list.scrollTop = this.list.scrollHeight;
    this.atBottom = true;
    this.more.hidden = true;
  }

  async submit() {
    const text = this.input.value.trim();
    if (!text) return;
    const action = { do: "say", text };
    if (this.thread !== PUBLIC) action.to = Number(this.thread);
    clearInterval(this.slowTimer);
    this.error.textContent = "";
    this.input.value = "";
    const answer = await this.send(action);
    if (answer?.type === "refused") {
      this.input.value = text;
      if (answer.code === "rate_limited") this.slowDown(Number(answer.params?.retry_after) || 2);
      else this.error.textContent = errorText(answer);
    }
  }

  /** The chat's rate limit refused a line: it stays in the box, and a countdown says when
   * it can go (the server's `retry_after`), then that it can go now. */
  slowDown(seconds) {
    clearInterval(this.slowTimer);
    const until = Date.now() + seconds * 1000;
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left > 0) { this.error.textContent = t("chat.too_fast", { count: left }); return; }
      clearInterval(this.slowTimer);
      this.error.textContent = this.input.value.trim() ? t("chat.send_again") : "";
    };
    tick();
    this.slowTimer = setInterval(tick, 250);
  }

  render() {
    const counts = this.counts();
    if (!this.primed && this.store.view) {
      // What was there before this page opened counts as read.
      this.primed = true;
      for (const [th, n] of counts) this.read.set(th, n);
    }
    if (this.visible) this.markRead();
    this.renderThreads(counts);
    this.renderLines();
    this.renderForm();
    this.onUnread(this.unreadTotal());
  }

  /** The thread chips and the "private message to…" list, each drawn again only when
   * what it shows changes (an open list or a focused chip is never swept away). */
  renderThreads(counts) {
    const me = this.store.seat;
    const say = this.store.legal("say");
    const others = (this.store.view?.players || []).filter((p) => p.seat !== me);
    const open = [PUBLIC, ...others.map((p) => String(p.seat)).filter((s) => counts.has(s))];
    if (this.thread !== PUBLIC && !open.includes(this.thread)) open.push(this.thread);
    const unread = (th) => Math.max(0, (counts.get(th) || 0) - (this.read.get(th) || 0));
    const chipsKey = JSON.stringify([lang(), this.thread, open.map((th) => [th, seatName(th), unread(th)])]);
    if (chipsKey !== this.chipsKey) {
      this.chipsKey = chipsKey;
      const focused = document.activeElement?.closest?.(".thread")?.dataset.thread;
      fill(this.chips, open.map((th) => {
        const n = unread(th);
        const label = th === PUBLIC ? t("chat.public") : seatName(th);
        return h("button", {
          type: "button", class: ["thread", th === this.thread ? "is-current" : "", th === PUBLIC ? "" : "is-private"],
          dataset: { thread: th },
          attrs: { "aria-pressed": String(th === this.thread), "aria-label": n ? `${label}, ${t("chat.unread", { count: n })}` : label },
          on: { click: () => this.open(th) },
        }, th === PUBLIC ? "◎ " : "✉ ", label, n ? h("span", { class: "unread", attrs: { "aria-hidden": "true" } }, String(n)) : null);
      }));
      if (focused) this.chips.querySelector(`[data-thread="${CSS.escape(focused)}"]`)?.focus();
    }
    const targets = me ? others.filter((p) => (say?.targets || []).includes(p.seat)) : [];
    const pickKey = JSON.stringify([lang(), targets.map((p) => [p.seat, p.name])]);
    if (pickKey !== this.pickKey) {
      this.pickKey = pickKey;
      fill(this.pick, h("option", { value: "", text: t("chat.private_to") }),
        targets.map((p) => h("option", { value: String(p.seat), text: seatName(p.seat) })));
      this.pick.setAttribute("aria-label", t("chat.private_to"));
      this.pick.hidden = !targets.length;
    }
  }

  /** Append what is new (a live region re-announces whatever is replaced); redraw otherwise. */
  renderLines(force = false) {
    const lines = this.lines(this.thread);
    const wasBottom = this.atBottom;
    const same = !force && this.drawn?.thread === this.thread && lines.length >= this.drawn.count
      && this.drawn.count > 0;
    this.list.setAttribute("aria-label", this.thread === PUBLIC ? t("chat.public") : t("chat.private_with", { seat: seatName(this.thread) }));
    if (same) {
      for (const l of lines.slice(this.drawn.count)) this.list.append(this.line(l));
    } else {
      fill(this.list, lines.length ? lines.map((l) => this.line(l)) : h("li", { class: "chat-empty" }, t("chat.empty")));
    }
    const grew = lines.length > (this.drawn?.count || 0) && this.drawn?.thread === this.thread;
    this.drawn = { thread: this.thread, count: lines.length };
    if (wasBottom) this.toBottom();
    else if (grew) this.more.hidden = false;
  }

  /** After a change of language: draw everything again. */
  redraw() {
    this.drawn = null;
    this.chipsKey = null;
    this.pickKey = null;
    this.more.textContent = t("chat.new_below");
    this.form.querySelector("button").textContent = t("chat.send");
    this.input.setAttribute("aria-label", t("chat.input_label"));
    this.threads.setAttribute("aria-label", t("chat.threads"));
    this.render();
  }

  line(l) {
    const time = l.t ? h("time", { class: "chat-time" }, clockTime(l.t, lang())) : null;
    if (l.system) {
      const text = l.code === "phase_started" ? phaseName(l.params) : capital(msg(`event.${l.code}`, l.params));
      return h("li", { class: "chat-line is-system" }, time,
        h("span", { class: "sys-mark", attrs: { "aria-label": t("chat.system") } }, "⚑"),
        h("span", { class: "chat-text" }, text));
    }
    const speaker = this.store.player(l.from);
    const dead = l.dead ?? (speaker ? !speaker.alive : false);
    const mine = l.from === this.store.seat;
    return h("li", { class: ["chat-line", mine ? "is-mine" : "", l.to ? "is-private" : "", dead ? "is-dead" : ""] },
      time,
      h("span", { class: "chat-who" },
        dead ? h("span", { class: "dead-mark", attrs: { title: t("seat.dead"), "aria-label": t("seat.dead") } }, "☠ ") : null,
        seatName(l.from),
        l.to ? h("span", { class: "chat-private" }, ` → ${seatName(l.to)} ${t("chat.private_mark")}`) : null,
        ": "),
      h("span", { class: "chat-text" }, l.text));
  }

  renderForm() {
    const me = this.store.seat;
    const say = this.store.legal("say");
    const ok = !!me && !!say && (this.thread === PUBLIC || (say.targets || []).includes(Number(this.thread)));
    this.input.disabled = !ok;
    this.form.querySelector("button").disabled = !ok;
    this.to.textContent = !me ? t("chat.spectator")
      : !ok ? t("chat.cannot")
        : this.thread === PUBLIC ? t("chat.to_all") : t("chat.to_private", { seat: seatName(this.thread) });
    this.input.setAttribute("placeholder", this.thread === PUBLIC ? t("chat.placeholder") : t("chat.placeholder_private"));
  }
}
