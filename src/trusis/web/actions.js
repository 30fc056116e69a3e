// The action panel: exactly the view's legal actions with their legal targets. Select a seat,
// then press the action; change freely until Pass. Irreversible acts ask first, Pass shows
// what it locks, and a command in flight disables the buttons (no double taps).

import { fill, focusKey, focusLost, h, refocus } from "./dom.js";
import { capital, lang, msg, seatName, sentence, t } from "./i18n.js";
import { confirmDialog } from "./dialogs.js";
import { refusalText } from "./errors.js";

/** How long a refusal stays at most: it goes sooner when its phase ends. */
const REFUSAL_MS = 30000;

const POWERS = ["vote", "illusion", "protect", "extra_vote", "kamikaze", "revive", "sweep", "foresee"];
const CONFIRM = new Set(["sweep", "foresee", "kamikaze", "revive"]);

/** What the seat has chosen this phase, as sentences (from view.choices). */
export function choiceLines(view) {
  const c = view?.choices || {};
  const night = view?.phase?.kind === "night";
  const lines = [];
  if (c.vote) lines.push(msg(night ? "play.choice_kill" : "play.choice_vote", { target: c.vote }));
  if (c.illusion) lines.push(msg("play.choice_illusion", c.illusion));
  for (const power of ["protect", "kamikaze", "revive", "extra_vote"]) {
    if (c[power]) lines.push(msg(`play.choice_${power}`, { target: c[power] }));
  }
  if (c.extra_vote_today) lines.push(msg("play.choice_extra_vote_today", { target: c.extra_vote_today }));
  if (c.swept) lines.push(msg("play.choice_swept", {}));
  if (c.foreseen) lines.push(msg("play.choice_foreseen", {}));
  return lines.map(capital);
}

export class ActionPanel {
  constructor(store, { act, selected }) {
    this.store = store;
    this.act = act;
    this.selected = selected;
    this.busy = false;
    this.refusal = h("p", { class: "refusal", attrs: { role: "alert" } });
    this.body = h("div", { class: "actions-body" });
    this.el = h("section", { class: "actions", attrs: { "aria-label": t("act.title"), tabindex: "-1" } }, this.body, this.refusal);
  }

  /**
   * A refusal under the actions, said to the player ("you"), until the phase changes or
   * REFUSAL_MS pass: an old one must not stay for phases on end. `away`: how the seat was
   * played while its player was away (GameStore.awaySince).
   */
  showRefusal(answer, { away = null } = {}) {
    clearTimeout(this.refusalTimer);
    this.refusal.textContent = answer ? `⚠ ${refusalText(answer, { seat: this.store.seat, away })}` : "";
    this.refusalPhase = answer ? this.phaseKey() : null;
    if (answer) this.refusalTimer = setTimeout(() => this.showRefusal(null), REFUSAL_MS);
  }

  phaseKey() {
    const view = this.store.view;
    return JSON.stringify([view?.status ?? null, view?.phase ?? null]);
  }

  /** `from`: the control that asked (its focus comes back once the command is answered). */
  async run(action, from = focusKey(this.body)) {
    if (this.busy) return;
    this.busy = true;
    this.pending = from;
    this.showRefusal(null);
    this.render();
    const since = this.store.seq;
    try {
      const answer = await this.act(action);
      if (answer?.type === "refused") this.showRefusal(answer, { away: this.store.awaySince(since) });
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /**
   * A question about an action, bound to the phase it was asked in (D22): it closes with a
   * note when the phase changes, the game ends or `still(view)` stops holding.
   */
  ask(options, still) {
    const asked = JSON.stringify(this.store.view?.phase ?? null);
    const title = options.title;
    const stale = () => {
      const view = this.store.view;
      if (!view || view.status !== "running") return t("act.stale_over", { title });
      if (JSON.stringify(view.phase) !== asked) return t("act.stale_phase", { title });
      if (!still(view)) return t("act.stale_illegal", { title });
      return null;
    };
    return confirmDialog({ ...options, stale });
  }

  /** The phase a choice is made in (before any question), sent with it: the server refuses
   * it as `stale_phase` if that phase ended before it arrived (docs/protocol.md). */
  phase() {
    const phase = this.store.view?.phase;
    return phase ? { kind: phase.kind, number: phase.number } : undefined;
  }

  async power(legal, target) {
    const from = focusKey(this.body);
    const phase = this.phase();
    if (CONFIRM.has(legal.do)) {
      const still = (view) => (view.legal || []).some((a) => a.do === legal.do && (a.targets || []).includes(target));
      const ok = await this.ask({
        title: t(`act.${legal.do}`, { target: seatName(target) }),
        body: sentence(`play.confirm.${legal.do}`, { target }),
        confirm: t(`act.confirm_${legal.do}`), danger: true,
      }, still);
      if (!ok) return;
    }
    await this.run({ do: legal.do, target, phase }, from);
  }

  async illusion(legal) {
    const from = focusKey(this.body);
    const phase = this.phase();
    const sel = this.selected();
    const make = (id, label, seats, value) => {
      const select = h("select", { id }, seats.map((s) => h("option", { value: String(s), text: seatName(s) })));
      if (value && seats.includes(value)) select.value = String(value);
      return [h("label", { class: "field", attrs: { for: id } }, label), select];
    };
    const [l1, shown] = make("ill-shown", t("act.illusion_shown"), legal.shown || [], sel);
    const [l2, real] = make("ill-real", t("act.illusion_real"), legal.targets || [], this.store.view?.choices?.illusion?.target);
    // The dialog opens on its first list: both are to be chosen before Confirm.
    const ok = await this.ask({
      title: t("act.illusion_title"), body: t("act.illusion_help"), confirm: t("act.illusion_do"),
      extra: h("div", { class: "dialog-fields" }, l1, shown, l2, real), first: shown,
    }, (view) => (view.legal || []).some((a) => a.do === "illusion"));
    if (ok) await this.run({ do: "illusion", shown: Number(shown.value), target: Number(real.value), phase }, from);
  }

  async pass() {
    const from = focusKey(this.body);
    const phase = this.phase();
    const lines = choiceLines(this.store.view);
    // Nothing this seat could choose now (a Human at night): passing locks nothing, so it
    // is not asked about ("You have chosen nothing — passing locks it" said otherwise).
    const free = ["pass", "say", "leave"];
    if (!lines.length && !(this.store.view?.legal || []).some((a) => !free.includes(a.do))) {
      await this.run({ do: "pass", phase }, from);
      return;
    }
    const summary = lines.length ? lines.join(" · ") : msg("play.no_choice", {});
    const ok = await this.ask({
      title: t("act.pass_title"), body: sentence("play.confirm.pass", { summary }),
      confirm: t("act.pass_do"), cancel: t("act.pass_keep"),
    }, (view) => (view.legal || []).some((a) => a.do === "pass"));
    if (ok) await this.run({ do: "pass", phase }, from);
  }

  async leave() {
    const ok = await this.ask({
      title: t("act.leave_title"), body: t("act.leave_body"), confirm: t("act.leave_do"), danger: true,
    }, (view) => (view.legal || []).some((a) => a.do === "leave"));
    if (ok) await this.run({ do: "leave" });
  }

  /** The first action awake that aims at the chosen seat ("Vote for Wim (seat 4)"): where
   * Tab goes from the seat just chosen (seats.js), else null. */
  readyButton() {
    return [...this.body.querySelectorAll("button.btn-power")].find((b) => !b.disabled) || null;
  }

  /** Where Alt+Shift+P goes: the first action awake, else the bar itself (null: no bar). */
  focusTarget() {
    if (this.el.hidden) return null;
    return [...this.body.querySelectorAll("button")].find((b) => !b.disabled) || this.el;
  }

  /** The line under the phase: what this player is asked to do now. */
  prompt() {
    const view = this.store.view;
    const me = this.store.me();
    if (!view || view.status !== "running") return "";
    if (!me) return t("prompt.spectator");
    if (me.left) return t("prompt.left");
    if (!me.alive) return t("prompt.dead");
    if (me.passed) return t("prompt.passed");
    const powers = (view.legal || []).filter((a) => POWERS.includes(a.do));
    if (view.phase.kind === "day") return t("prompt.day");
    if (!powers.length) return msg("play.night_waiting", {});
    return t("prompt.night_power");
  }

  /** Drawn again only when what it offers changes, so a focused button stays focused. */
  render() {
    const view = this.store.view;
    if (this.refusalPhase && this.refusalPhase !== this.phaseKey()) this.showRefusal(null);
    if (!view || view.status !== "running" || !this.store.seat) { fill(this.body); this.el.hidden = true; this.key = null; return; }
    this.el.hidden = false;
    const sel = this.selected();
    const me = this.store.me();
    const names = (view.players || []).map((p) => p.name);
    const key = JSON.stringify([lang(), view.phase, view.legal, view.choices, sel, this.busy, me?.alive, me?.passed, names, this.store.online]);
    if (key === this.key) return;
    this.key = key;
    // A busy button is disabled and a redraw replaces them all: focus stays on the same
    // control, else the first one awake, else the bar itself — never <body> (WCAG 2.4.3).
    const parked = document.activeElement === this.el;
    const had = focusKey(this.body) || (focusLost() || parked ? this.pending : null);
    this.draw(view, sel);
    if (had && (focusLost() || parked)) {
      const first = [...this.body.querySelectorAll("button")].find((b) => !b.disabled);
      refocus(this.body, [had, first?.dataset.focus], this.el);
    }
    if (!this.busy) this.pending = null;
  }

  /** What a selected seat will do: nothing until an action is pressed (say which). */
  selectedHint(sel, ready, chosen) {
    const seat = seatName(sel);
    if (!ready.length && chosen) return t("act.selected_chosen", { seat });
    if (!ready.length) return t("act.selected_nothing", { seat });
    const or = ` ${t("act.or")} `;
    return t("act.selected_next", { seat, action: ready.map((label) => t("act.quoted", { text: label })).join(or) });
  }

  draw(view, sel) {
    const legal = view.legal || [];
    const powers = legal.filter((a) => POWERS.includes(a.do));
    const night = view.phase.kind === "night";
    const lines = choiceLines(view);
    const buttons = [];
    const ready = [];  // the labels of the actions the selected seat can be aimed with
    let chosenHere = false;  // an action already aimed at the selected seat
    for (const a of powers) {
      if (a.do === "illusion") {
        buttons.push(h("button", { class: "btn btn-power", type: "button", disabled: this.busy,
          dataset: { focus: "illusion" }, on: { click: () => this.illusion(a) } }, t("act.illusion_open")));
        continue;
      }
      // Pressing again what is already chosen changes nothing: the button rests, and the
      // hint says so (an illusion is another choice than a plain vote for its target).
      const already = sel !== null && view.choices?.[a.do] === sel;
      const ok = sel !== null && (a.targets || []).includes(sel) && !already;
      const key = a.do === "vote" && night ? "act.vote_night" : `act.${a.do}`;
      const label = sel !== null ? t(key, { target: seatName(sel) }) : t(`${key}_none`);
      if (ok) ready.push(label);
      if (already) chosenHere = true;
      buttons.push(h("button", {
        class: ["btn", "btn-power", CONFIRM.has(a.do) ? "is-final" : ""], type: "button",
        disabled: this.busy || !ok, dataset: { do: a.do, focus: `power-${a.do}` },
        attrs: { title: sel !== null && !ok && !already ? t("act.not_target", { target: seatName(sel) }) : null },
        on: { click: () => this.power(a, sel) },
      }, label));
      const chosen = a.do === "vote" ? view.choices?.vote || view.choices?.illusion : view.choices?.[a.do];
      if (a.withdraw && chosen) {
        buttons.push(h("button", { class: "btn btn-small btn-ghost", type: "button", disabled: this.busy,
          dataset: { focus: `withdraw-${a.do}` }, on: { click: () => this.run({ do: a.do, target: null, phase: this.phase() }) } }, t(`act.withdraw_${a.do}`)));
      }
    }
    // A command made while the connection is lost waits for it (net.js sends it again).
    const waiting = this.busy && !this.store.online;
    const hint = waiting ? t("act.waiting_connection")
      : powers.length && sel === null ? t("act.select_first")
        : sel !== null && powers.length ? this.selectedHint(sel, ready, chosenHere) : "";
    const canPass = legal.some((a) => a.do === "pass");
    fill(this.body,
      h("div", { class: "actions-info" },
        !powers.length ? h("p", { class: "actions-prompt" }, this.prompt()) : null,
        // Nothing chosen yet but a seat selected: the hint below says what pressing will do.
        lines.length || (powers.length && !ready.length)
          ? h("p", { class: "actions-choices" }, lines.length ? lines.join(" · ") : msg("play.no_choice", {})) : null,
        hint ? h("p", { class: ["actions-hint", waiting ? "is-waiting" : ""] }, hint) : null),
      h("div", { class: "actions-buttons" }, buttons,
        canPass ? h("button", { class: "btn btn-pass", type: "button", disabled: this.busy, dataset: { focus: "pass" }, on: { click: () => this.pass() } },
          `✓ ${t("act.pass")}`) : null));
  }
}
