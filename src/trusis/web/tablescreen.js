// A table: the waiting room before the start, the game (status bar, seats, action panel,
// chat, log, notebook), then the end screen. One WebSocket feeds one store; every panel
// renders from the store's latest view.

import { fill, focusLost, h } from "./dom.js";
import { get, post } from "./api.js";
import { DepartedSeats } from "./departed.js";
import { hasMsg, lang, onLangChange, seatName, sentence, setNames, t } from "./i18n.js";
import { GameStore } from "./game.js";
import { TableConnection } from "./net.js";
import { StatusBar } from "./status.js";
import { SeatRing } from "./seats.js";
import { ActionPanel } from "./actions.js";
import { Chat } from "./chat.js";
import { GameLog, eventText, toldDeath } from "./log.js";
import { Notebook } from "./notebook.js";
import { EndScreen } from "./endscreen.js";
import { WaitingRoom } from "./waiting.js";
import { Tabs } from "./tabs.js";
import { roleCard } from "./rules.js";
import { announce, banner, clearBanners, recheckDialogs, resultCard } from "./dialogs.js";
import { spoken } from "./speech.js";
import { applySrMode, srMode, verbosityControl } from "./srmode.js";
import { nameForm } from "./lobby.js";
import { errorText } from "./errors.js";
import { reportButton } from "./report.js";
import { blockButton, loadBlocked } from "./blocks.js";
import { showMute, showWarning } from "./moderation.js";
import { listenForShortcuts } from "./keys.js";

const PHONE = "(max-width: 700px)"; // style.css: phones, and 200% zoom of a 1280 px screen
const SHORT_HEIGHT = 500; // style.css: a short window, where only the action bar is pinned
// The table is gone for this player before its start, and the card's title says why: closed
// (D51), or its host removed them from the waiting room (D34, D55).
const GONE = new Map([["table_closed", "wait.closed_title"], ["table_closed_you", "wait.closed_title"],
  ["table_expired", "wait.closed_title"], ["removed", "wait.removed_title"]]);
const RESULTS = new Set(["sweep_result", "foresee_result", "gravekeeper_result", "gravedigger_result"]);

const WAIT_CHANGES = new Set(["passed", "phase_started", "game_over"]);

export class TableScreen {
  constructor(app, tableId, invite) {
    this.app = app;
    this.invite = invite;
    // The host's link to a departed seat (R53, D29, D31): /t/{id}#claim=CODE. The fragment
    // never reaches a server log; it is read once, then taken out of the address bar.
    this.claimCode = new URLSearchParams(location.hash.slice(1)).get("claim");
    const store = this.store = new GameStore(tableId);
    store.invite = invite; // a private table's link: every request about the table carries it
    this.notebook = new Notebook(store);
    this.ring = new SeatRing(store, this.notebook, { onSelect: () => this.actions.render(), onTab: () => this.actions.readyButton() });
    this.actions = new ActionPanel(store, { act: (a) => this.act(a), selected: () => this.ring.selected });
    this.chat = new Chat(store, {
      send: (a) => this.act(a), onUnread: (n) => this.unread(n),
      context: () => ({ notebook: this.notebook, prompt: () => this.actions.prompt() }),
    });
    this.log = new GameLog(store);
    this.status = new StatusBar(store, { onRole: () => this.app.rules.open(store.view?.composition, store.view?.role), prompt: () => this.actions.prompt(), retry: () => this.conn.wake() });
    this.waiting = new WaitingRoom(app, store, { invite, onClosed: (name) => this.closedByMe(name), onRemoved: () => this.fatal("removed") });
    this.end = new EndScreen(store, { invite, app, onLeave: () => this.app.navigate("/") });
    this.notebook.onChange = () => this.ring.render();
    this.side = new Tabs(["chat", "log", "notebook"], { label: t("tab.side"), cls: "tabs-side", idPrefix: "tab-d", onChange: () => this.showPanels() });
    this.phone = new Tabs(["table", "chat", "notebook", "log"], { label: t("tab.phone"), cls: "tabs-phone", idPrefix: "tab-p", onChange: (id, byUser) => { if (id !== "table") this.side.choose(id); this.showPanels(); if (byUser) this.toPanel(); } });
    this.centre = h("section", { class: "panel panel-table", id: "panel-table", attrs: { role: "tabpanel", "aria-labelledby": "tab-p-table" } });
    this.verbosity = verbosityControl();
    this.panels = {
      chat: h("section", { class: "panel", id: "panel-chat", attrs: { role: "tabpanel", "aria-labelledby": "tab-d-chat" } }, this.chat.el, this.verbosity.el),
      log: h("section", { class: "panel", id: "panel-log", attrs: { role: "tabpanel", "aria-labelledby": "tab-d-log" } }, this.log.el),
      notebook: h("section", { class: "panel", id: "panel-notebook", attrs: { role: "tabpanel", "aria-labelledby": "tab-d-notebook" } }, this.notebook.el),
    };
    this.layout = h("div", { class: "layout" }, this.centre,
      h("aside", { class: "side", attrs: { "aria-label": t("tab.side") } }, this.side.el, Object.values(this.panels)));
    this.away = h("div", { class: "table-away" });
    // Private results (a vision, a sweep…) go here, in the flow under the status bar: a
    // card floating over the table covered its controls ("Block a player") and seats.
    this.cards = h("div", { class: "table-cards" });
    this.notice = h("div", { class: "table-notice" }, this.away, this.cards);
    this.departed = new DepartedSeats(store, { invite, onRefused: (err) => this.actions.showRefusal(err) });
    this.footButtons = h("div", { class: "foot-buttons" });
    this.foot = h("div", { class: "table-foot" }, this.departed.el, this.footButtons);
    // The action bar is shown above the seats, so it comes before them in the tab order too.
    this.el = h("div", { class: "table-screen" }, this.status.el, this.notice, this.actions.el, this.phone.el, this.layout);
    this.conn = new TableConnection(tableId, {
      invite, lang: lang(), resume: () => store.resumeSeq(),
      onMessage: (m) => this.receive(m), onStatus: (s, d) => this.connection(s, d),
    });
    store.subscribe((change) => this.changed(change));
    this.media = window.matchMedia(PHONE);
    this.onMedia = () => this.showPanels();
    this.lastStatus = null;
  }

  mount(main) {
    document.body.classList.add("app-screen");
    applySrMode();
    fill(main, this.el);
    this.media.addEventListener("change", this.onMedia);
    this.offLang = onLangChange(() => this.relang());
    this.offKeys = listenForShortcuts({ go: (target) => this.reach(target), playing: () => this.store.view?.status === "running" });
    this.showPanels();
    this.render();
    this.loadTable();
    if (this.app.me) loadBlocked(this.store, () => this.chat.redraw());
    if (this.app.me) this.play();
    else this.needName();
  }

  /** Connect; first, when the page was opened with a claim link, take its seat. */
  async play() {
    if (this.claimCode) await this.claim(this.claimCode);
    this.conn.start();
  }

  async claim(code) {
    this.claimCode = null;
    history.replaceState(history.state, "", `${location.pathname}${location.search}`);
    const q = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    try {
      const answer = await post(`/api/tables/${encodeURIComponent(this.store.tableId)}/claim${q}`, { code });
      if (answer.table) this.store.setTable(answer.table);
      banner([t("return.claimed", { seat: answer.seat })], "info");
    } catch (err) {
      fill(this.notice, h("div", { class: "card notice-bad", attrs: { role: "alert" } }, h("p", {}, errorText(err))), this.away, this.cards);
    }
  }

  unmount() {
    this.offLang?.();
    this.offKeys?.();
    this.departed.stop();
    this.conn.stop();
    this.store.stop();
    this.status.stop();
    this.waiting.stop();
    this.media.removeEventListener("change", this.onMedia);
    document.body.classList.remove("theme-night", "app-screen");
  }

  async loadTable() {
    const q = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    const before = this.store.tableUpdates;
    try {
      const table = await get(`/api/tables/${encodeURIComponent(this.store.tableId)}${q}`);
      // Once the connection brought the table (welcome), it brings every change after it:
      // an answer that arrives later may have been read earlier — before this page's
      // connection took its seat back from a bot (D29), say — and must not undo it.
      if (this.store.tableUpdates === before) this.store.setTable(table);
    } catch (err) {
      if (err.status === 404 || err.status === 403 || err.status === 410) this.fatal(err.code);
    }
  }

  onMe() {
    // The name form goes away under the focus: the player goes on in the waiting room
    // ("Take a seat" once it is drawn), or in the game they came to watch (WCAG 2.4.3).
    const lost = this.notice.contains(document.activeElement) || focusLost();
    fill(this.notice, this.away, this.cards);
    if (lost) {
      const waiting = !this.store.table || this.store.table.status === "open";
      if (waiting) this.waiting.pending = "sit";
      (waiting ? this.waiting.el : this.app.main()).focus({ preventScroll: true });
    }
    this.render();
    this.conn.stop();
    this.loadTable();
    this.play();
  }

  needName() { fill(this.notice, nameForm(this.app, { compact: true }), this.away, this.cards); }

  fatal(code) {
    if (code === "not_signed_in") { this.needName(); return; }
    if (code === "banned") { this.conn.stop(); this.app.showBanned(this.conn.ban || null); return; }
    // No table to show (a wrong link, a private table without its invite, a table closed
    // before its start, a waiting room its host removed this player from: D55): only the
    // notice stays, not a waiting room that loads for ever nor a status that says
    // "disconnected", nor a seat or a chat box that cannot work.
    this.conn.stop();
    if (this.waiting.closing) return;  // this page closed it: it goes to the lobby (D51)
    const gone = GONE.has(code);
    const hadFocus = focusLost() || (this.el.contains(document.activeElement) && !this.notice.contains(document.activeElement));
    this.el.classList.add("is-gone");
    const back = h("a", { class: ["btn", gone ? "btn-primary" : ""], href: "/", on: { click: (ev) => { ev.preventDefault(); this.app.navigate("/"); } } }, t("end.leave"));
    fill(this.notice, h("div", { class: ["card", "notice-bad", gone ? "notice-closed" : ""], attrs: { role: "alert" } },
      gone ? h("h2", {}, t(GONE.get(code))) : null,
      h("p", {}, errorText({ code })), back), this.away, this.cards);
    // The waiting room went away under the player: they go on from the way back.
    if (hadFocus) back.focus();
  }

  /** D51: the host closed the table — this player is told, in their language, and offered
   * the way back to the lobby (a host's other page says that they closed it). */
  tableClosed(table) {
    this.fatal(table?.you_host ? "table_closed_you" : "table_closed");
  }

  /** D51: this page's host closed the table: back to the lobby, where a banner says so. */
  closedByMe(name) {
    this.conn.stop();
    this.app.navigate("/");
    window.scrollTo(0, 0);  // the lobby from its top, not where the host's tools were
    banner([t("wait.closed_you", { name })], "info");
  }

  connection(status, detail) {
    // While this page is connected, its own seat is: the lobby's facts may be older (a
    // reload's `GET` answered before the new connection joined).
    this.store.online = status === "open";
    this.ring.render();
    this.actions.render();
    this.status.setConnection(status === "fatal" ? "lost" : status, status === "fatal" ? {} : detail);
    if (status === "fatal") this.fatal(detail);
  }

  act(action) {
    if (!this.store.seat) return Promise.resolve({ type: "refused", code: "spectator", params: {} });
    return this.conn.act(action);
  }

  receive(m) {
    const store = this.store;
    switch (m.type) {
      case "welcome":
        if (m.table?.status === "closed") { this.tableClosed(m.table); break; }
        store.welcome(m);
        if (m.returned) banner([t("return.welcome_back")], "info");  // D29: seat, role, messages
        break;
      case "table": {
        if (m.table?.status === "closed") { this.tableClosed(m.table); break; }  // D51
        // A seat taken or left before the start, and the start itself, come on this open
        // socket: the server plays this page's new seat, and sends its first view as a
        // `snapshot` (docs/protocol.md). Nothing here reconnects.
        store.setTable(m.table, true);
        break;
      }
      case "waiting_chat": store.waitingLines(m); break;
      // A moderator hid a line or showed it again (D71): the chat follows whole, as this
      // page may read it (a snapshot, or the waiting room's lines).
      case "line_hidden":
        if (m.place === "waiting") store.replaceWaiting = true;
        else store.chatStale = true;
        break;
      case "snapshot": store.snapshot(m); break;
      case "events": store.events(m); break;
      case "error": this.actions.showRefusal({ code: m.code, params: {} }); break;
      case "warning": showWarning(m); break;  // a moderator's, given mid-game (D53)
      case "muted": showMute(m); break;  // a mute, told at once with its end and reason
      case "pong": if (typeof m.now === "number") store.clock.offset = m.now - Date.now() / 1000; break;
      default: break;
    }
  }

  changed(change) {
    if (change.kind === "events") {
      // A new phase starts with no seat selected: a tap meant for the last phase's vote
      // must not aim tonight's power.
      if (change.events.some((e) => e.code === "phase_started")) this.ring.selected = null;
      // What happened within the phase (the last votes, passes) first, then what ended it:
      // the dawn, the deaths, the end of the game — never a pass after "the game is over".
      announce(spoken(this.store, change, { showing: (line) => this.chat.showing(line) }));
      this.announce(change.events);
      // What waits for the player (the title's count, D64) changes with a pass or a phase.
      if (change.events.some((e) => WAIT_CHANGES.has(e.code))) this.app.waiting?.soon();
    }
    // The phase once per phase: the banner says it at dawn and dusk; Day 1 (which starts
    // with no event, D12) and a page opened mid-game say it here.
    const view = this.store.view;
    const phase = view?.status === "running" && view.phase ? `${view.phase.kind}:${view.phase.number}` : null;
    if (change.kind === "events" && change.events.some((e) => e.code === "phase_started")) this.spokenPhase = phase;
    else if (phase && phase !== this.spokenPhase) {
      this.spokenPhase = phase;
      announce(eventText({ code: "phase_started", params: view.phase }));
    }
    recheckDialogs();
    this.render();
  }

  /** Dawn, dusk, deaths and revivals as one banner per batch; results as cards. */
  announce(events) {
    const lines = [];
    let kind = "info";
    const earlier = [...this.cards.querySelectorAll(".result-card")];  // before this batch
    for (const [i, e] of events.entries()) {
      if (toldDeath(events, i)) continue;  // "killed by the vote" said it
      if (e.code === "phase_started") {
        const text = eventText(e);
        lines.push(text);
        kind = e.params.kind === "night" ? "night" : "day";
        const legal = (this.store.view?.legal || []).some((a) => !["say", "leave", "pass"].includes(a.do));
        if (legal) this.app.alert(t("alert.your_turn", { phase: text }));
      } else if (["died", "revived", "nobody_killed", "quiet_night", "stalemate", "phase_limit", "operator_draw"].includes(e.code)) {
        lines.push(`${e.code === "died" ? "☠ " : e.code === "revived" ? "✚ " : ""}${eventText(e)}`);
      } else if (e.code === "vote_killed") {
        lines.push(eventText(e));
      } else if (RESULTS.has(e.code)) {
        // The card's title says whose result it is; its text, only the result.
        const body = hasMsg(`card.${e.code}`) ? sentence(`card.${e.code}`, e.params) : eventText(e);
        resultCard(t(`result.${e.code}`), body, this.cards);
        this.app.alert(eventText(e));
      } else if (e.code === "game_over") {
        // A result read in an earlier phase would stay above the end screen, which tells
        // every role (a new user's phone showed Night 1's sweep over it); a result of this
        // very batch stays to be read.
        for (const card of earlier) card.remove();
        lines.push(sentence("event.game_over", e.params));
        const verdict = this.end.verdict();  // "You win!", "You lose." (a seat's own end)
        if (verdict) lines.push(verdict);
        kind = "info";
        this.end.load();
      }
    }
    // At the end the end screen says it all: no banner over its table of roles.
    if (events.some((e) => e.code === "game_over")) {
      clearBanners();
      if (lines.length) announce(lines.join(". "));
    } else if (lines.length) banner(lines, kind);
  }

  /** A shortcut (keys.js): the focus to the action bar, the seats or the chat box, the
   * panel that holds it shown first (a phone shows one at a time). Where there is none
   * (a spectator has no action bar) the announcer says so. */
  reach(target) {
    const phone = this.phoneMode();
    let el = null;
    if (target === "chat") {
      if (phone) this.phone.choose("chat", true);
      else this.side.choose("chat", true);
      el = this.chat.input;
      if (phone && window.innerHeight <= SHORT_HEIGHT) { el.focus({ preventScroll: true }); return; }  // toPanel placed it
    } else if (target === "seats") {
      if (phone) this.phone.choose("table", true);
      el = this.ring.el.isConnected ? this.ring.el.querySelector(".seat[tabindex='0']")
        : this.waiting.el.querySelector(".wait-seat button") || this.waiting.el;
    } else if (target === "actions") {
      el = this.actions.focusTarget();  // above the tabs: on screen whichever tab shows
      // A finished game has no action bar: what comes next is the rematch's offer (D19).
      if (!el && this.store.view?.status === "finished") {
        if (phone) this.phone.choose("table", true);
        el = [...this.end.rematch.el.querySelectorAll("button")].find((b) => !b.disabled) || null;
      }
    }
    if (el?.isConnected) el.focus();
    else announce(t(`keys.none_${target}`));
  }

  unread(n) {
    this.side.badge("chat", this.side.current === "chat" ? 0 : n);
    this.phone.badge("chat", this.phone.current === "chat" ? 0 : n);
  }

  phoneMode() { return this.media.matches; }

  /** A short window (200% zoom of a laptop, a phone on its side) scrolls the status bar
   * away with the page: a tab chosen there starts at the window's top, its tabs above it,
   * and the panel (the chat's lines and its box) has the height the pinned bar leaves. */
  toPanel() {
    if (!this.phoneMode() || window.innerHeight > SHORT_HEIGHT) return;
    window.scrollTo({ top: window.scrollY + this.phone.el.getBoundingClientRect().top, behavior: "instant" });
  }

  showPanels() {
    const phone = this.phoneMode();
    const view = phone ? this.phone.current : this.side.current;
    this.layout.dataset.side = this.side.current;
    this.layout.dataset.phone = this.phone.current;
    this.chat.setVisible(view === "chat");
    if (view === "log") {
      this.log.render();
      this.log.toBottom();
    }
  }

  relang() {
    this.conn.setLang(lang());
    this.side.render();
    this.phone.render();
    this.chat.redraw();
    this.verbosity.render();
    this.log.redraw();
    this.notebook.rebuild();
    if (this.store.view?.status === "finished") this.end.load();
    this.render();
  }

  /** Under the seats: the host's cards of departed seats (departed.js), then leaving the
   * game, reporting and blocking a player. */
  drawFoot(view) {
    const canLeave = (view.legal || []).some((a) => a.do === "leave");
    const key = JSON.stringify([lang(), canLeave, view.status, !!this.app.me]);
    this.departed.render(view);
    if (key === this.footKey) return;
    this.footKey = key;
    fill(this.footButtons,
      canLeave ? h("button", { class: "btn btn-small btn-ghost btn-leave", type: "button", text: `⎋ ${t("act.leave")}`, dataset: { focus: "leave" }, on: { click: () => this.actions.leave() } }) : null,
      this.app.me && view.status === "running" ? reportButton(this.store.tableId, { players: () => this.store.view?.players || [], mySeat: () => this.store.seat }) : null,
      this.app.me && view.status === "running" ? blockButton(this.store, { players: () => (this.store.view?.players || []).filter((p) => !this.store.isBot(p.seat)), onBlocked: () => this.chat.redraw() }) : null);
  }

  /** Your own seat, departed: what happened and how to come back (D29, D31). */
  drawAway() {
    const mine = (this.store.table?.seats || []).find((s) => s.yours_away);
    const state = this.store.table?.status === "running" && mine ? mine.yours_away : "";
    if (state === this.awayKey) return;
    this.awayKey = state;
    fill(this.away, state ? h("div", { class: "card notice-away", attrs: { role: "status" } },
      h("p", {}, t(state !== "left" ? "return.grace_notice"
        : this.store.table?.you_host ? "return.left_notice_host" : "return.left_notice", { seat: seatName(mine.seat) }))) : null);
  }

  /** The role card in the ring's centre, drawn again only when what it says changes. */
  drawRole(view) {
    const key = JSON.stringify([lang(), view.role, view.known, view.status, this.store.seat]);
    if (key === this.roleKey) return;
    this.roleKey = key;
    const old = this.ring.centre.querySelector("details");
    const open = old ? old.open : !this.phoneMode() && (view.players || []).length <= 18;
    if (view.role) fill(this.ring.centre, roleCard(view, this.store.seat, open));
    else fill(this.ring.centre, h("p", { class: "hint" }, t("seat.spectating")));
  }

  render() {
    const store = this.store;
    const view = store.view;
    if (view?.players) setNames(view.players);
    else if (store.table?.seats) setNames(store.table.seats.filter((s) => s.name));
    const night = view?.status === "running" && view.phase?.kind === "night";
    document.body.classList.toggle("theme-night", night);
    const status = view?.status || store.table?.status || "open";
    this.el.dataset.status = status;
    this.status.render();
    if (!view) {
      // Before the start: the waiting room. A started game waits for its snapshot.
      const waiting = !store.table || store.table.status === "open";
      // A visitor without a name cannot connect: the name form above is what lets them watch.
      const mode = waiting ? "open" : this.app.me ? "loading" : "nameless";
      // Start pressed: the waiting room goes away; focus follows to the game once it shows.
      if (this.lastStatus === "open" && mode !== "open" && this.waiting.el.contains(document.activeElement)) this.focusGame = true;
      if (this.lastStatus !== mode) fill(this.centre, waiting ? this.waiting.el : h("p", { class: "hint" }, t(mode === "loading" ? "wait.loading_game" : "wait.name_to_watch")));
      this.lastStatus = mode;
      if (waiting) this.waiting.render();
      this.actions.render();
      this.chat.setVisible(true);  // the waiting room shows its chat beside it (D45)
      return;
    }
    if (status === "finished") {
      if (this.lastStatus !== "finished") {
        fill(this.centre, this.end.el, this.ring.wrap, this.foot);
        this.end.render();
        this.end.load();
      }
      this.el.classList.add("is-finished");
    } else if (this.lastStatus !== "running") {
      if (this.lastStatus === "open" && this.waiting.el.contains(document.activeElement)) this.focusGame = true;
      fill(this.centre, this.ring.wrap, this.foot);
    }
    this.lastStatus = status;
    this.drawRole(view);
    this.ring.render();
    this.drawFoot(view);
    this.drawAway();
    this.actions.render();
    this.chat.setQuiet(srMode());
    this.chat.render();
    this.log.render();
    this.notebook.render();
    // The last Pass ended the game: the action bar is gone, the verdict takes the focus.
    if (status === "finished" && !this.endFocused) {
      this.endFocused = true;
      if (focusLost()) this.end.focus();
    }
    if (this.focusGame && status === "running") {
      this.focusGame = false;
      // Where the player continues: the first action awake, else the seats.
      const button = [...this.actions.el.querySelectorAll("button")].find((b) => !b.disabled);
      if (focusLost()) (button || this.ring.el.querySelector(".seat[tabindex='0']") || this.actions.el)?.focus();
    }
  }
}
