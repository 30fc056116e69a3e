// One WebSocket per table (docs/protocol.md): hello with the last stream number seen,
// snapshot / events / table / ack / refused / error applied in order, reconnection with
// backoff, and every command under a fresh client id (resent with the same id after a
// reconnection, so the server applies it once).
//
// A network that drops silently (a phone out of coverage) closes no socket for minutes:
// the connection pings the server every few seconds and takes a ping left unanswered as a
// lost connection, and the browser's own `offline` says so at once. Either way the socket
// is dropped and opened again with the usual backoff; `online` opens it again at once.

import { safeKey } from "./dom.js";

// Every other close — 1012 (the process lost its database or Redis: another one serves the
// table, issue 41), 1013 (too far behind), or none at all (a network that dropped, an upgrade
// refused with 503) — is connected again with the backoff, and unanswered commands sent again.
const FATAL = new Map([
  [4400, "bad_hello"], [4401, "not_signed_in"], [4403, "forbidden"], [4404, "no_such_table"],
  [4410, "table_closed"],
  [4423, "banned"],  // after a `banned` frame: its end and reason (`this.ban`)
]);
// Codes whose reason is the refusal's own code, said as such: 4410, the table was closed
// before its start (D51); 4403 `removed`, its host removed this player from the waiting
// room (D34, D55).
const REASONS = new Map([
  [4410, new Set(["table_closed", "table_expired"])],
  [4403, new Set(["removed"])],
]);
const PING_EVERY = 5000;   // ms between pings while nothing else is heard
const PONG_WITHIN = 7000;  // ms a ping may wait for an answer before the connection is lost
const LIMITED_WAIT = 20000; // ms before trying again after 4429: a limit frees up slowly
let counter = 0;

function freshId() {
  const rand = (globalThis.crypto && crypto.randomUUID)
    ? crypto.randomUUID().slice(0, 8)
    : Math.random().toString(36).slice(2, 10);
  counter += 1;
  return `c-${rand}-${counter}`;
}

export const seqKey = (tableId) => `trusis.seq.${safeKey(tableId)}`;

/** The last stream number this tab saw at a table (sessionStorage: a reload resumes). */
export function storedSeq(tableId) {
  try {
    const raw = sessionStorage.getItem(seqKey(tableId));
    const n = raw === null ? NaN : Number(raw);
    return Number.isInteger(n) && n >= 0 ? n : null;
  } catch { return null; }
}

export class TableConnection {
  /**
   * handlers: {onMessage(msg), onStatus(status, detail)}; resume(): the seq to send in
   * hello (null asks for a snapshot), given what the page still holds.
   */
  constructor(tableId, { invite = null, lang = "en", resume = () => null, onMessage, onStatus }) {
    this.tableId = tableId;
    this.invite = invite;
    this.lang = lang;
    this.resume = resume;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.lastSeq = null;
    this.pending = new Map(); // id -> {frame, resolve}
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.timer = null;
    this.pinger = null;
    this.heardAt = 0;     // when the open socket last brought anything
    this.pingAt = null;   // when the ping not answered yet was sent
    this.onOffline = () => this.drop();
    this.onOnline = () => this.wake();
    this.onVisible = () => { if (document.visibilityState === "visible") this.checkNow(); };
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    return `${proto}//${location.host}/ws/tables/${encodeURIComponent(this.tableId)}${q}`;
  }

  start() {
    this.stopped = false;
    this.lastSeq = this.resume();
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
    document.addEventListener("visibilitychange", this.onVisible);
    this.open();
  }

  /** Whether the socket is open (as far as anyone can tell before a ping is answered). */
  isOpen() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  open() {
    clearTimeout(this.timer);
    this.detach();
    this.onStatus(this.attempt ? "reconnecting" : "connecting", this.detail());
    let ws;
    try { ws = new WebSocket(this.url()); } catch (err) { this.retry(); return; }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.heardAt = Date.now();
      this.pingAt = null;
      this.send({ type: "hello", protocol: 1, last_seq: this.lastSeq, lang: this.lang });
      for (const { frame } of this.pending.values()) this.send(frame);
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.beat(), 1000);
    });
    ws.addEventListener("message", (ev) => {
      if (this.ws !== ws) return;
      this.heardAt = Date.now();
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      if (data && typeof data === "object") this.receive(data);
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;
      clearInterval(this.pinger);
      this.ws = null;
      if (this.stopped) return;
      if (FATAL.has(ev.code)) {
        this.stopped = true;
        this.onStatus("fatal", REASONS.get(ev.code)?.has(ev.reason) ? ev.reason : FATAL.get(ev.code));
        return;
      }
      // 4429: a limit (too many tabs of yours at this table, or from your address) — said as
      // such, and tried again after a while rather than every few seconds.
      this.limited = ev.code === 4429;
      this.retry();
    });
  }

  retry() {
    if (this.stopped) return;
    const base = this.limited ? LIMITED_WAIT : Math.min(10000, 500 * 2 ** Math.min(this.attempt, 5));
    this.attempt += 1;
    const wait = base / 2 + Math.random() * base / 2;
    this.retryAt = Date.now() + wait;
    this.onStatus(this.limited ? "limited" : "reconnecting", this.detail());
    this.timer = setTimeout(() => this.open(), wait);
  }

  /** What the page may say about a connection being made again. */
  detail() {
    return { offline: navigator.onLine === false, retryAt: this.retryAt ?? null, pending: this.pending.size };
  }

  /** Forget the socket held now (its late events change nothing) and close it. */
  detach() {
    clearInterval(this.pinger);
    this.pinger = null;
    this.pingAt = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) { try { ws.close(1000); } catch { /* already gone */ } }
  }

  /** Every second while open: a ping when nothing was heard for a while, and a ping left
   * unanswered too long is a lost connection (no `close` comes when a network drops). */
  beat() {
    if (!this.isOpen()) return;
    const now = Date.now();
    if (this.pingAt !== null && this.heardAt < this.pingAt) {
      if (now - this.pingAt >= PONG_WITHIN) this.drop();
      return;
    }
    if (now - this.heardAt >= PING_EVERY) this.ping();
  }

  ping() {
    this.pingAt = Date.now();
    this.send({ type: "ping" });
  }

  /** Back in sight (a phone unlocked): ask at once whether the connection still holds. */
  checkNow() {
    if (this.stopped) return;
    if (!this.isOpen()) { this.wake(); return; }
    if (this.pingAt === null || this.heardAt >= this.pingAt) this.ping();
  }

  /** The connection is gone though no `close` said so: drop it and connect again. */
  drop() {
    if (this.stopped) return;
    if (!this.ws) { this.onStatus("reconnecting", this.detail()); return; }  // waiting already
    this.detach();
    this.retry();
  }

  /** The network is back (`online`): connect at once, not when the backoff says. */
  wake() {
    if (this.stopped || this.isOpen()) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.open();
  }

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  setLang(lang) { this.lang = lang; }

  keepSeq(seq) {
    if (!Number.isInteger(seq)) return;
    this.lastSeq = seq;
    try { sessionStorage.setItem(seqKey(this.tableId), String(seq)); } catch { /* ignore */ }
  }

  receive(data) {
    switch (data.type) {
      case "banned":  // the close (4423) follows: the page says this, not "choose a name"
        this.ban = { until: data.until ?? null, reason: data.reason || "" };
        break;
      case "welcome":
        this.attempt = 0;
        this.limited = false;
        this.onStatus("open");
        this.onMessage(data);
        break;
      case "snapshot":
        this.keepSeq(data.seq);
        this.onMessage(data);
        break;
      case "events": {
        const base = this.lastSeq ?? 0;
        const fresh = (data.events || []).filter((e) => !Number.isInteger(e.seq) || e.seq > base);
        if (fresh.length && Number.isInteger(fresh[0].seq) && fresh[0].seq > base + 1
            && this.lastSeq !== null) {
          // A gap: something was missed. Ask again from what we hold.
          this.reconnectNow();
          return;
        }
        this.keepSeq(data.seq);
        this.onMessage({ ...data, events: fresh });
        break;
      }
      case "ack":
      case "refused": {
        const entry = this.pending.get(data.id);
        if (entry) {
          this.pending.delete(data.id);
          entry.resolve(data);
        }
        this.onMessage(data);
        break;
      }
      default:
        this.onMessage(data);
    }
  }

  reconnectNow() {
    this.open();
  }

  /** Send one action; resolves with the server's ack or refused answer. */
  act(action) {
    const id = freshId();
    const frame = { type: "act", id, action };
    return new Promise((resolve) => {
      this.pending.set(id, { frame, resolve });
      this.send(frame); // if closed, it goes out on the next open
    });
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    document.removeEventListener("visibilitychange", this.onVisible);
    for (const { resolve } of this.pending.values()) resolve({ type: "dropped" });
    this.pending.clear();
    this.detach();
  }
}
