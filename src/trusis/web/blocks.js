// Blocking another player (issue 18, D33): their chat is hidden for you (the log still shows
// the game's events), and they cannot sit at a table you host. The page knows seats, not
// player ids: it blocks "the person at seat N" and asks which seats of this table it blocks.

import { fill, h } from "./dom.js";
import { del, get, post } from "./api.js";
import { seatName, t } from "./i18n.js";
import { announce, showModal } from "./dialogs.js";
import { errorText } from "./errors.js";
import { styles } from "./moderation.js";

/** Which seats of the table hold people the reader blocks: `store.blocked`, then `done()`. */
export async function loadBlocked(store, done = () => {}) {
  try {
    const q = store.invite ? `?invite=${encodeURIComponent(store.invite)}` : "";
    const data = await get(`/api/tables/${encodeURIComponent(store.tableId)}/blocked${q}`);
    store.blocked = new Set((data.seats || []).map(Number));
  } catch {
    store.blocked = new Set();
  }
  done();
}

/** The players you block, each with Unblock (GET /api/me/blocks); `onChange` after one. */
export function blockedList(onChange = () => {}) {
  styles();
  const list = h("ul", { class: "mod-sanctions blocked-list" });
  const error = h("p", { class: "form-error", attrs: { role: "alert" } });
  const load = async () => {
    try {
      const blocks = (await get("/api/me/blocks")).blocks || [];
      fill(list, blocks.length ? blocks.map((b) => h("li", {}, b.name, " ",
        h("button", {
          class: "btn btn-small btn-ghost", type: "button", text: t("block.unblock"),
          attrs: { "aria-label": t("block.unblock_label", { name: b.name }) },
          on: { click: async () => {
            try { await del(`/api/me/blocks/${encodeURIComponent(b.id)}`); } catch (err) { error.textContent = errorText(err); }
            await load();
            onChange();
          } },
        }))) : h("li", { class: "hint" }, t("block.none")));
    } catch (err) { error.textContent = errorText(err); }
  };
  load();
  return h("section", { class: "blocked" }, h("h3", {}, t("block.list")), list, error);
}

/** The account menu's "Blocked players": the list alone, in a dialog. */
export function blocksDialog() {
  const done = h("button", { class: "btn btn-primary", type: "button", text: t("close") });
  const dlg = h("dialog", { class: "dialog report-dialog", attrs: { "aria-labelledby": "blocks-title" } },
    h("h2", { id: "blocks-title", class: "dialog-title" }, t("block.list")),
    h("p", { class: "dialog-body" }, t("block.hint")), blockedList(),
    h("div", { class: "dialog-buttons" }, done));
  const close = showModal(dlg);
  done.addEventListener("click", close);
  done.focus();
}

/** The "Block a player" button; `players()` gives the people's seats (no bots). */
export function blockButton(store, { players, onBlocked }) {
  return h("button", {
    class: "btn btn-small btn-ghost btn-block", type: "button", attrs: { "aria-haspopup": "dialog" },
    on: { click: () => blockDialog(store, players(), onBlocked) },
  }, "⊘ ", t("block.button"));
}

function blockDialog(store, players, onBlocked) {
  const others = (players || []).filter((p) => p.seat !== store.seat && !store.blocked?.has(p.seat));
  const seat = h("select", { id: "block-seat", required: true },
    h("option", { value: "", text: t("report.choose_seat") }),
    others.map((p) => h("option", { value: String(p.seat), text: seatName(p.seat) })));
  const error = h("p", { class: "form-error", attrs: { role: "alert" } });
  const cancel = h("button", { class: "btn", type: "button", text: t("cancel") });
  const send = h("button", { class: "btn btn-danger", type: "submit", text: t("block.confirm") });
  const form = h("form", {},
    h("div", { class: "field" }, h("label", { attrs: { for: "block-seat" } }, t("report.seat")), seat),
    error, h("div", { class: "dialog-buttons" }, cancel, send));
  const dlg = h("dialog", { class: "dialog report-dialog", attrs: { "aria-labelledby": "block-title" } },
    h("h2", { id: "block-title", class: "dialog-title" }, t("block.title")),
    h("p", { class: "dialog-body" }, t("block.hint")), form,
    blockedList(() => loadBlocked(store, onBlocked)));
  const close = showModal(dlg);
  cancel.addEventListener("click", close);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!seat.value) { error.textContent = t("report.need_seat"); seat.focus(); return; }
    try {
      await post(`/api/tables/${encodeURIComponent(store.tableId)}/blocks`, { seat: Number(seat.value) });
      const who = seatName(Number(seat.value));
      close();
      announce(t("block.done", { seat: who }));
      await loadBlocked(store, onBlocked);
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  seat.focus();
}
