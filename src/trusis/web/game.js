// What the page holds about one table: the latest view (never edited: the server's view is
// the truth), the clock, the lobby-level table, and the log and chat this tab has seen. Log
// and chat are kept in sessionStorage beside the stream number so a reload resumes exactly.

import { safeKey } from "./dom.js";
import { storedSeq } from "./net.js";
import { nameOf } from "./i18n.js";

/** Events only their audience receives: marked "private" in the log. */
export const PRIVATE_CODES = new Set([
  "trusis_vote", "trusis_vote_withdrawn", "choice_made", "choice_withdrawn", "illusion_made",
  "sweep_result", "foresee_result", "gravekeeper_result", "gravedigger_result", "whispered",
]);
/** Public announcements, also shown in the public chat as system lines. */
export const SYSTEM_CODES = new Set([
  "phase_started", "vote_killed", "nobody_killed", "died", "revived", "quiet_night", "game_over",
  "stalemate", "phase_limit", "operator_draw", "left", "replaced", "returned",
]);
const LOG_LIMIT = 3000;


/** The seats a view shows dead. */
function deadSeats(view) {
  return (view?.players || []).filter((p) => !p.alive).map((p) => p.seat);
}

const phaseOrder = (p) => Number(p.number) * 2 + (p.kind === "night" ? 1 : 0);

/** Whether a line's speaker was dead when its phase began, from the view's ended phases
 *  (`history`: who died and who came back in each): a line read back without its events
 *  (the replay with everything revealed) is marked as its speaker was then (R15), not now. */
function deadWhenSaid(view, line) {
  if (!line.phase) return undefined;  // unknown: the speaker's state now
  const before = phaseOrder(line.phase);
  const ended = (view.history || []).filter((h) => h.phase && phaseOrder(h.phase) < before)
    .sort((a, b) => phaseOrder(a.phase) - phaseOrder(b.phase));
  let dead = false;
  for (const h of ended) {
    if ((h.died || []).includes(line.from)) dead = true;
    if ((h.revived || []).includes(line.from)) dead = false;
  }
  return dead;
}

export class GameStore {
  constructor(tableId) {
    this.tableId = tableId;
    this.key = `trusis.log.${safeKey(tableId)}`;
    this.seat = null;        // my seat, from welcome (null: spectator)
    this.you = null;
    this.table = null;       // lobby-level table
    this.tableUpdates = 0;   // how many times the connection brought it (welcome, table)
    this.view = null;
    this.clock = { deadline: null, offset: 0 };
    this.log = [];           // {seq, code, params, t, phase}
    this.chat = [];          // {from, to, text, phase, t, seq}
    this.waitingChat = [];   // the waiting room's lines (D45), sent again on each connection
    this.chatVersion = 0;    // a new one draws the chat again whole (a line hidden or shown, D71)
    this.chatStale = false;  // the next snapshot's chat replaces a line drawn already (D71)
    this.replaceWaiting = false;  // the next `waiting_chat` holds every line again (D71)
    this.listeners = new Set();
    this.restored = false;
    this.online = false;     // this page's connection is open (its own seat is connected)
    this.seq = null;         // the last stream number this page holds
  }

  subscribe(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }
  emit(change) { for (const fn of this.listeners) fn(change, this); }

  /** Server time now, corrected for this machine's clock. */
  now() { return Date.now() / 1000 + this.clock.offset; }
  remaining() {
    return this.clock.deadline ? Math.max(0, this.clock.deadline - this.now()) : null;
  }

  setClock(clock) {
    if (!clock) return;
    if (typeof clock.now === "number") this.clock.offset = clock.now - Date.now() / 1000;
    this.clock.deadline = typeof clock.deadline === "number" ? clock.deadline : null;
  }

  /** The seq to resume from: only when this tab still holds the log and chat behind it. */
  resumeSeq() {
    const seq = storedSeq(this.tableId);
    if (seq === null) return null;
    try {
      const raw = sessionStorage.getItem(this.key);
      if (!raw) return null;
      const kept = JSON.parse(raw);
      if (kept.seq !== seq || !Array.isArray(kept.log) || !Array.isArray(kept.chat)) return null;
      this.log = kept.log;
      this.chat = kept.chat;
      this.restored = true;
      return seq;
    } catch { return null; }
  }

  /** Keep log and chat for a reload: at most every 300 ms, and when the page goes away. */
  persist(seq) {
    this.pendingSeq = seq;
    if (this.persistTimer) return;
    this.persistTimer = setTimeout(() => this.flush(), 300);
    if (!this.onHide) {
      this.onHide = () => this.flush();
      window.addEventListener("pagehide", this.onHide);
    }
  }

  flush() {
    clearTimeout(this.persistTimer);
    this.persistTimer = null;
    if (this.pendingSeq === undefined) return;
    try {
      if (this.log.length > LOG_LIMIT) this.log = this.log.slice(-LOG_LIMIT);
      sessionStorage.setItem(this.key, JSON.stringify({ seq: this.pendingSeq, log: this.log, chat: this.chat }));
    } catch { /* full or off: a reload then asks for a snapshot */ }
  }

  stop() {
    this.flush();
    if (this.onHide) window.removeEventListener("pagehide", this.onHide);
  }

  welcome(msg) {
    this.seat = Number.isInteger(msg.seat) ? msg.seat : null;
    this.waitingChat = [];  // what follows `welcome` holds them all again (docs/protocol.md)
    this.you = msg.you || null;
    if (msg.table) { this.table = msg.table; this.tableUpdates += 1; }
    this.emit({ kind: "welcome" });
  }

  /** Lines said in the waiting room (D45): before the game, never part of it. */
  waitingLines(msg) {
    if (this.replaceWaiting) {  // after `line_hidden`: the lines whole, as this page may read them
      this.replaceWaiting = false;
      this.waitingChat = [];
      this.chatVersion += 1;
    }
    for (const line of Array.isArray(msg.lines) ? msg.lines : []) {
      this.waitingChat.push({ from: line.seat, name: line.name, text: String(line.text ?? ""),
        t: line.t ?? null, before: true, key: `w${this.waitingChat.length}`, ...hiddenFields(line) });
    }
    this.emit({ kind: "waiting_chat" });
  }

  /** The lobby-level table; `fromConnection`: a `table` message (counted, see tableUpdates).
   * Before the start this page's seat is the one the table marks `you`: a seat taken or left
   * reaches the page on its open connection, which plays it from then on (no new `welcome`). */
  setTable(table, fromConnection = false) {
    this.table = table;
    if (fromConnection) this.tableUpdates += 1;
    if (!this.view && table?.status === "open" && Array.isArray(table.seats)) {
      const mine = table.seats.find((s) => s.you);
      this.seat = mine ? Number(mine.seat) : null;
    }
    this.emit({ kind: "table" });
  }

  snapshot(msg) {
    const view = msg.view || {};
    this.view = view;
    // After `line_hidden`, or a snapshot holding a hidden line (it may have been hidden while
    // this page was away): the chat is drawn again whole, not only what is new (D71).
    if (this.chatStale || (view.chat || []).some((l) => l?.hidden)) { this.chatStale = false; this.chatVersion += 1; }
    if ("seat" in view) this.seat = Number.isInteger(view.seat) ? view.seat : null;
    this.setClock(msg.clock);
    const t = this.now();
    const recent = Array.isArray(msg.events) ? msg.events : null;
    const lines = view.chat || [];
    const spoken = recent ? recent.filter((e) => e.code === "said" || e.code === "whispered") : [];
    if (recent && spoken.length === lines.length) {
      // The recent events hold the whole chat: read it from them, with the system lines between.
      this.chat = [];
      this.log = [];
      // From the game's first event, nobody was dead before them; from later, the dead now.
      const fromStart = !recent.length || recent[0].seq <= 1;
      this.take(recent, null, view.phase, fromStart ? [] : deadSeats(view));
      // Each line's writer as they were then (issue 38): the view's lines say, in the same order.
      this.chat.filter((l) => !l.system).forEach((l, i) => { l.name = lines[i]?.name ?? l.name; });
    } else {
      this.chat = lines.map((line, i) => ({
        from: line.from, to: line.to ?? null, text: line.text, phase: line.phase,
        t: line.t ?? null, key: `s${i}`, name: line.name ?? null, dead: deadWhenSaid(view, line),
        ...hiddenFields(line),
      }));
      if (!this.log.length) this.log = recent ? recent.map((e) => this.entry(e, null, view.phase)) : this.logFromView(view);
    }
    this.restored = false;
    if (Number.isInteger(msg.seq)) this.seq = msg.seq;
    this.persist(msg.seq);
    this.emit({ kind: "snapshot", events: [], at: t });
  }

  entry(e, t, phase) {
    return { seq: e.seq, code: e.code, params: e.params || {}, t: e.t ?? t, phase };
  }

  /** Add events to the log, and their chat and system lines to the chat. A line keeps
   *  whether its speaker was dead when it was said (R15: the dead still chat), counted
   *  through the events from `deadBefore`, the seats dead before the first of them. */
  take(events, t, phase, deadBefore = deadSeats(this.view)) {
    const fresh = [];
    const dead = new Set(deadBefore);
    let votedOut = null;  // one chat line for a vote death: "killed by the vote", not "dies" too
    const holders = new Map();  // a seat a person took in these events: its lines are theirs (R53)
    for (const e of events) {
      const entry = this.entry(e, t, phase);
      if ((e.code === "replaced" || e.code === "returned") && e.params?.by && e.params.by !== "bot") {
        holders.set(e.params.seat, e.params.by);
      }
      if (e.code === "said" || e.code === "whispered") {
        this.chat.push({
          from: e.params.seat, to: e.params.to ?? null, text: e.params.text, phase,
          t: entry.t, key: `e${e.seq}`, dead: dead.has(e.params.seat),
          name: holders.get(e.params.seat) ?? (nameOf(e.params.seat) || null),  // its writer then
          ...hiddenFields(e.params),
        });
      } else if (SYSTEM_CODES.has(e.code) && !(e.code === "died" && e.params?.seat === votedOut)) {
        this.chat.push({ system: true, code: e.code, params: entry.params, t: entry.t, key: `e${e.seq}` });
      }
      if (e.code === "died") dead.add(e.params?.seat);
      if (e.code === "revived") dead.delete(e.params?.seat);
      this.log.push(entry);
      fresh.push(entry);
      if (e.code === "vote_killed") votedOut = e.params?.seat;
    }
    return fresh;
  }

  /** A log rebuilt from a view (a first visit mid-game): deaths, revivals and results. */
  logFromView(view) {
    const log = [];
    for (const h of view.history || []) {
      log.push({ code: "phase_started", params: { kind: h.phase.kind, number: h.phase.number }, phase: h.phase, t: null });
      if (h.vote_killed) log.push({ code: "vote_killed", params: { seat: h.vote_killed }, phase: h.phase, t: null });
      for (const s of h.died || []) if (s !== h.vote_killed) log.push({ code: "died", params: { seat: s }, phase: h.phase, t: null });
      for (const s of h.revived || []) log.push({ code: "revived", params: { seat: s }, phase: h.phase, t: null });
    }
    for (const r of view.results || []) {
      const params = { target: r.target };
      if (r.result) params.result = r.result;
      if (r.role) params.role = r.role;
      log.push({ code: r.kind, params, phase: r.phase, t: null });
    }
    if (view.phase && view.status === "running") {
      log.push({ code: "phase_started", params: { ...view.phase }, phase: view.phase, t: null });
    }
    return log;
  }

  events(msg) {
    const before = this.view;
    if (msg.view) {
      // An events message's view leaves the chat out: keep reading it from the events.
      this.view = msg.view;
      if ("seat" in msg.view) this.seat = Number.isInteger(msg.view.seat) ? msg.view.seat : null;
    }
    this.setClock(msg.clock);
    const t = this.now();
    const phase = this.view?.phase || before?.phase || null;
    const fresh = this.take(msg.events || [], t, phase, deadSeats(before || this.view));
    this.restored = false;
    if (Number.isInteger(msg.seq)) this.seq = msg.seq;
    this.persist(msg.seq);
    this.emit({ kind: "events", events: fresh, before, at: t });
  }

  // -- questions the screens ask ------------------------------------------

  player(seat) { return this.view?.players?.find((p) => p.seat === Number(seat)) || null; }
  me() { return this.seat ? this.player(this.seat) : null; }
  legal(kind) { return (this.view?.legal || []).find((a) => a.do === kind) || null; }

  /** A bot plays the seat: from the start (the lobby's seats) or since a take-over. */
  isBot(seat) {
    if (this.player(seat)?.bot) return true;
    const seats = this.table?.seats || [];
    return seats.some((s) => Number(s.seat) === Number(seat) && s.kind === "bot");
  }

  /** How this page's own seat was played by others since stream number `since` (the
   * player away, R52, D29): "bot" once a bot took it over, "self" once it left and passed by
   * itself, else null. */
  awaySince(since) {
    if (this.seat === null || !Number.isInteger(since)) return null;
    const mine = this.log.filter((e) => Number.isInteger(e.seq) && e.seq > since && Number(e.params?.seat) === this.seat);
    if (mine.some((e) => e.code === "replaced" && e.params?.by === "bot")) return "bot";
    if (mine.some((e) => e.code === "left" || e.code === "returned")) return "self";
    return null;
  }

  /** Who is connected, from the lobby-level table (absent: assumed connected). */
  connected(seat) {
    if (this.online && this.seat !== null && Number(seat) === this.seat) return true;
    const seats = this.table?.seats || this.table?.players || [];
    const entry = Array.isArray(seats) ? seats.find((s) => Number(s.seat) === Number(seat)) : null;
    return entry ? entry.connected !== false : true;
  }
}

/** What a line says of a moderator's hide (D71): `hidden` (its text is the placeholder, or for
 * staff and its writer the text as written, with the `reason`), and for staff who watch its
 * name, `line` (what the moderation routes take). */
function hiddenFields(line) {
  const out = {};
  if (line?.hidden) out.hidden = true;
  if (typeof line?.reason === "string") out.reason = line.reason;
  if (Number.isInteger(line?.line)) out.line = line.line;
  return out;
}
