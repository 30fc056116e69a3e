// Accounts in the header: "Sign in / Register" for whoever is signed out, "Keep your games:
// register" for a guest (the guest keeps their player, so their games stay theirs), and for an
// account its name with a menu (ARIA menu button: arrows, Home/End, Escape): profile,
// leaderboard, a download of one's own data, changing the password, deleting the account,
// signing out, and signing out everywhere (sessions.js).

import { append, h } from "./dom.js";
import { del, post } from "./api.js";
import { t } from "./i18n.js";
import { announce, banner, confirmDialog, showModal } from "./dialogs.js";
import { errorText } from "./errors.js";
import { passwordDialog, signOutEverywhere } from "./sessions.js";
import { blocksDialog } from "./blocks.js";
import { loadStaff } from "./moderation.js";
import { nameCounter } from "./lobby.js";

/** Links marked data-route move inside the page (history.pushState) instead of loading it. */
export function routeLinks(app) {
  document.addEventListener("click", (ev) => {
    const a = ev.target?.closest?.("a[data-route]");
    if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    app.navigate(a.getAttribute("href"));
  });
}

/** A link inside the page. */
export function pageLink(href, props, ...children) {
  return h("a", { ...props, href, dataset: { ...(props?.dataset || {}), route: "" } }, ...children);
}

/** What the header shows about the person: a button for the sign-in dialog, or the account menu. */
export function accountTools(app) {
  // Until the session is known, no button at all: a "Sign in" shown to someone signed in
  // (or a menu drawn again, closed, once their roles arrive) would take a quick click.
  if (!app.known) return h("span", { class: "acct-pending", attrs: { "aria-hidden": "true" } });
  if (app.banned) return h("span", { class: "acct-pending", attrs: { "aria-hidden": "true" } });  // D53: no sign-in offered
  const me = app.me;
  if (me && me.kind === "account") return accountMenu(app, me);
  const guest = me && me.kind === "guest";
  return h("button", {
    class: ["btn", "btn-small", guest ? "btn-keep" : ""], type: "button", id: "account-button",
    attrs: { "aria-haspopup": "dialog", title: guest ? t("acct.keep_hint", { name: me.name }) : null },
    on: { click: () => accountDialog(app, guest ? "register" : "login") },
  }, h("span", { class: "acct-icon", attrs: { "aria-hidden": "true" } }, "◉ "),
  h("span", { class: "acct-long" }, guest ? t("acct.keep") : t("acct.sign_in_register")),
  h("span", { class: "acct-short" }, guest ? t("acct.register_short") : t("acct.sign_in_short")));
}

function accountMenu(app, me) {
  const button = h("button", {
    class: "btn btn-small acct-button", type: "button", id: "account-button",
    attrs: { "aria-haspopup": "menu", "aria-expanded": "false", "aria-controls": "account-menu", "aria-label": t("acct.menu_label", { name: me.name }) },
  }, h("span", { class: "acct-icon", attrs: { "aria-hidden": "true" } }, "◉ "), h("span", { class: "acct-name" }, me.name), h("span", { attrs: { "aria-hidden": "true" } }, " ▾"));
  const item = (el) => h("li", { attrs: { role: "none" } }, el);
  const entry = (tag, props, ...children) => {
    const el = tag === "route" ? pageLink(props.href, { ...props, href: undefined }, ...children) : h(tag, props, ...children);
    el.setAttribute("role", "menuitem");
    el.tabIndex = -1;
    el.classList.add("menu-item");
    el.addEventListener("click", () => close(false));
    return el;
  };
  const moderation = entry("route", { href: "/moderation" }, "⚖ ", t("mod.title"));
  const items = [
    entry("route", { href: `/p/${encodeURIComponent(me.id)}` }, t("acct.profile")),
    entry("route", { href: "/leaderboard" }, t("acct.leaderboard")),
    entry("route", { href: "/settings/notifications" }, t("acct.notifications")),
    entry("button", { type: "button", on: { click: () => blocksDialog() } }, t("block.list")),
    (app.staff || []).length ? moderation : null,
    entry("a", { href: "/api/me/data", attrs: { download: "my-trusis-data.json" } }, "⬇ ", t("acct.download")),
    entry("button", { type: "button", on: { click: () => passwordDialog() } }, t("acct.password_change")),
    entry("button", { type: "button", on: { click: () => deleteAccount(app) } }, t("acct.delete")),
    entry("button", { type: "button", on: { click: () => signOut(app) } }, t("acct.sign_out")),
    entry("button", { type: "button", on: { click: () => signOutEverywhere(app) } }, t("acct.sign_out_everywhere")),
  ].filter(Boolean);
  const menu = h("ul", {
    class: "menu", id: "account-menu", hidden: true,
    attrs: { role: "menu", "aria-labelledby": "account-button" },
    on: { keydown: (ev) => key(ev) },
  }, items.map(item));
  const wrap = h("div", { class: "acct-wrap" }, button, menu);
  const outside = (ev) => { if (!wrap.contains(ev.target)) close(false); };
  /** The roles asked again at each opening: a player made moderator (or no longer one)
   * while the page is open finds the entry there, or gone, without a reload (issue 38). */
  async function restaff() {
    await loadStaff(app);
    const staff = (app.staff || []).length > 0;
    const at = items.indexOf(moderation);
    if (staff && at < 0) {
      const after = items.findIndex((el) => el.tagName === "A" && el.hasAttribute("download"));
      items.splice(after, 0, moderation);
      menu.insertBefore(item(moderation), menu.children[after] || null);
    } else if (!staff && at >= 0) {
      if (document.activeElement === moderation) items[(at + 1) % items.length].focus();
      items.splice(at, 1);
      moderation.parentElement?.remove();
    }
  }
  function open(focusIndex = 0) {
    restaff();
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    document.addEventListener("pointerdown", outside);
    items[(focusIndex + items.length) % items.length].focus();
  }
  function close(refocus = true) {
    if (menu.hidden) return;
    menu.hidden = true;
    button.setAttribute("aria-expanded", "false");
    document.removeEventListener("pointerdown", outside);
    if (refocus) button.focus();
  }
  function key(ev) {
    const i = items.indexOf(document.activeElement);
    if (ev.key === "ArrowDown") items[(i + 1) % items.length].focus();
    else if (ev.key === "ArrowUp") items[(i - 1 + items.length) % items.length].focus();
    else if (ev.key === "Home") items[0].focus();
    else if (ev.key === "End") items[items.length - 1].focus();
    else if (ev.key === "Escape") close(true);
    else if (ev.key === "Tab") { close(false); return; }
    else return;
    ev.preventDefault();
  }
  button.addEventListener("click", () => (menu.hidden ? open(0) : close(false)));
  button.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown") { ev.preventDefault(); open(0); }
    if (ev.key === "ArrowUp") { ev.preventDefault(); open(-1); }
  });
  return wrap;
}

async function signOut(app) {
  try { await post("/api/logout"); } catch { /* signed out anyway on this page */ }
  app.setMe(null);
  announce(t("acct.signed_out"));
}

async function deleteAccount(app) {
  const ok = await confirmDialog({
    title: t("acct.delete_title"), body: t("acct.delete_body", { name: app.me?.name || "" }),
    confirm: t("acct.delete_do"), cancel: t("acct.delete_keep"), danger: true,
  });
  if (!ok) return;
  try {
    await del("/api/me");
  } catch (err) {
    banner([errorText(err)], "death");
    return;
  }
  app.setMe(null);
  app.navigate("/");
  banner([t("acct.deleted")], "info");
}

/** The sign-in / register dialog; `mode` is "login" or "register". */
export function accountDialog(app, mode = "login") {
  const guest = app.me?.kind === "guest" ? app.me : null;
  const dlg = h("dialog", { class: "dialog account-dialog", attrs: { "aria-labelledby": "acct-title" } });
  const title = h("h2", { id: "acct-title", class: "dialog-title" });
  const hint = h("p", { class: "hint", id: "acct-hint" });
  const name = h("input", {
    type: "text", id: "acct-name", maxLength: 32, required: true, value: guest?.name || "",
    attrs: { autocomplete: "username", autocapitalize: "none", spellcheck: "false" },
  });
  const password = h("input", {
    type: "password", id: "acct-password", maxLength: 200, required: true,
    attrs: { "aria-describedby": "acct-password-hint" },
  });
  const pwHint = h("p", { class: "hint field-hint", id: "acct-password-hint" });
  const error = h("p", { class: "form-error", attrs: { role: "alert" } });
  const submit = h("button", { class: "btn btn-primary", type: "submit" });
  const cancel = h("button", { class: "btn", type: "button", text: t("cancel"), on: { click: () => done() } });
  const tabs = ["login", "register"].map((m) => h("button", {
    type: "button", class: "seg", dataset: { mode: m },
    on: { click: () => { setMode(m); name.focus(); } },
  }, t(m === "login" ? "acct.sign_in" : "acct.register")));
  const form = h("form", {
    class: "account-form", attrs: { novalidate: true },
    on: { submit: (ev) => { ev.preventDefault(); send(); } },
  },
  h("div", { class: "segmented", attrs: { role: "group", "aria-label": t("acct.choose") } }, tabs),
  hint,
  h("div", { class: "dialog-fields" },
    h("label", { attrs: { for: "acct-name" } }, t("acct.name")), name, nameCounter(name, submit),
    h("label", { attrs: { for: "acct-password" } }, t("acct.password")), password, pwHint),
  error,
  h("p", { class: "acct-more" }, pageLink("/leaderboard", { on: { click: () => done() } }, t("acct.see_leaderboard"))),
  h("div", { class: "dialog-buttons" }, cancel, submit));
  append(dlg, [title, form]);

  function setMode(m) {
    mode = m;
    for (const b of tabs) b.setAttribute("aria-pressed", String(b.dataset.mode === m));
    title.textContent = m === "login" ? t("acct.sign_in_title") : guest ? t("acct.keep") : t("acct.register_title");
    hint.textContent = m === "login" ? t("acct.sign_in_hint") : guest ? t("acct.keep_hint", { name: guest.name }) : t("acct.register_hint");
    password.setAttribute("autocomplete", m === "login" ? "current-password" : "new-password");
    pwHint.textContent = m === "login" ? "" : t("acct.password_hint", { min: 8, max: 200 });
    pwHint.hidden = m === "login";
    submit.textContent = m === "login" ? t("acct.sign_in") : t("acct.register_do");
    error.textContent = "";
  }

  let busy = false;
  async function send() {
    if (busy) return;
    error.textContent = "";
    if (!name.value.trim()) { error.textContent = t("err.empty_name"); name.focus(); return; }
    if (!password.value) { error.textContent = t("acct.need_password"); password.focus(); return; }
    if (mode === "register" && (password.value.length < 8 || password.value.length > 200)) {
      error.textContent = t("err.bad_password", { min: 8, max: 200 });
      password.focus();
      return;
    }
    busy = true;
    submit.disabled = true;
    try {
      const answer = await post(mode === "login" ? "/api/login" : "/api/accounts", { name: name.value.trim(), password: password.value });
      done();
      app.setMe(answer.player || answer);
      announce(t(mode === "login" ? "acct.signed_in" : "acct.registered", { name: (answer.player || answer).name }));
    } catch (err) {
      error.textContent = err.code === "too_many_attempts"
        ? t("err.too_many_attempts", { count: Math.max(1, Math.ceil(Number(err.params?.retry_after || 60) / 60)) })
        : errorText(err);
      (err.code === "name_taken" || err.code === "empty_name" || err.code === "name_too_long" ? name : password).focus();
    } finally {
      busy = false;
      submit.disabled = false;
    }
  }

  setMode(mode);
  const done = showModal(dlg);
  (name.value ? password : name).focus();
  return dlg;
}

/** Whether a player id is the person signed in here. */
export function isMe(app, playerId) { return !!app.me && app.me.id === playerId; }
