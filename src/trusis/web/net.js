// One WebSocket per table (docs/protocol.md): hello with the last stream number seen,
// snapshot / events / table / ack / refused / error applied in order, reconnection with
// backoff, and every command under a fresh client id (resent with the same id after a
// reconnection, so the server applies it once).

import { safeKey } from "./dom.js";

const FATAL = new Map([
  [4400, "bad_hello"], [4401, "not_signed_in"], [4403, "forbidden"], [4404, "no_such_table"],
]);
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
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    return `${proto}//${location.host}/ws/tables/${encodeURIComponent(this.tableId)}${q}`;
  }

  start() {
    this.stopped = false;
    this.lastSeq = this.resume();
    this.open();
  }

  open() {
    clearTimeout(this.timer);
    this.onStatus(this.attempt ? "reconnecting" : "connecting");
    let ws;
    try { ws = new WebSocket(this.url()); } catch (err) { this.retry(); return; }
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.send({ type: "hello", protocol: 1, last_seq: this.lastSeq, lang: this.lang });
      for (const { frame } of this.pending.values()) this.send(frame);
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 20000);
    });
    ws.addEventListener("message", (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      if (data && typeof data === "object") this.receive(data);
    });
    ws.addEventListener("close", (ev) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (FATAL.has(ev.code)) {
        this.stopped = true;
        this.onStatus("fatal", FATAL.get(ev.code));
        return;
      }
      this.retry();
    });
  }

  retry() {
    if (this.stopped) return;
    this.onStatus("reconnecting");
    const base = Math.min(10000, 500 * 2 ** Math.min(this.attempt, 5));
    this.attempt += 1;
    this.timer = setTimeout(() => this.open(), base / 2 + Math.random() * base / 2);
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
      case "welcome":
        this.attempt = 0;
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
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000);
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
    clearInterval(this.pinger);
    for (const { resolve } of this.pending.values()) resolve({ type: "dropped" });
    this.pending.clear();
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000);
  }
}
