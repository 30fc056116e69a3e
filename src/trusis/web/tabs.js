// A tab list (ARIA tabs pattern): arrow keys move between tabs, the chosen one holds the tab
// stop, and each tab may carry an unread badge.

import { fill, h } from "./dom.js";
import { t } from "./i18n.js";

export class Tabs {
  constructor(ids, { label, cls, onChange, idPrefix }) {
    this.ids = ids;
    this.onChange = onChange;
    this.current = ids[0];
    this.badges = {};
    this.idPrefix = idPrefix;
    this.buttons = new Map(ids.map((id) => [id, h("button", {
      type: "button", id: `${idPrefix}-${id}`, class: "tab",
      attrs: { role: "tab", "aria-controls": `panel-${id}` },
      on: { click: () => this.choose(id, true) },
    })]));
    this.el = h("div", { class: ["tabs", cls], attrs: { role: "tablist", "aria-label": label },
      on: { keydown: (ev) => this.key(ev) } }, [...this.buttons.values()]);
    this.render();
  }

  key(ev) {
    let i = this.ids.indexOf(this.current);
    if (ev.key === "ArrowRight") i = (i + 1) % this.ids.length;
    else if (ev.key === "ArrowLeft") i = (i - 1 + this.ids.length) % this.ids.length;
    else if (ev.key === "Home") i = 0;
    else if (ev.key === "End") i = this.ids.length - 1;
    else return;
    ev.preventDefault();
    this.choose(this.ids[i], true);
    this.buttons.get(this.ids[i]).focus();
  }

  choose(id, byUser = false) {
    if (!this.ids.includes(id)) return;
    this.current = id;
    this.render();
    this.onChange(id, byUser);
  }

  badge(id, count) {
    this.badges[id] = count;
    this.render();
  }

  render() {
    for (const [id, b] of this.buttons) {
      const on = id === this.current;
      b.setAttribute("aria-selected", String(on));
      b.tabIndex = on ? 0 : -1;
      b.classList.toggle("is-current", on);
      const n = this.badges[id] || 0;
      fill(b, t(`tab.${id}`), n ? h("span", { class: "unread", attrs: { "aria-label": t("chat.unread", { count: n }) } }, String(n)) : null);
    }
  }
}
