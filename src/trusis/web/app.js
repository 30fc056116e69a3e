// Trusis in the browser: the page's entry point. Loads the player's language, says who is
// signed in, and routes on location.pathname: "/" is the lobby, "/t/{id}" a table.

import { $, fill, h } from "./dom.js";
import { get } from "./api.js";
import { LANGUAGES, lang, preferredLang, setLang, t } from "./i18n.js";
import { Lobby } from "./lobby.js";
import { TableScreen } from "./tablescreen.js";
import { RulesDialog } from "./rules.js";
import { accountTools, pageLink, routeLinks } from "./account.js";
import { pageFor } from "./pages.js";
import { loadStaff, showWarnings, watchMutes } from "./moderation.js";
import { announce, clearAnnouncer } from "./dialogs.js";
import { applySrMode, setSrMode, srMode } from "./srmode.js";
import { BannedScreen } from "./banned.js";
import { Waiting } from "./yourgames.js";

const SOUND_KEY = "trusis.sound";

class App {
  constructor() {
    this.me = null;
    this.banned = null;  // {until, reason}: a ban ended this browser's session (D53)
    this.known = false;  // whether the session (and the staff roles) have been asked yet
    this.screen = null;
    this.rules = new RulesDialog();
    this.sound = localStorage.getItem(SOUND_KEY) === "on";
    this.waiting = new Waiting(this);  // the games waiting for the player, in the title (D64)
  }

  async boot() {
    await setLang(preferredLang());
    this.header();
    try {
      // A visitor with no name yet is no error: /api/session answers {"player": null}.
      const data = await get("/api/session");
      this.me = data.player || null;
      this.banned = data.banned || null;
    } catch { this.me = null; }
    await loadStaff(this);
    this.known = true;
    this.header();
    routeLinks(this);
    window.addEventListener("popstate", () => this.route());
    this.route();
    showWarnings(this);
    watchMutes(this);  // a mute told on every page, not only a game's (issue 38)
    this.waiting.start();
  }

  header() {
    const tools = $("#tools");
    const select = h("select", {
      id: "lang-select", attrs: { "aria-label": t("lang.label") },
      on: { change: (ev) => setLang(ev.target.value, { remember: true }).then(() => this.header()) },
    }, LANGUAGES.map((code) => h("option", { value: code, text: t(`lang.${code}`) })));
    select.value = lang();
    // Its state in words of each language ("♪ non" said no state): "Sound: off" on a wide
    // screen, "♪ off" on a phone; the name is what it shows (WCAG 2.5.3).
    const sound = h("button", {
      class: "btn btn-small btn-ghost", type: "button", id: "sound-toggle",
      attrs: { "aria-pressed": String(this.sound), title: t("sound.hint") },
      on: { click: () => this.toggleSound() },
    }, h("span", { attrs: { "aria-hidden": "true" } }, "♪"),
    h("span", { class: "tool-text" }, t("sound.label")),
    h("span", {}, this.sound ? t("sound.short_on") : t("sound.short_off")));
    fill(tools,
      this.srTools(),
      h("button", { class: "btn btn-small", type: "button", id: "rules-button", on: { click: () => this.rules.open(this.screen?.store?.view?.composition, this.screen?.store?.view?.role) } }, "☰ ", h("span", { class: "tool-text" }, t("rules.button"))),
      sound,
      this.gamesLink(),
      accountTools(this),
      h("label", { class: "sr-only", attrs: { for: "lang-select" } }, t("lang.label")), select);
    $("#brand").setAttribute("aria-label", t("brand.home"));
  }

  /** "Your games" (D64) for whoever is signed in, from every screen: the lobby's list shows
   * only once a game is there. Its words name it also on a phone, where only ▦ shows. */
  gamesLink() {
    if (!this.me) return null;
    return pageLink("/games", { class: "btn btn-small", id: "games-link" },
      h("span", { attrs: { "aria-hidden": "true" } }, "▦ "), h("span", { class: "tool-text" }, t("games.link")));
  }

  /** The screen-reader mode's switch (srmode.js; its verbosity sits under the chat). */
  srTools() {
    const on = srMode();
    applySrMode();
    const button = h("button", {
      class: "btn btn-small btn-ghost", type: "button", id: "sr-toggle",
      attrs: { "aria-pressed": String(on), title: t("sr.hint") },
      on: { click: () => this.toggleSr() },
    }, h("span", { attrs: { "aria-hidden": "true" } }, "⌨ "), h("span", { class: "tool-text" }, t("sr.button")));
    return button;
  }

  toggleSr() {
    setSrMode(!srMode());
    this.header();
    document.getElementById("sr-toggle")?.focus();
    if (this.screen instanceof TableScreen) this.screen.render();
    announce(t(srMode() ? "sr.now_on" : "sr.now_off"));
  }

  toggleSound() {
    this.sound = !this.sound;
    try { localStorage.setItem(SOUND_KEY, this.sound ? "on" : "off"); } catch { /* ignore */ }
    if (this.sound && "Notification" in window && Notification.permission === "default") {
      Notification.requestPermission().catch(() => {});
    }
    this.header();
  }

  /** "Your turn to act": a short tone when sound is on, a notification for a background tab. */
  alert(text) {
    if (!this.sound) return;
    try {
      const ctx = this.audio || (this.audio = new AudioContext());
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = 660;
      gain.gain.value = 0.05;
      osc.connect(gain).connect(ctx.destination);
      osc.start();
      osc.stop(ctx.currentTime + 0.15);
    } catch { /* no audio */ }
    if (document.hidden && "Notification" in window && Notification.permission === "granted") {
      try { new Notification("Trusis", { body: text }); } catch { /* ignore */ }
    }
  }

  /**
   * A ban ended this player's session (D53): every screen gives way to what happened, until
   * when and why. `ban` is {until, reason} when the page was told (a `banned` frame, a 403
   * `banned`); otherwise the session says it.
   */
  async showBanned(ban) {
    if (!ban) {
      try { ban = (await get("/api/session")).banned || null; } catch { ban = null; }
      if (!ban) { this.setMe(null); return; }  // lifted meanwhile: a name can be chosen
    }
    const first = !this.banned;
    this.banned = ban;
    this.me = null;
    this.header();
    if (first || !(this.screen instanceof BannedScreen)) this.route();
    else this.screen.render();
  }

  setMe(player) {
    this.me = player;
    // The account menu is drawn once, with its staff entries: drawn before the roles arrive
    // and again after, a menu opened in between would be replaced under the click.
    this.known = false;
    this.header();
    loadStaff(this).then(() => { this.known = true; this.header(); showWarnings(this); watchMutes(this); });
    if (this.screen?.onMe) this.screen.onMe();
    else this.route();
    this.waiting.start();
  }

  /** The page's main content (where a new screen puts the focus). */
  main() { return $("#main"); }

  navigate(path) {
    history.pushState(null, "", path);
    this.route();
  }

  route() {
    this.screen?.unmount();
    clearAnnouncer();  // the last screen's lines are not read on this one
    const main = $("#main");
    const match = location.pathname.match(/^\/t\/([^/]+)\/?$/);
    const page = this.banned ? null : pageFor(this);
    if (this.banned) {
      this.screen = new BannedScreen(this);
    } else if (page) {
      this.screen = page;
    } else if (match) {
      const invite = new URLSearchParams(location.search).get("invite");
      this.screen = new TableScreen(this, decodeURIComponent(match[1]), invite);
    } else {
      this.screen = new Lobby(this);
    }
    this.screen.mount(main);
    if (!page && !this.banned) document.title = match ? `${t("title.table")} — Trusis` : "Trusis";
    this.waiting.title();
    main.focus({ preventScroll: true });
  }
}

const app = new App();
window.trusis = app; // for the tests and the curious: no secrets live here
app.boot().catch((err) => {
  fill($("#main"), h("p", { class: "form-error", attrs: { role: "alert" } }, String(err)));
});
