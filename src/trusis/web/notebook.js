// The notebook: one row per seat. Locked facts the game gave you (your role, your fellow
// Trusis, sweeps, visions, the Gravekeeper's and the Gravedigger's news), filled from the
// view's `known` and `results` only — never a deduction — and your own tags and note,
// kept in localStorage per table and seat.

import { fill, h, safeKey } from "./dom.js";
import { capital, msg, phaseName, roleName, seatName, t } from "./i18n.js";

const TAGS = ["", "suspect", "trusted"];

export class Notebook {
  constructor(store) {
    this.store = store;
    this.rows = new Map();
    this.notes = {};
    this.loadedFor = null;
    this.onChange = () => {};
    this.el = h("div", { class: "notebook" });
  }

  storageKey() { return `trusis.notes.${safeKey(this.store.tableId)}.${this.store.seat ?? "watch"}`; }

  load() {
    const key = this.storageKey();
    if (this.loadedFor === key) return;
    this.loadedFor = key;
    try { this.notes = JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch { this.notes = {}; }
  }

  save() {
    try { localStorage.setItem(this.storageKey(), JSON.stringify(this.notes)); } catch { /* ignore */ }
    this.onChange();
  }

  get(seat) {
    this.load();
    const n = this.notes[String(seat)];
    return n && (n.tag || n.claim || n.note) ? n : null;
  }

  /** A short text for a seat card: "⚠ suspect · claims Priest". */
  tagText(note) {
    const parts = [];
    if (note.tag === "suspect") parts.push(`⚠ ${t("nb.tag.suspect")}`);
    if (note.tag === "trusted") parts.push(`♥ ${t("nb.tag.trusted")}`);
    if (note.claim) parts.push(t("nb.claims_short", { role: roleName(note.claim) }));
    return parts.join(" · ");
  }

  /** Every locked fact about each seat, from the view: seat -> [text]. */
  facts() {
    const view = this.store.view || {};
    const facts = new Map();
    const add = (seat, text) => {
      const key = Number(seat);
      if (!facts.has(key)) facts.set(key, []);
      facts.get(key).push(text);
    };
    const explained = new Set();
    for (const r of view.results || []) {
      const fact = r.role || r.result || "";
      const key = `play.fact_${r.kind}`;
      const text = msg(key, { when: phaseName(r.phase), fact: roleName(fact) });
      add(r.target, text === key ? `${phaseName(r.phase)}: ${roleName(fact)}` : capital(text));
      explained.add(Number(r.target));
    }
    const finished = view.status === "finished";
    for (const [seat, fact] of Object.entries(view.known || {})) {
      const s = Number(seat);
      if (s === this.store.seat) add(s, t("nb.your_role", { role: roleName(fact) }));
      else if (finished) add(s, t("nb.revealed", { role: roleName(fact) }));
      else if (!explained.has(s)) add(s, capital(msg("play.fact_known", { fact: roleName(fact) })));
    }
    return facts;
  }

  rebuild() {
    this.rows.clear();
    fill(this.el);
    this.render();
  }

  render() {
    const view = this.store.view;
    if (!view) return;
    this.load();
    const facts = this.facts();
    if (!this.el.firstChild) {
      this.el.append(
        h("h2", { class: "panel-title" }, t("nb.title")),
        h("p", { class: "hint" }, t("nb.hint")),
        h("div", { class: "nb-rows" }));
    }
    const list = this.el.querySelector(".nb-rows");
    for (const p of view.players || []) {
      let row = this.rows.get(p.seat);
      if (!row) {
        row = this.row(p.seat);
        this.rows.set(p.seat, row);
        list.append(row.el);
      }
      fill(row.title, seatName(p.seat), p.seat === this.store.seat ? ` — ${t("seat.you")}` : "");
      fill(row.state, p.alive ? t("seat.alive") : `☠ ${t("seat.dead")}`);
      row.el.classList.toggle("is-dead", !p.alive);
      const mine = facts.get(p.seat) || [];
      fill(row.facts, mine.length
        ? mine.map((text) => h("li", { class: "fact" }, h("span", { attrs: { "aria-hidden": "true" } }, "◆ "), text))
        : h("li", { class: "fact fact-none" }, t("nb.no_fact")));
      this.fillClaims(row.claim, this.notes[String(p.seat)]?.claim || "");
      // Seven "Tag" fields in a row read alike: each says whose it is.
      const who = seatName(p.seat);
      row.tag.setAttribute("aria-label", t("nb.tag_for", { seat: who }));
      row.claim.setAttribute("aria-label", t("nb.claims_for", { seat: who }));
      row.note.setAttribute("aria-label", t("nb.note_for", { seat: who }));
    }
  }

  fillClaims(select, current) {
    const roles = Object.keys(this.store.view?.composition || {});
    const want = ["", ...roles];
    if (current && !want.includes(current)) want.push(current);
    if (select.dataset.roles === want.join(",") && select.value === current) return;
    select.dataset.roles = want.join(",");
    fill(select, want.map((r) => h("option", { value: r, text: r ? roleName(r) : t("nb.claims_none") })));
    select.value = current;
  }

  row(seat) {
    const id = `nb-${seat}`;
    const note = this.notes[String(seat)] || {};
    const update = (field, value) => {
      const entry = { ...(this.notes[String(seat)] || {}), [field]: value };
      this.notes[String(seat)] = entry;
      this.save();
    };
    const tag = h("select", { id: `${id}-tag`, on: { change: (ev) => update("tag", ev.target.value) } },
      TAGS.map((k) => h("option", { value: k, text: k ? t(`nb.tag.${k}`) : t("nb.tag.none") })));
    tag.value = note.tag || "";
    const claim = h("select", { id: `${id}-claim`, on: { change: (ev) => update("claim", ev.target.value) } });
    let timer = null;
    const text = h("input", {
      id: `${id}-note`, type: "text", maxLength: 300, value: note.note || "",
      attrs: { autocomplete: "off", placeholder: t("nb.note_placeholder") },
      on: { input: (ev) => { clearTimeout(timer); timer = setTimeout(() => update("note", ev.target.value), 250); } },
    });
    const title = h("h3", { class: "nb-title" });
    const state = h("span", { class: "nb-state" });
    const factsList = h("ul", { class: "nb-facts", attrs: { "aria-label": t("nb.facts") } });
    const el = h("article", { class: "nb-row", dataset: { seat: String(seat) } },
      h("div", { class: "nb-head" }, title, state),
      factsList,
      h("div", { class: "nb-controls" },
        h("label", { class: "nb-field" }, h("span", {}, t("nb.tag")), tag),
        h("label", { class: "nb-field" }, h("span", {}, t("nb.claims")), claim),
        h("label", { class: "nb-field nb-note" }, h("span", {}, t("nb.note")), text)));
    return { el, title, state, facts: factsList, claim, tag, note: text };
  }
}
