// The moderation page (/moderation, issue 18): every report from every table, newest first,
// with its state; a player's record (their reports and sanctions) and the sanction form
// (warning, mute, ban); the audit log; and for admins, the staff roles. The page shows what
// the API serves: the reporter's own view of the chat (R50, R51), never a role (D35).
// Also here: the staff check for the account menu, and a warning shown once (GET
// /api/me/warnings).

import { clockTime, fill, h } from "./dom.js";
import { del, get, post } from "./api.js";
import { lang, msg, onLangChange, phaseName, t, untilText } from "./i18n.js";
import { errorText } from "./errors.js";
import { hideControl } from "./hideline.js";
import { announce, confirmDialog, showModal } from "./dialogs.js";

const MUTES = [15, 60, 24 * 60, 7 * 24 * 60];
const BANS = [60, 24 * 60, 7 * 24 * 60, 30 * 24 * 60, null];  // an hour's ban too (issue 38)
const REFRESH_MS = 5000;  // the page follows reports and warnings read while it is open

/** Load this page's own stylesheet once (the document links only the shared ones). */
export function styles() {
  if (document.getElementById("moderation-css")) return;
  document.head.append(h("link", { id: "moderation-css", rel: "stylesheet", href: "/static/moderation.css" }));
}

/** The signed-in account's server roles (`app.staff`), asked once after sign-in. */
export async function loadStaff(app) {
  app.staff = [];
  if (!app.me || app.me.kind !== "account") return;
  try { app.staff = (await get("/api/staff")).roles || []; } catch { app.staff = []; }
}

const warned = new Set();  // the warnings this page has shown or queued
const open = new Map();  // warning id -> closes its dialog (read in another tab)
const readElsewhere = new Set();  // read in another tab: a queued dialog of it never opens
let warnings = Promise.resolve();  // one dialog at a time, in the order they came
// Read once across tabs (issue 38): a warning read in one tab closes in the others, and none
// shows it again. Each tab that is open when it comes shows it (the player may be at any).
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel("trusis-warnings") : null;
tabs?.addEventListener("message", (ev) => {
  if (ev.data?.mute) { showMute(ev.data.mute, false); return; }  // a game tab heard it first
  const id = ev.data?.seen;
  if (typeof id !== "string") return;
  warned.add(id);
  readElsewhere.add(id);
  open.get(id)?.();
});

/** A moderator's warnings not read yet (at a page load, a sign-in, and each refresh of the
 * lobby: a warning reaches the lobby live, issue 38), each shown once. */
export async function showWarnings(app) {
  if (!app.me) return;
  let unread = [];
  try { unread = (await get("/api/me/warnings")).warnings || []; } catch { return; }
  for (const w of unread) showWarning(w);
  await warnings;
}

/**
 * One warning ({id, reason, at}: from GET /api/me/warnings, or the `warning` frame that
 * brings it to an open game at once, D53), in its dialog: read and closed, it is marked seen,
 * here and in the player's other tabs.
 */
export function showWarning(w) {
  if (!w?.id || warned.has(w.id)) return warnings;
  warned.add(w.id);
  warnings = warnings.then(() => new Promise((resolve) => {
    if (readElsewhere.has(w.id)) { resolve(); return; }
    const ok = h("button", { class: "btn btn-primary", type: "button", text: t("warn.ok") });
    const dlg = h("dialog", { class: "dialog warning-dialog", attrs: { "aria-labelledby": "warn-title" } },
      h("h2", { id: "warn-title", class: "dialog-title" }, "⚠ ", t("warn.title")),
      h("p", { class: "dialog-body" }, t("warn.body")),
      h("blockquote", { class: "report-reason" }, w.reason),
      h("p", { class: "hint" }, when(w.at)),
      h("div", { class: "dialog-buttons" }, ok));
    let elsewhere = false;
    const close = showModal(dlg, () => {
      open.delete(w.id);
      if (!elsewhere) {
        post(`/api/me/warnings/${encodeURIComponent(w.id)}/seen`).catch(() => {});
        tabs?.postMessage({ seen: w.id });
      }
      resolve();
    });
    open.set(w.id, () => { elsewhere = true; close(); });
    ok.addEventListener("click", close);
    ok.focus();
  }));
  return warnings;
}

const MUTES_SEEN_KEY = "trusis.mutes-seen";  // the mutes this browser has shown and closed

function mutesSeen() {
  try { return JSON.parse(localStorage.getItem(MUTES_SEEN_KEY) || "[]"); } catch { return []; }
}

function muteSeen(id) {
  try { localStorage.setItem(MUTES_SEEN_KEY, JSON.stringify([...mutesSeen().filter((x) => x !== id), id].slice(-20))); } catch { /* not kept: shown again at a load */ }
}

/**
 * A mute ({id, reason, at, until}: the `muted` frame on a game page, GET /api/me/mute on
 * every other page, issue 38), in a dialog as a warning is: until when, and the moderator's
 * reason. Told at once on every open page: a tab that hears the frame passes it to the
 * player's other tabs (`share`); closed in one tab, it closes in the others, and this
 * browser does not show it again (D53).
 */
export function showMute(m, share = true) {
  const key = `mute:${m?.id}`;
  if (!m?.id || warned.has(key) || mutesSeen().includes(m.id)) return warnings;
  warned.add(key);
  if (share) tabs?.postMessage({ mute: { id: m.id, reason: m.reason, at: m.at, until: m.until ?? null } });
  warnings = warnings.then(() => new Promise((resolve) => {
    if (readElsewhere.has(key)) { resolve(); return; }
    const ok = h("button", { class: "btn btn-primary", type: "button", text: t("warn.ok") });
    const dlg = h("dialog", { class: "dialog warning-dialog mute-dialog", attrs: { "aria-labelledby": "mute-title", "aria-describedby": "mute-body" } },
      h("h2", { id: "mute-title", class: "dialog-title" }, "🔇 ", t("mute.title")),
      h("p", { class: "dialog-body", id: "mute-body" }, t("mute.body", { until: untilText(m.until ?? null) })),
      h("blockquote", { class: "report-reason" }, m.reason),
      h("div", { class: "dialog-buttons" }, ok));
    let elsewhere = false;
    const close = showModal(dlg, () => {
      open.delete(key);
      if (!elsewhere) { muteSeen(m.id); tabs?.postMessage({ seen: key }); }
      resolve();
    });
    open.set(key, () => { elsewhere = true; close(); });
    ok.addEventListener("click", close);
    ok.focus();
  }));
  return warnings;
}

const MUTE_CHECK_MS = 5000;
let muteTimer = null;

/** Every page asks for the player's mute while it is shown (and when it is shown again):
 * the lobby, a profile, "Your games" and the waiting room have no `muted` frame to hear
 * (issue 38). A hidden tab is told by the tab that shows it, or when it is shown. */
export function watchMutes(app) {
  const check = async () => {
    clearTimeout(muteTimer);
    if (app.me && !document.hidden) {
      try { const { mute } = await get("/api/me/mute"); if (mute) showMute(mute, false); } catch { /* asked again */ }
    }
    muteTimer = setTimeout(check, MUTE_CHECK_MS);
  };
  if (!watchMutes.started) {
    watchMutes.started = true;
    document.addEventListener("visibilitychange", () => { if (!document.hidden) check(); });
  }
  check();
}

function when(epoch) {
  if (!epoch) return "—";
  return new Date(epoch * 1000).toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" });
}

function duration(minutes) {
  if (minutes === null) return t("mod.forever");
  if (minutes % (24 * 60) === 0) return t("mod.days", { count: minutes / (24 * 60) });
  if (minutes % 60 === 0) return t("mod.hours", { count: minutes / 60 });
  return t("mod.minutes", { count: minutes });
}

/** What tells two players of one name apart: a short id, since when, the newest table
 * they sat at or hosted, the games they played (the full id in the tooltip). */
function facts(p) {
  return h("span", { attrs: { title: p.id } },
    t("mod.facts", {
      id: String(p.id).slice(0, 8), created: when(p.created_at),
      last: p.last_table_at ? when(p.last_table_at) : t("mod.never"),
    }), " · ", t("mod.games", { count: p.games || 0 }));
}

/** One line of the audit log, in the page's language: a lift says what it lifted (lines
 * written before did so in their reason, "mute" or "ban": read the same way), the command
 * line acts as itself, a deleted player is said so, and a sanction that answered a report
 * says it. */
function auditRow(x) {
  const legacyLift = x.action === "lift" && ["mute", "ban"].includes(x.reason);
  const action = legacyLift ? `lift_${x.reason}` : x.action;
  const who = x.actor_id === "cli" ? t("mod.actor_cli") : x.actor_name || "—";
  const name = x.target_deleted ? t("mod.deleted_player") : x.target_name;
  const whom = name
    ? (x.report_id && ["warning", "mute", "ban"].includes(action) ? `${name} · ${t("mod.from_report")}` : name)
    : (x.report_id ? t("mod.a_report") : "—");
  // A hidden line's (D71): the replay at that line, once the game is over.
  const [lineTable, place, step] = typeof x.line === "string" ? x.line.split("/") : [];
  const at = place === "game" ? h("a", { class: "chat-replay", href: `/t/${encodeURIComponent(lineTable)}/replay?step=${step}` }, " ", t("mod.replay_at")) : null;
  return h("tr", {},
    h("td", {}, when(x.at)), h("td", {}, who), h("td", {}, t(`mod.action_${action}`)),
    h("td", {}, whom, at), h("td", {}, (!legacyLift && x.reason) || "—"),
    h("td", {}, ["mute", "ban"].includes(action) ? (x.until ? when(x.until) : t("mod.forever")) : "—"));
}

/** The log without the `draw` lines a `draw_refused` line answered (newest first: the
 * refusal comes before its draw, same actor, same table): the log is never rewritten
 * (D37), and a draw that did not take effect must not read as a game ended (issue 38).
 * The refusal's own line says it, with its sentence as the reason. */
function withoutRefusedDraws(log) {
  const tableOf = (x) => /^table (\S+?)(?::|$)/.exec(x.reason || "")?.[1];
  const pending = [];
  return log.filter((x) => {
    if (x.action === "draw_refused") { pending.push(`${x.actor_id} ${tableOf(x)}`); return true; }
    if (x.action !== "draw") return true;
    const at = pending.indexOf(`${x.actor_id} ${tableOf(x)}`);
    if (at < 0) return true;
    pending.splice(at, 1);
    return false;
  });
}

function phaseOf(key) {
  const [kind, number] = String(key || "").split(":");
  if (kind === "day" || kind === "night") return phaseName({ kind, number: Number(number) });
  return key ? t("report.after") : t("mod.before_start");
}

export class ModerationScreen {
  constructor(app) {
    this.app = app;
    this.el = h("div", { class: "page moderation" });
    this.filter = "open";
    this.reports = null;
    this.audit = null;
    this.player = null;   // the record on screen
    this.fromReport = null; // the report the record was opened from: a sanction answers it (D54)
    this.staffList = null;
    this.error = null;
    styles();
  }

  mount(main) {
    fill(main, this.el);
    this.offLang = onLangChange(() => this.render());
    fill(this.el, h("p", { class: "hint" }, t("page.loading")));
    this.load();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  unmount() { this.offLang?.(); this.stopped = true; clearInterval(this.timer); }

  /** Every few seconds, what changed since: new reports, decisions, and a warning its
   * player has read ("not read yet" no longer) — drawn again only when something changed
   * and nobody is typing in a field of the page or has a dialog open (issue 38). */
  async refresh() {
    if (this.stopped || document.hidden || document.querySelector("dialog[open]")) return;
    const busy = () => {  // a field in use, or a form begun, is never drawn away
      const el = document.activeElement;
      if (el && this.el.contains(el) && ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)) return true;
      return [...this.el.querySelectorAll("textarea, input")].some((f) => f.value) ||
        (this.el.querySelector("#mod-kind")?.value ?? "warning") !== "warning";
    };
    if (busy()) return;
    try {
      const [reports, audit, player] = await Promise.all([
        get(`/api/moderation/reports?state=${this.filter === "all" ? "all" : this.filter}`),
        get("/api/moderation/audit?limit=50"),
        this.player ? get(`/api/moderation/players/${encodeURIComponent(this.player.player.id)}`) : null,
      ]);
      const same = JSON.stringify([reports.reports, audit.log, player]) ===
        JSON.stringify([this.reports, this.audit, this.player]);
      if (same || this.stopped || busy() || document.querySelector("dialog[open]")) return;
      const focused = document.activeElement?.id;
      this.reports = reports.reports;
      this.audit = audit.log;
      if (player) this.player = player;
      this.render();
      if (focused) document.getElementById(focused)?.focus();
    } catch { /* the next round tries again */ }
  }

  isAdmin() { return (this.app.staff || []).includes("admin"); }

  async load() {
    try {
      const [reports, audit, staff] = await Promise.all([
        get(`/api/moderation/reports?state=${this.filter === "all" ? "all" : this.filter}`),
        get("/api/moderation/audit?limit=50"),
        get("/api/staff"),
      ]);
      this.reports = reports.reports;
      this.audit = audit.log;
      this.staffList = staff.staff;
      this.app.staff = staff.roles;
      this.error = null;
    } catch (err) {
      this.error = err;
    }
    if (this.stopped) return;
    this.render();
  }

  /** A player's record; `report`: the report it is opened from, which a sanction given
   * there answers (linked, and marked acted on: D54). */
  async openPlayer(id, report = null) {
    this.fromReport = report && report.about?.id === id ? report : null;
    try {
      this.player = await get(`/api/moderation/players/${encodeURIComponent(id)}`);
      this.playerError = null;
    } catch (err) { this.playerError = err; }
    this.render();
    this.el.querySelector("#mod-player")?.scrollIntoView({ block: "start" });
  }

  async act(fn, errorId) {
    try {
      await fn();
      await this.load();
      if (this.player) await this.openPlayer(this.player.player.id, this.fromReport);
      return true;
    } catch (err) {
      const box = this.el.querySelector(`#${errorId}`);
      if (box) box.textContent = errorText(err);
      return false;
    }
  }

  render() {
    document.title = `${t("mod.title")} — Trusis`;
    if (this.error) {
      fill(this.el, h("h1", {}, t("mod.title")),
        h("div", { class: "card notice-bad", attrs: { role: "alert" } }, h("p", {}, errorText(this.error))));
      return;
    }
    fill(this.el,
      h("h1", {}, t("mod.title")),
      h("p", { class: "hint" }, t("mod.hint")),
      h("div", { class: "mod-columns" },
        this.reportsCard(),
        h("div", { class: "mod-side" }, this.findCard(), this.playerCard())),
      this.auditCard(),
      this.isAdmin() ? this.rolesCard() : null);
  }

  reportsCard() {
    const filter = h("select", {
      id: "mod-filter", on: { change: (ev) => { this.filter = ev.target.value; this.load(); } },
    }, ["open", "acted", "dismissed", "all"].map((s) => h("option", { value: s, text: t(`mod.state_${s}`) })));
    filter.value = this.filter;
    const list = this.reports || [];
    return h("section", { class: "card mod-reports", attrs: { "aria-labelledby": "mod-reports-title" } },
      h("div", { class: "card-head" },
        h("h2", { id: "mod-reports-title" }, t("mod.reports", { count: list.length })),
        h("span", { class: "mod-filter" }, h("label", { attrs: { for: "mod-filter" } }, t("mod.show")), " ", filter)),
      h("p", { class: "form-error", id: "mod-report-error", attrs: { role: "alert" } }),
      list.length ? h("ol", { class: "report-list" }, list.map((r) => this.report(r)))
        : h("p", { class: "hint" }, t("mod.no_reports")));
  }

  /** Who decides report `r` (D36), as a sentence, and whether it is this reader: nobody
   * decides a report about themself or one they filed, and only an admin one about a
   * moderator or an admin (`about_staff`). {say: null} is an ordinary report. */
  whoDecides(r) {
    const me = this.app.me?.id;
    if (me && r.about.id === me) return { say: t("mod.decide_about_you"), mine: false };
    if (me && r.reporter.id === me) return { say: t("mod.decide_filed_by_you"), mine: false };
    if (!r.about_staff) return { say: null, mine: true };
    return this.isAdmin() ? { say: t("mod.decide_admin_you"), mine: true }
      : { say: t("mod.decide_admin_only"), mine: false };
  }

  report(r) {
    const name = (seat) => r.seats?.[seat] || msg("seat.label", { number: seat });
    const decide = (state) => this.act(() => post(`/api/moderation/reports/${encodeURIComponent(r.id)}`, { state }), "mod-report-error");
    const who = this.whoDecides(r);
    const sayId = `mod-who-${r.id}`;
    const button = (text, state, ghost) => h("button", {
      class: ["btn", "btn-small", ghost ? "btn-ghost" : ""], type: "button", text: t(text), disabled: !who.mine,
      attrs: { "aria-describedby": who.say ? sayId : null }, on: { click: () => decide(state) },
    });
    return h("li", { class: ["report", "mod-report", `is-${r.state}`, r.about_staff ? "is-about-staff" : ""] },
      h("p", { class: "report-head" },
        h("span", { class: ["badge", `state-${r.state}`] }, t(`mod.state_${r.state}`)), " ",
        r.about_staff ? [h("span", { class: "badge about-staff" }, t("mod.about_staff")), " "] : null,
        h("strong", {}, t("mod.about", { name: r.about.name || name(r.seat) })), " · ",
        t("mod.by", { name: r.reporter.name }), " · ", r.table.name, " · ", phaseOf(r.phase), " · ", when(r.at)),
      h("blockquote", { class: "report-reason" }, r.reason),
      (r.chat || []).length ? h("details", { class: "report-chat" },
        h("summary", {}, t("report.chat", { count: r.chat.length })),
        h("ol", { class: "report-chat-lines" }, r.chat.map((line) => h("li", { class: [line.to ? "is-private" : "", line.hidden ? "is-hidden-line" : ""] },
          // Its writer as they were then (a seat's holder now may be someone else, issue 38),
          // when, and the replay from that moment (everything revealed; once the game is over).
          line.t ? h("time", { class: "chat-time" }, clockTime(line.t, lang()), " ") : null,
          h("span", { class: "chat-who" }, line.name || name(line.from),
            line.to ? ` → ${line.to_name || name(line.to)} ${t("chat.private_mark")}` : "", ": "),
          h("span", { class: "chat-text" }, line.text),
          line.hidden ? h("span", { class: "chat-hidden-mark" }, " ", t("chat.hidden_mark", { reason: line.hidden_reason || "" })) : null,
          // D71: hidden from everyone but staff and its writer, or shown again
          line.step ? [" ", hideControl(r.table.id, "game", line.step, !!line.hidden, () => this.load())] : null,
          line.step ? h("a", {
            class: "chat-replay", href: `/t/${encodeURIComponent(r.table.id)}/replay?step=${line.step}`,
            attrs: { title: t("mod.replay_title") },
          }, " ", t("mod.replay_at")) : null)))) : null,
      h("div", { class: "mod-actions" },
        r.about.id ? h("button", { class: "btn btn-small", type: "button", text: t("mod.record"), on: { click: () => this.openPlayer(r.about.id, r) } }) : null,
        r.state !== "acted" ? button("mod.mark_acted", "acted", false) : null,
        r.state !== "dismissed" ? button("mod.dismiss", "dismissed", true) : null),
      who.say ? h("p", { class: "hint mod-who-decides", id: sayId }, who.say) : null);
  }

  /** The search by name. What was asked and found is kept on the screen (`this.search`):
   * every act re-draws the page, and the results of a search went with it. */
  findCard() {
    const search = this.search || (this.search = { name: "", found: null });
    const input = h("input", { type: "text", id: "mod-find", maxLength: 64, value: search.name, attrs: { autocomplete: "off" } });
    const results = h("ul", { class: "mod-found" });
    const error = h("p", { class: "form-error", attrs: { role: "alert" } });
    const draw = () => {
      if (search.found === null) return;
      fill(results, search.found.length ? search.found.map((p) => h("li", {},
        h("button", { class: "btn btn-small btn-ghost mod-found-player", type: "button", on: { click: () => this.openPlayer(p.id) } },
          h("span", {}, p.name, " · ", t(`mod.kind_${p.kind}`)), " ", h("span", { class: "hint mod-facts" }, facts(p)))))
        : h("li", { class: "hint" }, t("mod.nobody")));
    };
    const form = h("form", {
      on: {
        submit: async (ev) => {
          ev.preventDefault();
          error.textContent = "";
          if (!input.value.trim()) return;
          try {
            search.name = input.value.trim();
            search.found = (await get(`/api/moderation/players?name=${encodeURIComponent(search.name)}`)).players;
            draw();
          } catch (err) { error.textContent = errorText(err); }
        },
      },
    }, h("div", { class: "field" }, h("label", { attrs: { for: "mod-find" } }, t("mod.find")),
      h("div", { class: "chat-row" }, input, h("button", { class: "btn", type: "submit", text: t("mod.search") }))), error);
    draw();
    return h("section", { class: "card" }, form, results);
  }

  playerCard() {
    if (this.playerError) return h("section", { class: "card notice-bad", id: "mod-player" }, errorText(this.playerError));
    if (!this.player) return h("section", { class: "card", id: "mod-player" }, h("p", { class: "hint" }, t("mod.pick_player")));
    const d = this.player;
    const status = [
      d.banned ? h("span", { class: "badge state-ban" }, t("mod.is_banned")) : null,
      d.muted_until !== null ? h("span", { class: "badge state-mute" }, t("mod.is_muted")) : null,
      ...d.roles.map((r) => h("span", { class: "badge" }, t(`mod.role_${r}`))),
    ];
    const live = (s) => s.kind !== "warning" && !s.lifted_at && (s.until === null || s.until * 1000 > Date.now());
    return h("section", { class: "card", id: "mod-player", attrs: { "aria-labelledby": "mod-player-title" } },
      h("h2", { id: "mod-player-title" }, d.player.name, " ", status),
      h("p", { class: "hint mod-facts", id: "mod-player-facts" }, t(`mod.kind_${d.player.kind}`), " · ", facts(d.player)),
      h("h3", {}, t("mod.sanctions")),
      d.sanctions.length ? h("ul", { class: "mod-sanctions" }, d.sanctions.map((s) => h("li", {},
        h("strong", {}, t(`mod.kind_${s.kind}`)), " · ", when(s.at),
        s.kind !== "warning" ? ` → ${s.until ? when(s.until) : t("mod.forever")}` : "",
        s.lifted_at ? ` · ${t("mod.lifted")}` : "",
        s.kind === "warning" ? ` · ${s.seen_at ? t("mod.seen") : t("mod.unseen")}` : "",
        h("br"), h("span", { class: "hint" }, s.reason),
        live(s) ? h("button", { class: "btn btn-small btn-ghost", type: "button", text: t("mod.lift"),
          attrs: { "aria-haspopup": "dialog" }, on: { click: () => this.liftDialog(s, d.player) } }) : null)))
        : h("p", { class: "hint" }, t("mod.no_sanctions")),
      this.sanctionForm(d),
      h("h3", {}, t("mod.their_reports", { count: d.reports.length })),
      d.reports.length ? h("ul", { class: "mod-sanctions" }, d.reports.map((r) => h("li", {},
        h("span", { class: ["badge", `state-${r.state}`] }, t(`mod.state_${r.state}`)), " ", when(r.at), " · ", r.reason)))
        : h("p", { class: "hint" }, t("mod.no_reports")));
  }

  /** Lifting a mute or a ban: one click ended a ban at once before; now a dialog asks why
   * (the audit log keeps it, and the server refuses a lift without) and to confirm. */
  liftDialog(s, player) {
    const reason = h("textarea", { id: "lift-reason", maxLength: 1000, rows: 2, attrs: { "aria-required": "true" } });
    const error = h("p", { class: "form-error", attrs: { role: "alert" } });
    const cancel = h("button", { class: "btn", type: "button", text: t("cancel") });
    const send = h("button", { class: "btn btn-danger", type: "submit", text: t(`mod.lift_confirm_${s.kind}`) });
    const form = h("form", {},
      h("div", { class: "field" }, h("label", { attrs: { for: "lift-reason" } }, t("mod.lift_reason")), reason),
      error, h("div", { class: "dialog-buttons" }, cancel, send));
    const dlg = h("dialog", { class: "dialog lift-dialog", attrs: { "aria-labelledby": "lift-title" } },
      h("h2", { id: "lift-title", class: "dialog-title" }, t(`mod.lift_title_${s.kind}`, { name: player.name })),
      h("p", { class: "dialog-body" }, t(`mod.lift_body_${s.kind}`, { name: player.name })),
      h("blockquote", { class: "report-reason" }, s.reason), form);
    const close = showModal(dlg);
    cancel.addEventListener("click", close);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      if (!reason.value.trim()) { error.textContent = t("mod.need_reason"); reason.focus(); return; }
      const url = `/api/moderation/sanctions/${encodeURIComponent(s.id)}?reason=${encodeURIComponent(reason.value.trim())}`;
      try {
        await del(url);
      } catch (err) {
        error.textContent = errorText(err);
        return;
      }
      close();
      announce(t(`mod.lifted_${s.kind}`, { name: player.name }));
      await this.act(async () => {}, "mod-sanction-error");
    });
    reason.focus();
  }

  sanctionForm(d) {
    const kind = h("select", { id: "mod-kind" }, ["warning", "mute", "ban"].map((k) => h("option", { value: k, text: t(`mod.kind_${k}`) })));
    const length = h("select", { id: "mod-length" });
    const drawLengths = () => {
      const options = kind.value === "mute" ? MUTES : kind.value === "ban" ? BANS : [];
      fill(length, options.map((m) => h("option", { value: m === null ? "" : String(m), text: duration(m) })));
      lengthField.hidden = !options.length;  // a warning has no length
    };
    const lengthField = h("div", { class: "field" }, h("label", { attrs: { for: "mod-length" } }, t("mod.length")), length);
    // The reason's label says what it is for: a warning's words, a mute's or a ban's reason.
    const reasonLabel = h("label", { attrs: { for: "mod-reason" } });
    const drawLabel = () => { reasonLabel.textContent = t(`mod.reason_${kind.value}`); };
    kind.addEventListener("change", () => { drawLengths(); drawLabel(); });
    drawLengths();
    drawLabel();
    const reason = h("textarea", { id: "mod-reason", maxLength: 1000, rows: 2, required: true });
    const submit = async (ev) => {
      ev.preventDefault();
      if (!reason.value.trim()) { this.el.querySelector("#mod-sanction-error").textContent = t("mod.need_reason"); return; }
      const body = { kind: kind.value, reason: reason.value.trim() };
      if (length.value) body.minutes = Number(length.value);
      if (body.kind === "ban") {  // it ends every session of theirs at once: asked first
        const sure = await confirmDialog({
          title: t("mod.ban_confirm_title", { name: d.player.name }),
          body: t("mod.ban_confirm_body", { name: d.player.name, length: duration(length.value ? Number(length.value) : null) }),
          confirm: t("mod.ban_confirm"), danger: true,
          extra: h("blockquote", { class: "report-reason" }, body.reason),
        });
        if (!sure) return;
      }
      if (linked) body.report = linked.id;
      await this.act(async () => {
        await post(`/api/moderation/players/${encodeURIComponent(d.player.id)}/sanctions`, body);
        this.fromReport = null;  // answered: the report is acted on now
      }, "mod-sanction-error");
    };
    const linked = this.fromReport;
    return h("form", { class: "mod-sanction", on: { submit } },
      h("h3", {}, t("mod.give")),
      linked ? h("p", { class: "hint mod-linked", id: "mod-linked" },
        t("mod.linked_report", { name: linked.reporter.name, reason: linked.reason })) : null,
      h("div", { class: "mod-row" },
        h("div", { class: "field" }, h("label", { attrs: { for: "mod-kind" } }, t("mod.kind")), kind),
        lengthField),
      h("div", { class: "field" }, reasonLabel, reason),
      h("p", { class: "form-error", id: "mod-sanction-error", attrs: { role: "alert" } }),
      h("button", { class: "btn btn-danger", type: "submit", text: t("mod.apply") }));
  }

  auditCard() {
    const log = this.audit || [];
    return h("section", { class: "card", attrs: { "aria-labelledby": "mod-audit-title" } },
      h("h2", { id: "mod-audit-title" }, t("mod.audit")),
      log.length ? h("div", { class: "scroll-x", attrs: { tabindex: "0", role: "region", "aria-label": t("mod.audit") } },
        h("table", { class: "board-table mod-audit" },
          h("thead", {}, h("tr", {}, ["mod.when", "mod.who", "mod.what", "mod.whom", "mod.why", "mod.until"].map((k) => h("th", { attrs: { scope: "col" } }, t(k))))),
          h("tbody", {}, withoutRefusedDraws(log).map((x) => auditRow(x)))))
        : h("p", { class: "hint" }, t("mod.audit_empty")));
  }

  rolesCard() {
    const name = h("input", { type: "text", id: "role-name", maxLength: 64, required: true, attrs: { autocomplete: "off" } });
    const role = h("select", { id: "role-role" }, ["moderator", "admin"].map((r) => h("option", { value: r, text: t(`mod.role_${r}`) })));
    const send = (grant) => this.act(() => post("/api/staff", { name: name.value.trim(), role: role.value, grant }), "role-error");
    return h("section", { class: "card", attrs: { "aria-labelledby": "mod-roles-title" } },
      h("h2", { id: "mod-roles-title" }, t("mod.roles")),
      h("ul", { class: "mod-sanctions" }, (this.staffList || []).map((s) => h("li", {}, s.name, " · ", t(`mod.role_${s.role}`)))),
      h("form", { class: "mod-row", on: { submit: (ev) => { ev.preventDefault(); send(true); } } },
        h("div", { class: "field" }, h("label", { attrs: { for: "role-name" } }, t("mod.account")), name),
        h("div", { class: "field" }, h("label", { attrs: { for: "role-role" } }, t("mod.role")), role),
        h("div", { class: "mod-buttons" },
          h("button", { class: "btn btn-primary", type: "submit", text: t("mod.grant") }),
          h("button", { class: "btn", type: "button", text: t("mod.revoke"), on: { click: () => send(false) } }))),
      h("p", { class: "form-error", id: "role-error", attrs: { role: "alert" } }));
  }
}
