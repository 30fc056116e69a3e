// The notification settings (/settings/notifications, issue 37): what the player is told of
// their games, by e-mail (an account's confirmed address) and by this browser (Web Push),
// quiet hours in their own time zone, and a daily digest. A form of native controls, each
// with its label, so that a keyboard and a screen reader reach everything; its answers are
// said in a live region.

import { fill, h } from "./dom.js";
import { ApiError, api, get, post } from "./api.js";
import { lang, onLangChange, t } from "./i18n.js";
import { errorText } from "./errors.js";

const KINDS = ["started", "phase", "reminder", "whisper", "ended"];
const CHANNELS = ["email", "push"];

function b64ToBytes(text) {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function zone() {
  try { return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; } catch { return "UTC"; }
}

export class NotifySettingsScreen {
  constructor(app) {
    this.app = app;
    this.el = h("div", { class: "page notify-settings" });
    this.data = null;
    this.status = h("p", { class: "hint", id: "notify-status", attrs: { role: "status", "aria-live": "polite" } });
  }

  mount(main) {
    fill(main, this.el);
    this.offLang = onLangChange(() => this.render());
    fill(this.el, h("p", { class: "hint" }, t("page.loading")));
    this.load();
  }

  unmount() { this.offLang?.(); this.stopped = true; }

  async load() {
    try {
      this.data = await get("/api/me/notifications");
      this.error = null;
    } catch (err) {
      this.data = null;
      this.error = err;
    }
    if (!this.stopped) this.render();
  }

  say(text) { this.status.textContent = text; }

  render() {
    document.title = `${t("notify.title")} — Trusis`;
    if (!this.data) {
      fill(this.el, h("h1", {}, t("notify.title")),
        h("div", { class: "card notice-bad", attrs: { role: "alert" } }, this.error ? errorText(this.error) : t("notify.sign_in")));
      return;
    }
    const d = this.data;
    const prefs = d.prefs;
    const boxes = {};
    // A server with no mail server set up: the e-mail choices (the digest is e-mail too)
    // are shown as they are kept, but cannot be changed — ticking them would do nothing.
    const mailOff = !d.email_available;
    const grid = h("table", { class: "notify-grid" },
      h("caption", {}, t("notify.what")),
      h("thead", {}, h("tr", {}, h("th", { attrs: { scope: "col" } }, t("notify.kind")),
        ...CHANNELS.map((c) => h("th", { attrs: { scope: "col" } }, t(`notify.channel.${c}`))))),
      h("tbody", {}, ...KINDS.map((kind) => h("tr", {},
        h("th", { attrs: { scope: "row" }, id: `notify-kind-${kind}` }, t(`notify.kind.${kind}`)),
        ...CHANNELS.map((channel) => {
          const box = h("input", { type: "checkbox", id: `notify-${channel}-${kind}`,
            attrs: { "aria-label": `${t(`notify.kind.${kind}`)}: ${t(`notify.channel.${channel}`)}` } });
          box.checked = Boolean(prefs[channel]?.[kind]);
          if (channel === "email" && mailOff) { box.disabled = true; box.setAttribute("aria-describedby", "notify-no-mail"); }
          boxes[`${channel}.${kind}`] = box;
          return h("td", {}, box);
        })))));
    const quietOn = h("input", { type: "checkbox", id: "notify-quiet" });
    quietOn.checked = Boolean(prefs.quiet_from);
    const from = h("input", { type: "time", id: "notify-quiet-from", value: prefs.quiet_from || "22:00" });
    const to = h("input", { type: "time", id: "notify-quiet-to", value: prefs.quiet_to || "08:00" });
    const digest = h("input", { type: "checkbox", id: "notify-digest" });
    digest.checked = Boolean(prefs.digest);
    const hour = h("select", { id: "notify-digest-hour" },
      ...Array.from({ length: 24 }, (_, i) => h("option", { value: String(i) }, `${String(i).padStart(2, "0")}:00`)));
    hour.value = String(prefs.digest_hour ?? 18);
    if (mailOff) {
      for (const input of [digest, hour]) { input.disabled = true; input.setAttribute("aria-describedby", "notify-no-mail"); }
    }
    const tz = prefs.tz && prefs.tz !== "UTC" ? prefs.tz : zone();
    const save = async (ev) => {
      ev.preventDefault();
      const body = { lang: lang(), tz, email: {}, push: {}, digest: digest.checked, digest_hour: Number(hour.value) };
      for (const [key, box] of Object.entries(boxes)) {
        const [channel, kind] = key.split(".");
        body[channel][kind] = box.checked;
      }
      if (quietOn.checked) { body.quiet_from = from.value; body.quiet_to = to.value; }
      try {
        this.data = await api("PUT", "/api/me/notifications", { prefs: body });
        this.render();
        this.say(t("notify.saved"));
      } catch (err) { this.say(errorText(err)); }
    };
    const form = h("form", { class: "card", on: { submit: save } },
      grid,
      h("fieldset", {}, h("legend", {}, t("notify.quiet")),
        h("p", { class: "row wrap" }, quietOn, h("label", { htmlFor: "notify-quiet" }, t("notify.quiet_on"))),
        h("p", { class: "row wrap" }, h("label", { htmlFor: "notify-quiet-from" }, t("notify.from")), from,
          h("label", { htmlFor: "notify-quiet-to" }, t("notify.to")), to),
        h("p", { class: "hint" }, t("notify.zone", { zone: tz }))),
      h("fieldset", {}, h("legend", {}, t("notify.digest")),
        h("p", { class: "row wrap" }, digest, h("label", { htmlFor: "notify-digest" }, t("notify.digest_on"))),
        h("p", { class: "row wrap" }, h("label", { htmlFor: "notify-digest-hour" }, t("notify.digest_hour")), hour)),
      h("p", {}, h("button", { class: "btn btn-primary", type: "submit", id: "notify-save" }, t("notify.save"))));
    fill(this.el, h("h1", {}, t("notify.title")), h("p", { class: "hint" }, t("notify.intro")),
      this.browserCard(), this.mailCard(), form, this.status);
  }

  browserCard() {
    const d = this.data;
    const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
    const allow = h("button", { class: "btn", type: "button", id: "notify-allow", on: { click: () => this.allow() } }, t("notify.allow"));
    return h("section", { class: "card", attrs: { "aria-labelledby": "notify-browser-h" } },
      h("h2", { id: "notify-browser-h" }, t("notify.browser")),
      h("p", {}, d.push_subscriptions ? t("notify.browsers", { count: d.push_subscriptions }) : t("notify.no_browser")),
      supported ? h("p", {}, allow) : h("p", { class: "hint" }, t("notify.unsupported")));
  }

  async allow() {
    try {
      if (await Notification.requestPermission() !== "granted") { this.say(t("notify.denied")); return; }
      const registration = await navigator.serviceWorker.register("/static/sw.js", { scope: "/static/" });
      const { key } = await get("/api/notifications/push-key");
      const sub = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64ToBytes(key) });
      this.data = await post("/api/me/push", sub.toJSON());
      this.render();
      this.say(t("notify.allowed"));
    } catch (err) {
      this.say(err instanceof ApiError ? errorText(err) : t("notify.push_failed"));
    }
  }

  mailCard() {
    const d = this.data;
    const body = [];
    if (!d.account) body.push(h("p", {}, t("notify.mail_account")));
    else if (!d.email_available && !d.email) body.push(h("p", { id: "notify-no-mail" }, t("notify.no_mail")));
    else {
      if (d.email) {
        const state = !d.email.confirmed ? "waiting" : d.email.wanted ? "on" : "off";
        body.push(h("p", { id: "notify-address" }, t(`notify.address_${state}`, { address: d.email.address })));
        const row = h("p", { class: "row wrap" });
        if (state === "off") {
          row.append(h("button", { class: "btn", type: "button", on: { click: () => this.act("PUT", "/api/me/email/wanted?on=true") } }, t("notify.mail_on")));
        }
        row.append(h("button", { class: "btn", type: "button", on: { click: () => this.act("DELETE", "/api/me/email") } }, t("notify.remove")));
        body.push(row);
      }
      const input = h("input", { type: "email", id: "notify-email", autocomplete: "email", required: true, attrs: { maxlength: "254" } });
      body.push(h("form", { class: "row wrap", on: { submit: (ev) => { ev.preventDefault(); this.act("POST", "/api/me/email", { address: input.value }, t("notify.sent")); } } },
        h("label", { htmlFor: "notify-email" }, t("notify.address")), input,
        h("button", { class: "btn", type: "submit", id: "notify-send" }, t("notify.confirm"))));
    }
    return h("section", { class: "card", attrs: { "aria-labelledby": "notify-mail-h" } },
      h("h2", { id: "notify-mail-h" }, t("notify.mail")), ...body);
  }

  async act(method, path, body, done = t("notify.saved")) {
    try {
      this.data = await api(method, path, body);
      this.render();
      this.say(done);
    } catch (err) { this.say(errorText(err)); }
  }
}
