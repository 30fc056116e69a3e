// The balance lab's estimate beside a set: each team's chances at this table size, from
// heuristic bots' games the server plays off the request path (GET /api/balance, polled
// while "pending"). Shown as words and numbers, with bars as a second cue only.

import { fill, h } from "./dom.js";
import { get } from "./api.js";
import { capital, lang, msg, onLangChange, t } from "./i18n.js";

const OUTCOMES = ["HUMAN", "TRUSIS", "CASTAWAY", "DRAW"];

/** A chance in percent, to a tenth, as the page's language writes it: "58.5" in English,
 * "58,5" in French and Italian (not the browser's locale, which may be another language). */
function percentText(pct) {
  return new Intl.NumberFormat(lang(), { maximumFractionDigits: 1 }).format(pct);
}

export class Balance {
  constructor() {
    this.el = h("section", { class: "balance", attrs: { "aria-live": "polite", "aria-label": t("bal.title") } });
    this.key = null;
    this.timer = null;
    this.data = null;
    this.offLang = null;  // while shown, a change of language redraws the last estimate
  }

  /** Show the estimate for `players` seats and `set` ({standard:true} or {custom:{…}}). */
  show(players, set) {
    const setParam = JSON.stringify(set?.custom ? { custom: set.custom } : { standard: true });
    const key = `${players}|${setParam}`;
    if (!this.offLang) this.offLang = onLangChange(() => { if (this.data) this.draw(this.data); });
    if (key === this.key) return;
    this.key = key;
    clearTimeout(this.timer);
    this.draw({ status: "pending" });
    this.poll(key, players, setParam, 0);
  }

  async poll(key, players, setParam, attempt) {
    let data;
    try {
      data = await get(`/api/balance?players=${players}&set=${encodeURIComponent(setParam)}`);
    } catch (err) {
      if (key !== this.key) return;
      if (err?.code === "balance_busy" && attempt < 120) {
        // The server computes a few custom estimates at a time (docs/deploy.md): this one
        // waits its turn, still shown as under way.
        this.draw({ status: "pending" });
        this.timer = setTimeout(() => this.poll(key, players, setParam, attempt + 1), 5000);
        return;
      }
      this.draw({ status: "failed", error: err });
      return;
    }
    if (key !== this.key) return;
    this.draw(data);
    if (data?.status === "pending" && attempt < 120) {
      this.timer = setTimeout(() => this.poll(key, players, setParam, attempt + 1), Math.min(4000, 800 + attempt * 300));
    }
  }

  stop() {
    clearTimeout(this.timer);
    this.key = null;
    this.data = null;
    this.offLang?.();
    this.offLang = null;
  }

  draw(data) {
    this.data = data;
    this.el.setAttribute("aria-label", t("bal.title"));
    const title = h("h3", { class: "balance-title" }, t("bal.title"));
    if (!data || data.status === "pending") {
      fill(this.el, title, h("p", { class: "hint" }, "⟳ ", t("bal.pending")));
      return;
    }
    if (data.status === "failed" || data.status === "error") {
      fill(this.el, title, h("p", { class: "hint" }, t("bal.failed")));
      return;
    }
    const rates = data.win_rate || data.chances || data.rates || {};
    const games = data.games ?? data.samples;
    const rows = OUTCOMES.filter((k) => rates[k] !== undefined && (k !== "CASTAWAY" || rates[k] > 0 || data.castaways))
      .map((k) => {
        const pct = Math.round(Number(rates[k]) * 1000) / 10;
        const bar = h("span", { class: ["bal-bar", `bal-${k.toLowerCase()}`] });
        bar.style.width = `${Math.max(0, Math.min(100, pct))}%`;
        const label = capital(k === "DRAW" ? msg("winner.DRAW") : msg(`play.team_short.${k}`));
        return h("div", { class: "bal-row" },
          h("span", { class: "bal-label" }, label),
          h("span", { class: "bal-track", attrs: { "aria-hidden": "true" } }, bar),
          h("span", { class: "bal-pct" }, `${percentText(pct)} %`));
      });
    fill(this.el, title, rows.length ? rows : h("p", { class: "hint" }, t("bal.failed")),
      games ? h("p", { class: "hint" }, t("bal.games", { count: games })) : null);
  }
}
