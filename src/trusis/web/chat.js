// Chat: the public channel and a private thread per seat (R50), in one panel. System lines
// look different from speech and can never pass for it; dead speakers are marked ☠; the
// panel stops following new lines as soon as the reader scrolls up. Text is always text.

import { clockTime, fill, h } from "./dom.js";
import { announce, topModal } from "./dialogs.js";
import { isCommand, runCommand } from "./commands.js";
import { lang, phaseName, seatName, seatNameAs, sentence, t } from "./i18n.js";
import { errorText } from "./errors.js";
import { hideControl } from "./hideline.js";

const PUBLIC = "public";
/** D9: a message over 500 characters is refused (the server's MAX_MESSAGE). */
export const MESSAGE_MAX = 500;
/** How long a command's answer shows at least, when its phase ends meanwhile. */
const ANSWER_SHOWN_MS = 3000;
/** When the box starts to say how many characters are left. */
const COUNT_FROM = MESSAGE_MAX - 100;

/** A message's length as the server counts it (D9): characters (code points), once every
 * character that is not printable is a space, runs of spaces one, and the ends trimmed. */
export function messageLength(text) {
  return [...String(text).replace(/[\p{C}\p{Z}\s]+/gu, " ").trim()].length;
}

export class Chat {
  constructor(store, { send, onUnread, context }) {
    this.store = store;
    this.context = context || (() => ({}));
    this.send = send;
    this.onUnread = onUnread || (() => {});
    this.thread = PUBLIC;
    this.read = new Map();   // thread -> lines read
    this.visible = false;
    this.primed = false;
    this.chips = h("span", { class: "chat-chips" });
    // Choosing in the list changes nothing by itself (WCAG 3.2.2): its button, or Enter, opens the thread.
    this.pick = h("select", {
      class: "thread-pick", hidden: true, id: "thread-pick",
      on: { keydown: (ev) => { if (ev.key === "Enter") { ev.preventDefault(); this.openPicked(); } } },
    });
    this.pickOpen = h("button", {
      class: "btn btn-small thread-open", type: "button", hidden: true, text: t("chat.open_thread"),
      on: { click: () => this.openPicked() },
    });
    this.threads = h("div", { class: "chat-threads", attrs: { role: "group", "aria-label": t("chat.threads") } }, this.chips, this.pick, this.pickOpen);
    // A role="log" box around a real list: the items keep their list semantics (axe listitem).
    this.list = h("ol", {
      class: "chat-lines", attrs: { tabindex: "0", "aria-label": t("chat.public") },
      on: { scroll: () => this.scrolled() },
    });
    this.logBox = h("div", { class: "chat-log", attrs: { role: "log", "aria-live": "polite", "aria-label": t("chat.public") } }, this.list);
    this.more = h("button", {
      class: "btn btn-small chat-more", type: "button", hidden: true, text: t("chat.new_below"),
      on: { click: () => this.toBottom() },
    });
    // No maxlength: it cut a long paste at 500 without a word. The box keeps everything,
    // says how much is left near the limit, and refuses to send past it (D9), saying why.
    this.input = h("input", {
      type: "text", id: "chat-input",
      attrs: { autocomplete: "off", "aria-label": t("chat.input_label"), enterkeyhint: "send", "aria-describedby": "chat-count" },
      on: { input: () => this.countChars() },
    });
    this.count = h("p", { class: "chat-count", id: "chat-count" });
    this.to = h("p", { class: "chat-to", id: "chat-to" });
    this.error = h("p", { class: "chat-error", attrs: { role: "alert" } });
    this.answer = h("p", { class: "chat-answer", hidden: true });
    this.form = h("form", { class: "chat-form", on: { submit: (ev) => { ev.preventDefault(); this.submit(); } } },
      this.to, h("div", { class: "chat-row" }, this.input,
        h("button", { class: "btn btn-primary", type: "submit", text: t("chat.send") })), this.count, this.error, this.answer);
    this.el = h("div", { class: "chat" }, this.threads, h("div", { class: "chat-scroll" }, this.logBox, this.more), this.form);
    this.atBottom = true;
  }

  /** A line from a seat the reader blocks (blocks.js, D33): hidden; the log keeps the game. */
  hidden(line) { return !line.system && !!this.store.blocked?.has(line.from); }

  threadOf(line) {
    if (line.system || !line.to) return PUBLIC;
    return String(line.from === this.store.seat ? line.to : line.from);
  }

  lines(thread) {
    const game = this.store.chat.filter((l) => !this.hidden(l) && this.threadOf(l) === thread);
    if (thread !== PUBLIC) return game;
    // The waiting room's lines (D45) come first; once the game shows, under a heading.
    const before = (this.store.waitingChat || []).filter((l) => !this.hidden(l));
    if (!before.length || !this.store.view) return [...before, ...game];
    return [{ system: true, head: true, key: "before" }, ...before, ...game];
  }

  /** Before the start: the waiting room, where only public chat is open (D45). */
  waitingRoom() { return !this.store.view && (!this.store.table || this.store.table.status === "open"); }

  counts() {
    const counts = new Map([[PUBLIC, this.lines(PUBLIC).length - this.store.chat.filter(
      (l) => !this.hidden(l) && this.threadOf(l) === PUBLIC).length]]);
    for (const line of this.store.chat) {
      if (this.hidden(line)) continue;
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

  openPicked() {
    if (!this.pick.value) return;
    const thread = this.pick.value;
    this.pick.value = "";
    this.open(thread);
  }

  /** Whether a line shows in the chat box on screen now (else it is announced instead). */
  showing(line) {
    // Behind an open modal dialog the chat box is out of the accessibility tree, its live
    // log too: the announcer says the line (dialogs.js announce).
    return this.visible && !topModal() && this.threadOf(line) === this.thread;
  }

  /** In the screen-reader mode every line is spoken through the announcer: the box stays quiet. */
  setQuiet(quiet) { this.logBox.setAttribute("aria-live", quiet ? "off" : "polite"); }

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
    let text = this.input.value.trim();
    if (!text) return;
    if (isCommand(text)) {
      // A short command (/who, /votes, /help …): answered here, from the view this page has.
      this.input.value = "";
      const answer = await runCommand(text, { store: this.store, act: this.send, ...this.context() });
      this.answer.hidden = false;
      this.answer.textContent = answer;
      this.answerPhase = this.phaseKey();
      this.answerShown = Date.now();
      clearTimeout(this.answerTimer);
      announce(answer);
      return;
    }
    if (!this.canSay) { this.error.textContent = t(this.store.seat ? "chat.cannot_send" : "chat.spectator_send"); return; }
    if (text.startsWith("//")) text = text.slice(1);
    const length = messageLength(text);
    if (length > MESSAGE_MAX) {
      this.error.textContent = t("chat.too_long", { count: length, max: MESSAGE_MAX });
      this.tooLong = true;
      return;
    }
    const action = { do: "say", text };
    if (this.thread !== PUBLIC) action.to = Number(this.thread);
    clearInterval(this.slowTimer);
    this.error.textContent = "";
    this.input.value = "";
    this.countChars();
    const answer = await this.send(action);
    if (answer?.type === "refused") {
      this.input.value = text;
      this.countChars();
      if (answer.code === "rate_limited") this.slowDown(Number(answer.params?.retry_after) || 2);
      else this.error.textContent = errorText(answer);
    }
  }

  /** How many characters are left, near the limit; past it, that the line cannot go. */
  countChars() {
    const length = messageLength(this.input.value);
    const over = length > MESSAGE_MAX;
    const text = over ? t("chat.over", { count: length, max: MESSAGE_MAX, over: length - MESSAGE_MAX })
      : length >= COUNT_FROM ? t("chat.left", { count: MESSAGE_MAX - length }) : "";
    if (this.count.textContent !== text) this.count.textContent = text;
    this.count.classList.toggle("is-over", over);
    if (!over && this.tooLong) { this.tooLong = false; this.error.textContent = ""; }
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

  /** The phase now (and whether the game runs): a command's answer belongs to it. */
  phaseKey() {
    const view = this.store.view;
    return JSON.stringify([view?.status ?? null, view?.phase ?? null]);
  }

  /** "Sent: you pass." answered a command of a phase that is over: it goes (once it has
   * shown a few seconds — the pass that ends a phase is answered as the next one begins). */
  dropStaleAnswer() {
    if (this.answer.hidden || this.answerPhase === this.phaseKey()) return;
    const left = (this.answerShown || 0) + ANSWER_SHOWN_MS - Date.now();
    clearTimeout(this.answerTimer);
    if (left > 0) { this.answerTimer = setTimeout(() => this.dropStaleAnswer(), left); return; }
    this.answer.hidden = true;
    this.answer.textContent = "";
  }

  render() {
    this.dropStaleAnswer();
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
        // The name is the visible label (WCAG 2.5.3), the unread count told in words.
        return h("button", {
          type: "button", class: ["thread", th === this.thread ? "is-current" : "", th === PUBLIC ? "" : "is-private"],
          dataset: { thread: th },
          attrs: { "aria-pressed": String(th === this.thread) },
          on: { click: () => this.open(th) },
        }, h("span", { attrs: { "aria-hidden": "true" } }, th === PUBLIC ? "◎ " : "✉ "), label,
        n ? h("span", { class: "unread", attrs: { "aria-hidden": "true" } }, String(n)) : null,
        n ? h("span", { class: "sr-only" }, `, ${t("chat.unread", { count: n })}`) : null);
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
      this.pickOpen.hidden = !targets.length;
      this.pickOpen.setAttribute("aria-label", t("chat.open_thread_label"));
    }
  }

  /** Append what is new (a live region re-announces whatever is replaced); redraw otherwise:
   * at the start the waiting room's lines go under a heading, and a seat taken or left
   * changes which lines are this page's (both on the same connection: no `welcome` clears). */
  renderLines(force = false) {
    const lines = this.lines(this.thread);
    const wasBottom = this.atBottom;
    const same = !force && this.drawn?.thread === this.thread && lines.length >= this.drawn.count
      && this.drawn.version === this.store.chatVersion
      && this.drawn.count > 0 && this.drawn.first === lines[0]?.key && this.drawn.seat === this.store.seat;
    const name = this.thread === PUBLIC ? t("chat.public") : t("chat.private_with", { seat: seatName(this.thread) });
    this.list.setAttribute("aria-label", name);
    this.logBox.setAttribute("aria-label", name);
    if (same) {
      for (const l of lines.slice(this.drawn.count)) this.list.append(this.line(l));
    } else {
      const none = this.store.blocked?.size ? t("block.hidden") : t("chat.empty");
      fill(this.list, lines.length ? lines.map((l) => this.line(l)) : h("li", { class: "chat-empty" }, none));
    }
    const grew = lines.length > (this.drawn?.count || 0) && this.drawn?.thread === this.thread;
    this.drawn = { thread: this.thread, count: lines.length, first: lines[0]?.key, seat: this.store.seat, version: this.store.chatVersion };
    if (wasBottom) this.toBottom();
    else if (grew) this.more.hidden = false;
  }

  /** After a change of language: draw everything again. */
  redraw() {
    this.drawn = null;
    this.chipsKey = null;
    this.pickKey = null;
    this.more.textContent = t("chat.new_below");
    this.pickOpen.textContent = t("chat.open_thread");
    this.form.querySelector("button").textContent = t("chat.send");
    this.input.setAttribute("aria-label", t("chat.input_label"));
    this.threads.setAttribute("aria-label", t("chat.threads"));
    this.countChars();
    this.render();
  }

  line(l) {
    const time = l.t ? h("time", { class: "chat-time" }, clockTime(l.t, lang())) : null;
    if (l.head) {
      return h("li", { class: "chat-line is-system is-before-head" },
        h("span", { class: "chat-text" }, t("chat.before_game")));
    }
    if (l.system) {
      const text = l.code === "phase_started" ? phaseName(l.params) : sentence(`event.${l.code}`, l.params);
      return h("li", { class: "chat-line is-system" }, time,
        h("span", { class: "sys-mark", attrs: { "aria-label": t("chat.system") } }, "⚑"),
        h("span", { class: "chat-text" }, text));
    }
    if (l.before) {
      const mine = l.from === this.store.seat && this.waitingRoom();
      return h("li", { class: ["chat-line", "is-before", mine ? "is-mine" : "", l.hidden ? "is-hidden-line" : ""] }, time,
        h("span", { class: "chat-who" }, l.name || seatName(l.from), ": "),
        ...this.said(l, "waiting"));
    }
    const speaker = this.store.player(l.from);
    const dead = l.dead ?? (speaker ? !speaker.alive : false);
    const mine = l.from === this.store.seat;
    return h("li", { class: ["chat-line", mine ? "is-mine" : "", l.to ? "is-private" : "", dead ? "is-dead" : "", l.hidden ? "is-hidden-line" : ""] },
      time,
      h("span", { class: "chat-who" },
        dead ? h("span", { class: "dead-mark", attrs: { title: t("seat.dead"), "aria-label": t("seat.dead") } }, "☠ ") : null,
        seatNameAs(l.from, l.name),
        l.to ? h("span", { class: "chat-private" }, ` → ${seatName(l.to)} ${t("chat.private_mark")}`) : null,
        ": "),
      ...this.said(l, "game"));
  }

  /** A line's text, or for a line a moderator hid (D71) the placeholder — staff and its
   * writer read the text, marked hidden with the reason —; and for staff who watch (the
   * server names each line to them, `line`) the control that hides or shows it again. */
  said(l, place) {
    const text = l.hidden && typeof l.reason !== "string"
      ? h("span", { class: "chat-text chat-hidden" }, t("chat.hidden_line"))
      : h("span", { class: "chat-text" }, l.text);
    const mark = l.hidden && typeof l.reason === "string"
      ? h("span", { class: "chat-hidden-mark" }, " ", t("chat.hidden_mark", { reason: l.reason })) : null;
    const tools = Number.isInteger(l.line) && this.store.tableId
      ? hideControl(this.store.tableId, place, l.line, !!l.hidden) : null;
    return [text, mark, tools ? [" ", tools] : null];
  }

  renderForm() {
    const me = this.store.seat;
    const say = this.store.legal("say");
    const ok = this.waitingRoom() ? !!me && this.thread === PUBLIC
      : !!me && !!say && (this.thread === PUBLIC || (say.targets || []).includes(Number(this.thread)));
    // The box stays open for the commands (/who, /time …) even where speech is not allowed.
    this.canSay = ok;
    this.to.textContent = !me ? t("chat.spectator")
      : !ok ? t("chat.cannot")
        : this.thread === PUBLIC ? t("chat.to_all") : t("chat.to_private", { seat: seatName(this.thread) });
    this.input.setAttribute("placeholder", !ok ? t("chat.placeholder_commands")
      : this.thread === PUBLIC ? t("chat.placeholder") : t("chat.placeholder_private"));
  }
}
