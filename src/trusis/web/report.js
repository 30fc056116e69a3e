// R51: report a player, during or after a game (POST /api/tables/{id}/reports), and, for the
// table's host only, the reports of the table on the end screen (GET …/reports answers 403 to
// anyone else: then the section stays hidden). Reasons and chat lines are text nodes only.

import { append, clockTime, fill, h } from "./dom.js";
import { get, post } from "./api.js";
import { lang, phaseName, seatName, t } from "./i18n.js";
import { announce, showModal } from "./dialogs.js";
import { errorText } from "./errors.js";

const REASON_MAX = 1000;

/** The "Report a player" button; `players()` gives the seats, `mySeat()` the reporter's. */
export function reportButton(tableId, { players, mySeat, onSent = null, small = true }) {
  return h("button", {
    class: ["btn", small ? "btn-small" : "", "btn-ghost", "btn-report"], type: "button",
    attrs: { "aria-haspopup": "dialog" },
    on: { click: () => reportDialog(tableId, players(), mySeat(), onSent) },
  }, "⚑ ", t("report.button"));
}

/** The dialog: a seat, a reason, Send; then a confirmation in the same dialog. */
export function reportDialog(tableId, players, mySeat, onSent = null) {
  const others = (players || []).filter((p) => p.seat !== mySeat);
  const dlg = h("dialog", { class: "dialog report-dialog", attrs: { "aria-labelledby": "report-title" } });
  const seat = h("select", { id: "report-seat", required: true },
    h("option", { value: "", text: t("report.choose_seat") }),
    others.map((p) => h("option", { value: String(p.seat), text: seatName(p.seat) })));
  const reason = h("textarea", {
    id: "report-reason", maxLength: REASON_MAX, rows: 4, required: true,
    attrs: { placeholder: t("report.reason_placeholder"), "aria-describedby": "report-hint" },
  });
  const error = h("p", { class: "form-error", attrs: { role: "alert" } });
  const send = h("button", { class: "btn btn-primary", type: "submit", text: t("report.send") });
  const cancel = h("button", { class: "btn", type: "button", text: t("cancel"), on: { click: () => done() } });
  const form = h("form", {
    class: "report-form", attrs: { novalidate: true },
    on: { submit: (ev) => { ev.preventDefault(); submit(); } },
  },
  h("p", { class: "hint", id: "report-hint" }, t("report.hint")),
  h("div", { class: "dialog-fields" },
    h("label", { attrs: { for: "report-seat" } }, t("report.seat")), seat,
    h("label", { attrs: { for: "report-reason" } }, t("report.reason")), reason),
  error,
  h("div", { class: "dialog-buttons" }, cancel, send));
  append(dlg, [h("h2", { id: "report-title", class: "dialog-title" }, "⚑ ", t("report.title")), form]);

  let busy = false;
  async function submit() {
    if (busy) return;
    error.textContent = "";
    if (!seat.value) { error.textContent = t("report.need_seat"); seat.focus(); return; }
    if (!reason.value.trim()) { error.textContent = t("report.need_reason"); reason.focus(); return; }
    busy = true;
    send.disabled = true;
    try {
      await post(`/api/tables/${encodeURIComponent(tableId)}/reports`, { seat: Number(seat.value), reason: reason.value.trim() });
    } catch (err) {
      error.textContent = errorText(err);
      busy = false;
      send.disabled = false;
      return;
    }
    const who = seatName(Number(seat.value));
    const close = h("button", { class: "btn btn-primary", type: "button", text: t("close"), on: { click: () => done() } });
    fill(form, h("p", { class: "report-sent", attrs: { role: "status" } }, "✓ ", t("report.sent", { seat: who })),
      h("div", { class: "dialog-buttons" }, close));
    close.focus();
    announce(t("report.sent", { seat: who }));
    onSent?.();
  }

  const done = showModal(dlg);
  seat.focus();
  return dlg;
}

const sections = new Map(); // tableId -> {el, data, asked}

/**
 * The host's "Reports (n)" section of the end screen: one element per table, asked once the
 * page knows the reader hosts the table (others would only get a 403), drawn again in the
 * current language at every call.
 */
export function reportsSection(tableId, host) {
  let entry = sections.get(tableId);
  if (!entry) {
    entry = { el: h("section", { class: "card reports", hidden: true, attrs: { "aria-labelledby": "reports-title" } }), data: null, asked: false };
    sections.set(tableId, entry);
  }
  if (host && !entry.asked) loadReports(tableId, entry);
  drawReports(tableId, entry);
  return entry.el;
}

async function loadReports(tableId, entry) {
  entry.asked = true;
  try {
    const reply = await get(`/api/tables/${encodeURIComponent(tableId)}/reports`);
    entry.data = reply.reports || [];
    entry.total = reply.total ?? entry.data.length; // the list holds the newest 100
  } catch {
    entry.data = null; // not the host (403), or nothing to read: no section
  }
  drawReports(tableId, entry);
}

function drawReports(tableId, entry) {
  const reports = entry.data;
  entry.el.hidden = !reports;
  if (!reports) return;
  const refresh = h("button", {
    class: "btn btn-small", type: "button", text: t("lobby.refresh"),
    on: { click: () => loadReports(tableId, entry) },
  });
  fill(entry.el,
    h("div", { class: "card-head" }, h("h2", { id: "reports-title" }, t("report.section", { count: entry.total ?? reports.length })), refresh),
    h("p", { class: "hint" }, t("report.section_hint")),
    reports.length ? h("ol", { class: "report-list" }, reports.map((r) => h("li", { class: "report" },
      h("p", { class: "report-head" },
        h("strong", {}, t("report.about", { seat: seatName(r.seat) })), " · ",
        r.reporter_seat ? t("report.by", { seat: seatName(r.reporter_seat) }) : t("report.by_spectator"), " · ",
        phaseOf(r.phase), r.at ? ` · ${clockTime(r.at, lang())}` : ""),
      h("blockquote", { class: "report-reason" }, r.reason),
      (r.chat || []).length ? h("details", { class: "report-chat" },
        h("summary", {}, t("report.chat", { count: r.chat.length })),
        h("ol", { class: "report-chat-lines" }, r.chat.map((line) => h("li", {},
          h("span", { class: "chat-who" }, line.name || seatName(line.from),
            line.to ? ` → ${line.to_name || seatName(line.to)}` : "", ": "),
          h("span", { class: "chat-text" }, line.text))))) : null)))
      : h("p", { class: "hint" }, t("report.none")));
}

function phaseOf(key) {
  const [kind, number] = String(key || "").split(":");
  if (kind === "day" || kind === "night") return phaseName({ kind, number: Number(number) });
  return t("report.after");
}

/** Ask again for a table's reports (after one more was sent from this page). */
export function refreshReports(tableId) {
  const entry = sections.get(tableId);
  if (entry) loadReports(tableId, entry);
}
