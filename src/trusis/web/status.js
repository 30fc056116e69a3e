// The status bar: the phase (role="status"), an mm:ss countdown from the server's deadline
// corrected for the local clock (emphasised in the last 15 s or third, announced at thresholds, not
// every second), the living and passed counts, the prompt, and the "You are …" chip.

import { fill, h, mmss } from "./dom.js";
import { leftText, msg, phaseName, t, untilText } from "./i18n.js";
import { announce } from "./dialogs.js";
import { youAre } from "./rules.js";

const THRESHOLDS = [60, 30, 10];

export class StatusBar {
  constructor(store, { onRole, prompt, retry = () => {} }) {
    this.store = store;
    this.prompt = prompt;
    // Not a live region: the phase is announced once, with the dawn/dusk banner.
    this.phase = h("span", { class: "phase" });
    this.countdown = h("span", { class: "countdown", attrs: { "aria-label": t("status.time_left") } });
    this.counts = h("span", { class: "counts" });
    this.promptEl = h("p", { class: "prompt" });
    this.conn = h("span", { class: "conn", attrs: { role: "status" } });
    this.chip = h("button", {
      class: "role-chip", type: "button", hidden: true, attrs: { "aria-haspopup": "dialog" },
      on: { click: () => onRole() },
    });
    // A lost connection, in full: that the page is not live, what happens to choices made
    // meanwhile, and a button to try at once (the short words stay in `.conn`, announced).
    this.retryBtn = h("button", { class: "btn btn-small", type: "button", text: t("conn.try_now"), on: { click: () => retry() } });
    this.lostHelp = h("p", { class: "conn-help" });
    this.lost = h("div", { class: "conn-lost", hidden: true }, this.lostHelp, this.retryBtn);
    this.el = h("section", { class: "statusbar", attrs: { "aria-label": t("status.label") } },
      // The phase and its timer hold together: on a phone the timer fell under the phase.
      h("div", { class: "status-main" }, h("span", { class: "status-clock" }, this.phase, this.countdown), this.counts),
      this.promptEl, h("div", { class: "status-side" }, this.conn, this.chip), this.lost);
    this.said = new Set();
    this.phaseKey = "";
    this.timer = setInterval(() => this.tick(), 250);
  }

  stop() { clearInterval(this.timer); }

  setConnection(status, detail = {}) {
    this.connState = [status, !!detail?.offline];
    this.drawConnection();
  }

  drawConnection() {
    const [status, offline] = this.connState || ["open", false];
    const reconnecting = { connecting: t("conn.connecting"), reconnecting: t(offline ? "conn.offline" : "conn.reconnecting") };
    const text = status === "open" ? "" : reconnecting[status] ?? t(`conn.${status}`);
    if (this.conn.textContent !== text) this.conn.textContent = text;
    this.conn.classList.toggle("is-bad", !!text);
    // Only once a game shows: before it, there is no board to mistake for a live one.
    const lost = (status === "reconnecting" || status === "limited") && !!this.store.view;
    this.lost.hidden = !lost;
    this.el.classList.toggle("is-reconnecting", lost);
    if (lost) {
      this.lostHelp.textContent = t("conn.lost_help");
      this.retryBtn.textContent = t("conn.try_now");
    }
  }

  tick() {
    const view = this.store.view;
    const left = this.store.remaining();
    if (!view || view.status !== "running" || left === null) {
      this.countdown.textContent = "";
      this.countdown.hidden = true;
      return;
    }
    this.countdown.hidden = false;
    // A slow game's phase lasts hours (D62): "19 h 59 min", with its end as the title —
    // "19:59:58" read as a time of day.
    const slow = left >= 3600;
    const text = slow ? leftText(left) : mmss(left);
    if (this.countdown.textContent !== text) this.countdown.textContent = text;
    const until = slow ? untilText(Math.round(Date.now() / 1000 + left)) : "";
    if (this.countdown.title !== until) this.countdown.title = until;
    this.countdown.classList.toggle("is-urgent", left <= this.urgentFrom(view));
    this.countdown.setAttribute("aria-label", t("status.time_left_is", { time: text }));
    // A threshold is spoken only when the phase began well before it ("30 seconds left"
    // the moment a 30-second phase starts says nothing).
    if (this.startedKey !== this.phaseKey) { this.startedKey = this.phaseKey; this.startLeft = left; }
    for (const s of THRESHOLDS) {
      const key = `${this.phaseKey}:${s}`;
      if (left <= s && left > s - 2 && this.startLeft > s + 5 && !this.said.has(key)) {
        this.said.add(key);
        announce(t("status.seconds_left", { count: s }));
      }
    }
  }

  /** Seconds left from which the countdown is emphasised: the last 15, or the last third of
   * a shorter phase (a 15-second night was red from its first second). */
  urgentFrom(view) {
    const opts = this.store.table?.options || {};
    const length = view.phase?.kind === "night" ? opts.night_seconds : opts.day_seconds;
    return Number.isFinite(length) ? Math.min(15, length / 3) : 15;
  }

  /** The phase's text, written only when it changes (each write is a change for readers). */
  setPhase(text) {
    if (this.phase.textContent !== text) this.phase.textContent = text;
  }

  render() {
    const view = this.store.view;
    const table = this.store.table;
    this.drawConnection();
    if (!view) {
      this.setPhase(table?.status === "open" ? t("status.waiting") : "");
      fill(this.counts);
      this.promptEl.textContent = "";
      this.chip.hidden = true;
      this.tick();
      return;
    }
    const night = view.phase?.kind === "night";
    this.phaseKey = `${view.phase?.kind}:${view.phase?.number}`;
    if (view.status === "finished") this.setPhase(`★ ${t("status.finished")}`);
    else this.setPhase(`${night ? "☾" : "☀"} ${phaseName(view.phase)}`);
    const alive = (view.alive || []).length;
    const players = (view.players || []).length;
    const bits = [msg("play.alive_count", { alive, players })];
    if (view.status === "running") bits.push(msg("play.passed_count", { passed: (view.passed || []).length, alive }));
    if (view.quiet_phases && view.status === "running") bits.push(msg("play.quiet", { quiet: view.quiet_phases }));
    fill(this.counts, bits.join(" · "));
    this.promptEl.textContent = this.prompt();
    if (view.role) {
      this.chip.hidden = false;
      fill(this.chip, youAre(view.role));
      this.chip.className = `role-chip team-${String(view.team || "").toLowerCase()}`;
    } else {
      this.chip.hidden = true;
    }
    this.tick();
  }
}
