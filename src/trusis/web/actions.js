// The action panel: exactly the view's legal actions with their legal targets. Select a seat,
// then press the action; change freely until Pass. Irreversible acts ask first, Pass shows
// what it locks, and a command in flight disables the buttons (no double taps).

import { fill, h } from "./dom.js";
import { capital, lang, msg, seatName, t } from "./i18n.js";
import { confirmDialog } from "./dialogs.js";
import { errorText } from "./errors.js";

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
    this.el = h("section", { class: "actions", attrs: { "aria-label": t("act.title") } }, this.body, this.refusal);
  }

  showRefusal(answer) {
    this.refusal.textContent = answer ? `⚠ ${errorText(answer)}` : "";
  }

  async run(action) {
    if (this.busy) return;
    this.busy = true;
    this.showRefusal(null);
    this.render();
    try {
      const answer = await this.act(action);
      if (answer?.type === "refused") this.showRefusal(answer);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** The phase a choice is made in, sent with it: the server refuses it as
   * `stale_phase` if that phase ended before it arrived (docs/protocol.md). */
  phase() { return this.store.view?.phase; }

  async power(legal, target) {
    const phase = this.phase();
    if (CONFIRM.has(legal.do)) {
      const ok = await confirmDialog({
        title: t(`act.${legal.do}`, { target: seatName(target) }),
        body: capital(msg(`play.confirm.${legal.do}`, { target })),
        confirm: t(`act.confirm_${legal.do}`), danger: true,
      });
      if (!ok) return;
    }
    await this.run({ do: legal.do, target, phase });
  }

  async illusion(legal) {
    const phase = this.phase();
    const sel = this.selected();
    const make = (id, label, seats, value) => {
      const select = h("select", { id }, seats.map((s) => h("option", { value: String(s), text: seatName(s) })));
      if (value && seats.includes(value)) select.value = String(value);
      return [h("label", { class: "field", attrs: { for: id } }, label), select];
    };
    const [l1, shown] = make("ill-shown", t("act.illusion_shown"), legal.shown || [], sel);
    const [l2, real] = make("ill-real", t("act.illusion_real"), legal.targets || [], this.store.view?.choices?.illusion?.target);
    const ok = await confirmDialog({
      title: t("act.illusion_title"), body: t("act.illusion_help"), confirm: t("act.illusion_do"),
      extra: h("div", { class: "dialog-fields" }, l1, shown, l2, real),
    });
    if (ok) await this.run({ do: "illusion", shown: Number(shown.value), target: Number(real.value), phase });
  }

  async pass() {
    const phase = this.phase();
    const lines = choiceLines(this.store.view);
    const summary = lines.length ? lines.join(" · ") : msg("play.no_choice", {});
    const ok = await confirmDialog({
      title: t("act.pass_title"), body: capital(msg("play.confirm.pass", { summary })),
      confirm: t("act.pass_do"), cancel: t("act.pass_keep"),
    });
    if (ok) await this.run({ do: "pass", phase });
  }

  async leave() {
    const ok = await confirmDialog({
      title: t("act.leave_title"), body: t("act.leave_body"), confirm: t("act.leave_do"), danger: true,
    });
    if (ok) await this.run({ do: "leave" });
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
    if (!view || view.status !== "running" || !this.store.seat) { fill(this.body); this.el.hidden = true; this.key = null; return; }
    this.el.hidden = false;
    const sel = this.selected();
    const me = this.store.me();
    const names = (view.players || []).map((p) => p.name);
    const key = JSON.stringify([lang(), view.phase, view.legal, view.choices, sel, this.busy, me?.alive, me?.passed, names]);
    if (key === this.key) return;
    this.key = key;
    const focused = document.activeElement && this.body.contains(document.activeElement)
      ? [...this.body.querySelectorAll("button")].indexOf(document.activeElement) : -1;
    this.draw(view, sel);
    if (focused >= 0) this.body.querySelectorAll("button")[focused]?.focus();
  }

  draw(view, sel) {
    const legal = view.legal || [];
    const powers = legal.filter((a) => POWERS.includes(a.do));
    const night = view.phase.kind === "night";
    const lines = choiceLines(view);
    const buttons = [];
    for (const a of powers) {
      if (a.do === "illusion") {
        buttons.push(h("button", { class: "btn btn-power", type: "button", disabled: this.busy,
          on: { click: () => this.illusion(a) } }, t("act.illusion_open")));
        continue;
      }
      const ok = sel !== null && (a.targets || []).includes(sel);
      const key = a.do === "vote" && night ? "act.vote_night" : `act.${a.do}`;
      const label = sel !== null ? t(key, { target: seatName(sel) }) : t(`${key}_none`);
      buttons.push(h("button", {
        class: ["btn", "btn-power", CONFIRM.has(a.do) ? "is-final" : ""], type: "button",
        disabled: this.busy || !ok, dataset: { do: a.do },
        attrs: { title: sel !== null && !ok ? t("act.not_target", { target: seatName(sel) }) : null },
        on: { click: () => this.power(a, sel) },
      }, label));
      const chosen = a.do === "vote" ? view.choices?.vote || view.choices?.illusion : view.choices?.[a.do];
      if (a.withdraw && chosen) {
        buttons.push(h("button", { class: "btn btn-small btn-ghost", type: "button", disabled: this.busy,
          on: { click: () => this.run({ do: a.do, target: null, phase: this.phase() }) } }, t(`act.withdraw_${a.do}`)));
      }
    }
    const hint = powers.length && sel === null ? t("act.select_first")
      : sel !== null && powers.length ? t("act.selected", { seat: seatName(sel) }) : "";
    const canPass = legal.some((a) => a.do === "pass");
    fill(this.body,
      h("div", { class: "actions-info" },
        !powers.length ? h("p", { class: "actions-prompt" }, this.prompt()) : null,
        lines.length || powers.length
          ? h("p", { class: "actions-choices" }, lines.length ? lines.join(" · ") : msg("play.no_choice", {})) : null,
        hint ? h("p", { class: "actions-hint" }, hint) : null),
      h("div", { class: "actions-buttons" }, buttons,
        canPass ? h("button", { class: "btn btn-pass", type: "button", disabled: this.busy, on: { click: () => this.pass() } },
          `✓ ${t("act.pass")}`) : null));
  }
}
