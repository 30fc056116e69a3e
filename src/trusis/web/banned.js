// A banned player's page (D36, D53): what happened, until when, and why, in place of
// everything a ban stops — no name form, no table, no sign-in. Shown the moment the ban
// closes a game's connection (4423 after a `banned` frame), on a lobby that learns it
// (403 banned), and at every load of a browser whose session the ban ended
// (GET /api/session says `banned`).

import { fill, h } from "./dom.js";
import { onLangChange, t, untilText } from "./i18n.js";

export class BannedScreen {
  constructor(app) {
    this.app = app;
    this.el = h("div", { class: "banned-screen" });
  }

  mount(main) {
    fill(main, this.el);
    this.render();
    this.offLang = onLangChange(() => this.render());
    document.title = `${t("ban.title")} — Trusis`;
  }

  unmount() { this.offLang?.(); }

  render() {
    const ban = this.app.banned || {};
    fill(this.el, h("section", { class: "card banned-card", attrs: { role: "alert", "aria-labelledby": "banned-title" } },
      h("h1", { id: "banned-title" }, h("span", { attrs: { "aria-hidden": "true" } }, "⚠ "), t("ban.title")),
      // errors.js's banText in two lines: what and until when, then why
      h("p", { class: "banned-text" }, t("err.banned", { until: untilText(ban.until ?? null) })),
      ban.reason ? h("p", { class: "banned-text banned-reason" }, t("ban.reason", { reason: ban.reason })) : null,
      h("p", { class: "hint" }, t(ban.until ? "ban.after" : "ban.after_never"))));
  }
}
