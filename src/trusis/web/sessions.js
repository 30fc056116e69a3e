// The account menu's session tools: signing out everywhere (every device's session ends, and
// their open games close), and changing the password (the current one first; the other
// sessions end, this one stays). The server's side is src/trusis/server/sessions.py.

import { append, h } from "./dom.js";
import { post } from "./api.js";
import { t } from "./i18n.js";
import { announce, banner, confirmDialog, showModal } from "./dialogs.js";
import { errorText } from "./errors.js";

export async function signOutEverywhere(app) {
  const ok = await confirmDialog({
    title: t("acct.everywhere_title"), body: t("acct.everywhere_body"),
    confirm: t("acct.everywhere_do"), cancel: t("cancel"),
  });
  if (!ok) return;
  try {
    await post("/api/logout/everywhere");
  } catch (err) {
    banner([errorText(err)], "death");
    return;
  }
  app.setMe(null);
  announce(t("acct.signed_out_everywhere"));
}

/** The password form: current, new (8 to 200 characters), and its answer in place. */
export function passwordDialog() {
  const dlg = h("dialog", { class: "dialog account-dialog", attrs: { "aria-labelledby": "pw-title" } });
  const field = (id, label, autocomplete, hint) => {
    const input = h("input", {
      type: "password", id, maxLength: 200, required: true,
      attrs: { autocomplete, ...(hint ? { "aria-describedby": `${id}-hint` } : {}) },
    });
    return [h("label", { attrs: { for: id } }, label), input,
      hint ? h("p", { class: "hint field-hint", id: `${id}-hint` }, hint) : null];
  };
  const [currentLabel, current] = field("pw-current", t("acct.password_current"), "current-password");
  const [newLabel, fresh, newHint] = field("pw-new", t("acct.password_new"), "new-password", t("acct.password_hint", { min: 8, max: 200 }));
  const error = h("p", { class: "form-error", attrs: { role: "alert" } });
  const submit = h("button", { class: "btn btn-primary", type: "submit", text: t("acct.password_do") });
  const cancel = h("button", { class: "btn", type: "button", text: t("cancel"), on: { click: () => done() } });
  const form = h("form", {
    class: "account-form", attrs: { novalidate: true },
    on: { submit: (ev) => { ev.preventDefault(); send(); } },
  },
  h("p", { class: "hint" }, t("acct.password_change_hint")),
  h("div", { class: "dialog-fields" }, currentLabel, current, newLabel, fresh, newHint),
  error,
  h("div", { class: "dialog-buttons" }, cancel, submit));
  append(dlg, [h("h2", { id: "pw-title", class: "dialog-title" }, t("acct.password_title")), form]);

  let busy = false;
  async function send() {
    if (busy) return;
    error.textContent = "";
    if (!current.value) { error.textContent = t("acct.need_password"); current.focus(); return; }
    if (fresh.value.length < 8 || fresh.value.length > 200) {
      error.textContent = t("err.bad_password", { min: 8, max: 200 });
      fresh.focus();
      return;
    }
    busy = true;
    submit.disabled = true;
    try {
      await post("/api/password", { current: current.value, password: fresh.value });
      done();
      announce(t("acct.password_changed"));
      banner([t("acct.password_changed")], "info");
    } catch (err) {
      error.textContent = err.code === "too_many_attempts"
        ? t("err.too_many_attempts", { count: Math.max(1, Math.ceil(Number(err.params?.retry_after || 60) / 60)) })
        : errorText(err);
      (err.code === "wrong_password" || err.code === "too_many_attempts" ? current : fresh).focus();
    } finally {
      busy = false;
      submit.disabled = false;
    }
  }

  const done = showModal(dlg);
  current.focus();
  return dlg;
}
