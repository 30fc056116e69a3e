// A finished game, step by step (/t/{id}/replay?seat=N&step=K): as one seat saw it — a step
// is one event of that seat's own stream, the screen is the engine's view of that seat then —
// or with everything revealed (no seat: one action of the record per step, every role on its
// seat, every pending choice). The seat ring, the status bar, the log and the chat are the
// table screen's own, read-only: no action panel, no chat form.

import { fill, h } from "./dom.js";
import { get } from "./api.js";
import { capital, lang, msg, onLangChange, phaseName, roleName, roleTeam, seatName, setNames, t } from "./i18n.js";
import { GameStore, PRIVATE_CODES } from "./game.js";
import { StatusBar } from "./status.js";
import { SeatRing } from "./seats.js";
import { GameLog, eventText } from "./log.js";
import { Chat } from "./chat.js";
import { Tabs } from "./tabs.js";
import { roleCard, teamMark } from "./rules.js";
import { errorText } from "./errors.js";
import { pageLink } from "./account.js";

const PHONE = "(max-width: 600px)";
const ALL = "all";
const TEAMS = ["human", "trusis", "castaway"];

/** The order of phases: Day 1 < Night 1 < Day 2 … */
const phaseOrder = (p) => (p ? Number(p.number) * 2 + (p.kind === "night" ? 1 : 0) : -1);

/** A store that is never kept in sessionStorage (the live table's own log lives there). */
class ReplayStore extends GameStore {
  persist() {}
  connected() { return true; }
  /** Who held the seat at this step: a bot since a hand-over only from its `replace` on (the
   * step's view says), a bot from the start all along (the table's seats say). */
  isBot(seat) {
    if (this.player(seat)?.bot) return true;
    const entry = (this.table?.seats || []).find((s) => Number(s.seat) === Number(seat));
    return !!entry && entry.kind === "bot" && !entry.taken_over;
  }
}

export class ReplayScreen {
  constructor(app, tableId, params) {
    this.app = app;
    this.tableId = tableId;
    this.invite = params.get("invite");
    const seat = Number(params.get("seat"));
    this.seat = Number.isInteger(seat) && seat > 0 ? seat : null;
    const step = Number(params.get("step"));
    this.step = Number.isInteger(step) && step >= 0 ? step : 0;
    this.steps = null;
    this.cache = new Map();
    this.ask = 0;
    this.data = null;
    this.starts = null;

    const store = this.store = new ReplayStore(tableId);
    this.ring = new SeatRing(store, null, { onSelect: () => {} });
    this.status = new StatusBar(store, { onRole: () => this.app.rules.open(store.view?.composition, store.view?.role), prompt: () => "" });
    this.log = new GameLog(store);
    this.chat = new Chat(store, { send: () => Promise.resolve({ type: "refused", code: "spectator", params: {} }) });
    for (const list of [this.log.list, this.chat.list]) list.setAttribute("aria-live", "off"); // the caption speaks

    this.title = h("h1", { id: "replay-title", class: "replay-title" }, t("replay.title"));
    this.seatPick = h("select", { id: "replay-seat", on: { change: () => this.chooseSeat(this.seatPick.value) } });
    this.phasePick = h("select", { id: "replay-phase", on: { change: () => this.jumpTo(this.phasePick.value) } });
    const button = (cls, text, fn) => h("button", {
      class: ["btn", "btn-small", "step-btn", cls], type: "button", on: { click: fn },
    }, text);
    this.first = button("step-first", "|◀", () => this.go(0));
    this.back = button("step-back", "◀", () => this.go(this.step - 1));
    this.forward = button("step-forward", "▶", () => this.go(this.step + 1));
    this.last = button("step-last", "▶|", () => this.go(this.steps ?? 0));
    // Until the replay knows its steps a press would do nothing: the buttons wait for it.
    for (const b of [this.first, this.back, this.forward, this.last]) b.disabled = true;
    this.slider = h("input", {
      type: "range", id: "replay-slider", min: "0", max: "0", step: "1", value: "0",
      on: { input: () => this.slide() },
    });
    this.caption = h("p", { class: "replay-caption", attrs: { "aria-live": "polite", "aria-atomic": "true" } });
    this.error = h("p", { class: "form-error", attrs: { role: "alert" } });
    this.endLink = pageLink(this.tablePath(), { class: "btn btn-small" });
    this.seatLabel = h("label", { attrs: { for: "replay-seat" } });
    this.phaseLabel = h("label", { attrs: { for: "replay-phase" } });
    this.controls = h("div", { class: "replay-controls", attrs: { role: "group" } },
      this.first, this.back, this.slider, this.forward, this.last);

    this.head = h("section", { class: "replay-head", attrs: { "aria-labelledby": "replay-title" } },
      h("div", { class: "replay-top" }, h("div", { class: "replay-titles" }, this.title, this.endLink),
        h("div", { class: "replay-pickers" },
          h("span", { class: "picker" }, this.seatLabel, this.seatPick),
          h("span", { class: "picker" }, this.phaseLabel, this.phasePick))),
      this.controls, this.caption, this.error);
    this.drawWords();

    this.revealed = h("section", { class: "card replay-revealed", hidden: true, attrs: { "aria-labelledby": "revealed-title" } });
    this.centre = h("section", { class: "panel panel-table", id: "panel-table", attrs: { role: "tabpanel", "aria-labelledby": "tab-p-table" } },
      this.ring.wrap, this.revealed);
    this.side = new Tabs(["log", "chat"], { label: t("tab.side"), cls: "tabs-side", idPrefix: "tab-d", onChange: () => this.showPanels() });
    this.phone = new Tabs(["table", "log", "chat"], { label: t("tab.phone"), cls: "tabs-phone", idPrefix: "tab-p", onChange: (id) => { if (id !== "table") this.side.choose(id); this.showPanels(); } });
    this.panels = {
      log: h("section", { class: "panel", id: "panel-log", attrs: { role: "tabpanel", "aria-labelledby": "tab-d-log" } }, this.log.el),
      chat: h("section", { class: "panel", id: "panel-chat", attrs: { role: "tabpanel", "aria-labelledby": "tab-d-chat" } }, this.chat.el),
    };
    this.aside = h("aside", { class: "side", attrs: { "aria-label": t("tab.side") } }, this.side.el, Object.values(this.panels));
    this.layout = h("div", { class: "layout" }, this.centre, this.aside);
    this.el = h("div", { class: "replay-screen" }, this.head, this.status.el, this.phone.el, this.layout);
    this.media = window.matchMedia(PHONE);
    this.onMedia = () => this.showPanels();
    this.onKey = (ev) => this.key(ev);
  }

  /** The toolbar's own words — its link, its pickers' labels, the names of its buttons —
   * drawn again on a switch of language: drawn once, they stayed in the first load's
   * language ("End screen", "Watch as" on a page switched to French). */
  drawWords() {
    this.endLink.textContent = t("replay.to_end");
    this.seatLabel.textContent = t("replay.as");
    this.phaseLabel.textContent = t("replay.jump");
    this.controls.setAttribute("aria-label", t("replay.controls"));
    const names = [[this.first, "replay.first"], [this.back, "replay.back"], [this.forward, "replay.forward"], [this.last, "replay.last"]];
    for (const [button, key] of names) {
      button.setAttribute("aria-label", t(key));
      button.setAttribute("title", t(key));
    }
    this.slider.setAttribute("aria-label", t("replay.slider"));
    this.aside?.setAttribute("aria-label", t("tab.side"));
    this.side?.el.setAttribute("aria-label", t("tab.side"));
    this.phone?.el.setAttribute("aria-label", t("tab.phone"));
    if (!this.data) this.title.textContent = t("replay.title");
  }

  tablePath() {
    const q = this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    return `/t/${encodeURIComponent(this.tableId)}${q}`;
  }

  mount(main) {
    document.body.classList.add("app-screen", "replay-page");
    fill(main, this.el);
    this.media.addEventListener("change", this.onMedia);
    document.addEventListener("keydown", this.onKey);
    this.offLang = onLangChange(() => this.relang());
    this.showPanels();
    this.start();
  }

  unmount() {
    this.stopped = true;
    this.offLang?.();
    this.status.stop();
    this.media.removeEventListener("change", this.onMedia);
    document.removeEventListener("keydown", this.onKey);
    clearTimeout(this.slideTimer);
    document.body.classList.remove("app-screen", "replay-page", "theme-night");
  }

  showPanels() {
    const phone = this.media.matches;
    const view = phone ? this.phone.current : this.side.current;
    this.layout.dataset.side = this.side.current;
    this.layout.dataset.phone = this.phone.current;
    this.chat.setVisible(view === "chat");
    if (view === "log") this.log.render(true);
  }

  q(params) {
    const s = new URLSearchParams();
    if (params.seat) s.set("seat", String(params.seat));
    s.set("step", String(params.step));
    if (this.invite) s.set("invite", this.invite);
    return s.toString();
  }

  /** The page's address says where the replay stands, so it can be shared and reloaded. */
  remember() {
    const path = `/t/${encodeURIComponent(this.tableId)}/replay?${this.q({ seat: this.seat, step: this.step })}`;
    if (`${location.pathname}${location.search}` !== path) history.replaceState(null, "", path);
  }

  async fetchStep(seat, step) {
    const key = `${seat ?? ALL}:${step}`;
    if (this.cache.has(key)) return this.cache.get(key);
    const s = new URLSearchParams({ step: String(step) });
    if (seat) s.set("seat", String(seat));
    if (this.invite) s.set("invite", this.invite);
    const answer = get(`/api/tables/${encodeURIComponent(this.tableId)}/replay?${s}`);
    this.cache.set(key, answer);
    try {
      return await answer;
    } catch (err) {
      this.cache.delete(key);
      throw err;
    }
  }

  async start() {
    try {
      this.table = await get(`/api/tables/${encodeURIComponent(this.tableId)}${this.invite ? `?invite=${encodeURIComponent(this.invite)}` : ""}`);
      this.store.setTable(this.table);
    } catch { /* the replay itself says what is wrong */ }
    try {
      await this.loadMode();
    } catch (err) {
      this.fail(err);
      return;
    }
    await this.go(this.step);
  }

  /** The number of steps and the phases of the current mode (from its last step). */
  async loadMode() {
    const first = await this.fetchStep(this.seat, 0);
    this.steps = first.steps;
    // Where each phase begins in this mode: a seat's steps and everything revealed number
    // the same moment differently, so a step shown before a switch says nothing here.
    this.starts = Array.isArray(first.phases) ? first.phases : null;
    const last = await this.fetchStep(this.seat, this.steps);
    const phases = (last.view.history || []).map((entry) => entry.phase);
    if (last.view.phase && !phases.some((p) => phaseOrder(p) === phaseOrder(last.view.phase))) phases.push(last.view.phase);
    this.phases = phases.sort((a, b) => phaseOrder(a) - phaseOrder(b));
    this.players = first.view.players || [];
    this.drawPickers();
  }

  fail(err) {
    this.error.textContent = err.code === "game_running" ? t("replay.running") : errorText(err);
    fill(this.caption);
  }

  drawPickers() {
    fill(this.seatPick,
      h("option", { value: ALL, text: t("replay.everything") }),
      this.players.map((p) => h("option", { value: String(p.seat), text: t("replay.seat_option", { number: p.seat, name: p.name }) })));
    this.seatPick.value = this.seat ? String(this.seat) : ALL;
    fill(this.phasePick,
      h("option", { value: "", text: t("replay.jump_to") }),
      h("option", { value: "start", text: t("replay.start_option") }),
      (this.phases || []).map((p) => h("option", { value: `${p.kind}:${p.number}`, text: phaseName(p) })),
      h("option", { value: "end", text: t("replay.end_option") }));
    this.phasePick.value = "";
    this.slider.max = String(this.steps ?? 0);
  }

  slide() {
    const value = Number(this.slider.value);
    this.step = value;
    this.drawControls();
    clearTimeout(this.slideTimer);
    this.slideTimer = setTimeout(() => this.go(value), 90);
  }

  /** Show step `step` of the current mode. Only the latest request is drawn. */
  async go(step) {
    if (this.steps === null) return;
    this.step = Math.max(0, Math.min(Number(step) || 0, this.steps));
    this.remember();
    this.drawControls();
    const ask = ++this.ask;
    try {
      const data = await this.fetchStep(this.seat, this.step);
      if (ask !== this.ask || this.stopped) return;
      this.error.textContent = "";
      this.show(data);
    } catch (err) {
      if (ask === this.ask) this.fail(err);
    }
  }

  /** The first step of the current mode whose phase is `target` or later: from the
   * server's list of where each phase begins, else by a binary search. */
  async firstStepOf(target) {
    const phases = this.starts;
    if (Array.isArray(phases) && phases.length) {
      const found = phases.find((p) => phaseOrder(p) >= target);
      return found ? found.step : this.steps;
    }
    let lo = 0;
    let hi = this.steps;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const data = await this.fetchStep(this.seat, mid);
      if (phaseOrder(data.view.phase) >= target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  async jumpTo(value) {
    if (!value) return;
    this.phasePick.value = "";
    if (value === "start") { await this.go(0); return; }
    if (value === "end") { await this.go(this.steps); return; }
    const [kind, number] = value.split(":");
    try {
      await this.go(await this.firstStepOf(phaseOrder({ kind, number: Number(number) })));
    } catch (err) {
      this.fail(err);
    }
  }

  /** Another seat (or everything revealed), at the start of the phase shown now. */
  async chooseSeat(value) {
    const before = { step: this.step, steps: this.steps, phase: this.data?.view?.phase };
    this.seat = value === ALL ? null : Number(value);
    this.ask += 1;
    try {
      await this.loadMode();
      let step = 0;
      if (before.step >= before.steps) step = this.steps;
      else if (before.step > 0 && before.phase) step = await this.firstStepOf(phaseOrder(before.phase));
      await this.go(step);
    } catch (err) {
      this.fail(err);
    }
  }

  key(ev) {
    if (this.steps === null || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const target = ev.target;
    if (target?.closest?.("input, select, textarea, [role=radiogroup], [role=tablist], dialog, [role=menu]")) return;
    if (ev.key === "ArrowRight") this.go(this.step + 1);
    else if (ev.key === "ArrowLeft") this.go(this.step - 1);
    else if (ev.key === "Home") this.go(0);
    else if (ev.key === "End") this.go(this.steps);
    else return;
    ev.preventDefault();
  }

  drawControls() {
    const steps = this.steps ?? 0;
    this.slider.max = String(steps);
    this.slider.value = String(this.step);
    this.slider.setAttribute("aria-valuetext", t("replay.step_of", { step: this.step, steps }));
    this.first.disabled = this.back.disabled = this.step <= 0;
    this.last.disabled = this.forward.disabled = this.step >= steps;
  }

  relang() {
    this.drawWords();
    this.side.render();
    this.phone.render();
    this.chat.redraw();
    this.log.redraw();
    for (const list of [this.log.list, this.chat.list]) list.setAttribute("aria-live", "off");
    if (this.steps !== null) this.drawPickers();
    this.drawControls();
    if (this.data) this.show(this.data);
  }

  /** One step on screen: the seat's view read-only, the step's event as the caption. */
  show(data) {
    this.data = data;
    const revealed = data.seat === null || data.seat === undefined;
    const view = { ...data.view, legal: [] };
    if (revealed) view.known = data.roles || {};
    const store = this.store;
    store.log = [];
    store.snapshot({ view, seq: data.step, events: revealed ? null : (data.log || null) });
    store.seat = revealed ? null : data.seat;
    setNames(view.players || []);
    const name = this.table?.name;
    this.title.textContent = name ? t("replay.title_of", { table: name }) : t("replay.title");
    document.title = `${this.title.textContent} — Trusis`;
    document.body.classList.toggle("theme-night", view.phase?.kind === "night" && view.status === "running");
    this.el.classList.toggle("is-revealed", revealed);
    this.status.render();
    this.ring.render();
    this.decorate(revealed, data);
    this.drawCentre(revealed, view);
    this.drawRevealed(revealed, data);
    this.log.render(true);
    this.chat.redraw();
    for (const list of [this.log.list, this.chat.list]) list.setAttribute("aria-live", "off");
    this.drawCaption(revealed, data);
    this.drawControls();
  }

  /** With everything revealed, each seat's role on it (as words, and its team's colour). */
  decorate(revealed, data) {
    for (const [seat, button] of this.ring.buttons) {
      const role = revealed ? data.roles?.[String(seat)] : null;
      const team = role ? String(roleTeam(role) || "").toLowerCase() : "";
      for (const tm of TEAMS) button.classList.toggle(`rv-${tm}`, team === tm);
      const known = button.querySelector(".seat-known");
      if (known && revealed) known.setAttribute("title", t("replay.role"));
      if (revealed && role) {
        const label = button.getAttribute("aria-label") || "";
        button.setAttribute("aria-label", label.replace(t("seat.known_is", { fact: roleName(role) }), t("replay.role_is", { role: roleName(role) })));
      }
    }
  }

  drawCentre(revealed, view) {
    if (!revealed && view.role) {
      fill(this.ring.centre, roleCard(view, this.store.seat, !this.media.matches));
      return;
    }
    const finished = view.status === "finished";
    fill(this.ring.centre, h("section", { class: "role-card replay-card" },
      h("p", { class: "role-kicker" }, t("replay.everything")),
      h("p", { class: "role-name" }, finished ? capital(msg(`winner.${view.winner}`)) : phaseName(view.phase)),
      h("p", { class: "role-goal" }, t("replay.everything_hint"))));
  }

  /** Everything revealed: each seat's role, team, pending choices and what it knows. */
  drawRevealed(revealed, data) {
    this.revealed.hidden = !revealed;
    if (!revealed) { fill(this.revealed); return; }
    const players = data.view.players || [];
    const night = data.view.phase?.kind === "night";
    fill(this.revealed,
      h("h2", { id: "revealed-title" }, t("replay.revealed_title", { phase: phaseName(data.view.phase) })),
      h("div", { class: "scroll-x", attrs: { tabindex: "0", role: "region", "aria-labelledby": "revealed-title" } },
        h("table", { class: "data revealed-table" },
          h("thead", {}, h("tr", {}, ["#", t("end.player"), t("rules.role"), t("rules.team"), t("replay.choices"), t("replay.knows")].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, players.map((p) => {
            const role = data.roles?.[String(p.seat)];
            const team = roleTeam(role);
            const knows = Object.entries(data.known?.[String(p.seat)] || {})
              .filter(([s]) => Number(s) !== p.seat)
              .map(([s, fact]) => `${seatName(Number(s))}: ${roleName(fact)}`);
            const choices = choiceTexts(data.choices?.[String(p.seat)] || {}, night);
            return h("tr", { class: [p.alive ? "" : "is-dead", team ? `rv-row-${team.toLowerCase()}` : ""] },
              h("td", { class: "rv-num" }, String(p.seat)),
              h("th", { scope: "row", class: "rv-name" }, p.name, p.alive ? "" : " ☠"),
              h("td", { class: "rv-role" }, role ? roleName(role) : "-"),
              h("td", { class: "rv-team" }, team ? `${teamMark(team)} ${msg(`play.team_short.${team}`)}` : "-"),
              h("td", { class: "rv-choices", dataset: { label: t("replay.choices") } }, choices.length ? choices.join(" · ") : "—"),
              h("td", { class: "rv-knows", dataset: { label: t("replay.knows") } }, knows.length ? knows.join(" · ") : "—"));
          })))));
  }

  drawCaption(revealed, data) {
    const events = data.events || [];
    const head = h("span", { class: "caption-step" }, data.step ? t("replay.step_n", { step: data.step, steps: data.steps }) : t("replay.at_start"));
    let lines;
    if (!data.step) lines = [revealed ? t("replay.start_revealed") : t("replay.start_seat", { seat: seatName(data.seat) })];
    else {
      lines = events.map((e) => {
        // With everything revealed nobody reads as "you": a private event names its seat.
        const owner = revealed && Array.isArray(e.to) && e.to.length === 1 ? e.to[0] : null;
        const text = eventText(e, owner);
        if (owner !== null && text !== eventText(e)) return text;
        if (revealed && Array.isArray(e.to) && e.to.length) return `${text} ${t("replay.seen_by", { seats: e.to.map(seatName).join(", ") })}`;
        if (!revealed && PRIVATE_CODES.has(e.code)) return `${text} ${t("log.private")}`;
        return text;
      });
      if (!lines.length) lines = [t("replay.no_event")];
    }
    fill(this.caption, head, " ", lines.join(" · "));
  }
}

function choiceTexts(c, night) {
  const out = [];
  if (c.vote) out.push(t(night ? "replay.choice_kill" : "replay.choice_vote", { target: seatName(c.vote) }));
  if (c.illusion) out.push(t("replay.choice_illusion", { shown: seatName(c.illusion.shown), target: seatName(c.illusion.target) }));
  for (const power of ["protect", "kamikaze", "revive", "extra_vote", "extra_vote_today"]) {
    if (c[power]) out.push(t(`replay.choice_${power}`, { target: seatName(c[power]) }));
  }
  if (c.swept) out.push(t("replay.choice_swept"));
  if (c.foreseen) out.push(t("replay.choice_foreseen"));
  return out;
}

/** The address of a game's replay, as `seat` (null: everything revealed). */
export function replayPath(tableId, seat = null, invite = null) {
  const s = new URLSearchParams();
  if (seat) s.set("seat", String(seat));
  if (invite) s.set("invite", invite);
  const q = s.toString();
  return `/t/${encodeURIComponent(tableId)}/replay${q ? `?${q}` : ""}`;
}
