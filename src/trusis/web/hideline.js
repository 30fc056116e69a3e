// A moderator hides a chat line, or shows it again (issue 38, D71): a button on the line
// that opens a short form asking why (the reason is required, and kept in the audit log;
// the line's writer reads it). Used on the game page's chat (a staff member who watches is
// told each line's `line`) and on a report's excerpt on the moderation page (its `step`).
import { h } from "./dom.js";
import { del, post } from "./api.js";
import { t } from "./i18n.js";
import { errorText } from "./errors.js";

let forms = 0;  // ids for each form's label

/** The "Hide line" (or, `hidden`, "Show again") control of the line `number` of table
 * `tableId` at `place` ("game" or "waiting"); `done()` after the server took it. */
export function hideControl(tableId, place, number, hidden, done = () => {}) {
  const box = h("span", { class: "hide-line" });
  const label = hidden ? t("mod.unhide_line") : t("mod.hide_line");
  const open = h("button", {
    class: "btn btn-small btn-ghost hide-line-open", type: "button", text: label,
    on: { click: () => { open.hidden = true; form.hidden = false; input.focus(); } },
  });
  const id = `hide-line-reason-${++forms}`;
  const input = h("input", { type: "text", id, maxLength: 1000, attrs: { autocomplete: "off", required: "" } });
  const error = h("span", { class: "form-error", attrs: { role: "alert" } });
  const path = `/api/moderation/tables/${encodeURIComponent(tableId)}/chat/${place}/${number}`;
  const form = h("form", {
    class: "hide-line-form", hidden: true,
    on: {
      submit: async (ev) => {
        ev.preventDefault();
        const reason = input.value.trim();
        if (!reason) { error.textContent = t("mod.need_reason"); input.focus(); return; }
        error.textContent = "";
        try {
          if (hidden) await del(`${path}?reason=${encodeURIComponent(reason)}`);
          else await post(path, { reason });
          done();
        } catch (err) { error.textContent = errorText(err); }
      },
    },
  }, h("label", { attrs: { for: id } }, hidden ? t("mod.unhide_reason") : t("mod.hide_reason")), " ", input, " ",
  h("button", { class: "btn btn-small", type: "submit", text: label }), " ",
  h("button", {
    class: "btn btn-small btn-ghost", type: "button", text: t("cancel"),
    on: { click: () => { form.hidden = true; open.hidden = false; error.textContent = ""; open.focus(); } },
  }), " ", error);
  box.append(open, form);
  return box;
}
