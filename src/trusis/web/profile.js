// A player's profile (/p/{id}): their rating, wins by team and by role, the statistics
// averaged over their games by statistic id (R63, as `trusis stats` aggregates them), and the
// finished games, each with its end screen and its replay as the seat they held.
// The leaderboard (/leaderboard): registered players by rating.

import { fill, h, localeFor } from "./dom.js";
import { get } from "./api.js";
import { lang, msg, onLangChange, roleName, roleTeam, t } from "./i18n.js";
import { teamMark } from "./rules.js";
import { errorText } from "./errors.js";
import { isMe, pageLink } from "./account.js";

const dash = (v) => (v === null || v === undefined || v === "" ? "-" : String(v));

function number(value, digits = 2) {
  if (typeof value !== "number") return dash(value);
  return new Intl.NumberFormat(lang(), { maximumFractionDigits: digits }).format(value);
}

function percent(rate) {
  if (typeof rate !== "number") return "-";
  return new Intl.NumberFormat(lang(), { style: "percent", maximumFractionDigits: 0 }).format(rate);
}

function when(epoch) {
  if (!epoch) return "-";
  return new Date(epoch * 1000).toLocaleString(localeFor(lang()), { dateStyle: "medium", timeStyle: "short" });
}

function region(label, table) {
  return h("div", { class: "scroll-x", attrs: { tabindex: "0", role: "region", "aria-label": label } }, table);
}

/** A page screen the app mounts and unmounts: loads once, redraws on a change of language. */
class Page {
  constructor(app) {
    this.app = app;
    this.el = h("div", { class: "page" });
    this.data = null;
    this.error = null;
  }

  mount(main) {
    fill(main, this.el);
    this.offLang = onLangChange(() => this.load());
    fill(this.el, h("p", { class: "hint" }, t("page.loading")));
    this.load();
  }

  unmount() { this.offLang?.(); this.stopped = true; }

  async load() {
    try {
      this.data = await get(this.url());
      this.error = null;
    } catch (err) {
      this.data = null;
      this.error = err;
    }
    if (this.stopped) return;
    this.render();
    document.title = `${this.title()} — Trusis`;
  }
}

export class ProfileScreen extends Page {
  constructor(app, playerId) {
    super(app);
    this.playerId = playerId;
    this.el.classList.add("profile");
  }

  url() { return `/api/players/${encodeURIComponent(this.playerId)}?lang=${lang()}`; }

  title() { return this.data ? t("profile.title", { name: this.data.player.name }) : t("profile.title_none"); }

  render() {
    const d = this.data;
    if (!d) {
      fill(this.el, h("div", { class: "card notice-bad", attrs: { role: "alert" } },
        h("p", {}, this.error?.status === 404 ? t("profile.missing") : errorText(this.error)),
        pageLink("/", { class: "btn" }, t("end.leave"))));
      return;
    }
    const wins = d.wins || {};
    const mine = isMe(this.app, d.player.id);
    fill(this.el,
      h("header", { class: "page-head" },
        h("p", { class: "end-kicker" }, mine ? t("profile.kicker_mine") : t("profile.kicker")),
        h("h1", { id: "profile-title" }, d.player.name),
        h("p", { class: "profile-kind" }, t(`profile.kind.${d.player.kind}`)),
        h("div", { class: "profile-facts" },
          this.fact(t("profile.rating"), typeof d.rating === "number" ? number(d.rating) : t("profile.unrated"),
            typeof d.rating === "number" ? t("profile.rated_games", { count: d.rated_games || 0 }) : t("profile.unrated_hint")),
          this.fact(t("profile.games"), number(wins.games ?? 0, 0), null),
          this.fact(t("profile.won"), number(wins.won ?? 0, 0), wins.games ? this.wonSub(wins) : null)),
        h("p", { class: "row wrap page-links" }, pageLink("/leaderboard", { class: "btn btn-small" }, "☆ ", t("acct.leaderboard")))),
      h("div", { class: "profile-grid" },
        this.winsTable("profile.by_team", t("rules.team"), wins.by_team || [], "team"),
        this.winsTable("profile.by_role", t("rules.role"), wins.by_role || [], "role")),
      this.games(d.games || [], d.private_games_hidden || 0),
      this.averages(d.averages || []));
  }

  /** The win rate, and the draws (D49): a draw is no loss, and no win either (R35). */
  wonSub(wins) {
    const rate = percent((wins.won || 0) / wins.games);
    return wins.drawn ? `${rate} · ${t("profile.drawn", { count: wins.drawn })}` : rate;
  }

  fact(label, value, sub) {
    return h("div", { class: "fact-box" },
      h("span", { class: "fact-label" }, label),
      h("span", { class: ["fact-value", /\d/.test(value) ? "" : "is-text"] }, value),
      sub ? h("span", { class: "fact-sub" }, sub) : null);
  }

  winsTable(key, head, rows, field) {
    return h("section", { class: "card", attrs: { "aria-labelledby": `${key}-h`.replace(".", "-") } },
      h("h2", { id: `${key}-h`.replace(".", "-") }, t(key)),
      rows.length ? region(t(key), h("table", { class: "data wins-table" },
        h("thead", {}, h("tr", {}, [head, t("profile.games"), t("profile.wins"), t("profile.win_rate")].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows.map((r) => h("tr", {},
          h("th", { scope: "row" }, dash(r[field] ?? r.label ?? r.name)),
          h("td", { class: "num" }, number(r.games, 0)),
          h("td", { class: "num" }, number(r.wins, 0)),
          h("td", { class: "num" }, h("span", { class: "rate" }, percent(r.win_rate)))))))) : h("p", { class: "hint" }, t("profile.no_games")));
  }

  /** `hidden`: private tables' games you did not sit at, counted but not listed (D68). */
  games(games, hidden) {
    return h("section", { class: "card", attrs: { "aria-labelledby": "profile-games-h" } },
      h("h2", { id: "profile-games-h" }, t("profile.finished", { count: games.length })),
      hidden ? h("p", { class: "hint" }, t("profile.private_hidden", { count: hidden })) : null,
      games.length ? h("ul", { class: "game-list" }, games.map((g) => {
        const team = g.team || roleTeam(g.role);
        const end = `/t/${encodeURIComponent(g.table_id)}`;
        const replay = `${end}/replay?seat=${g.seat}`;
        const result = g.result || (g.won ? "won" : "lost");  // a draw is no loss (D49)
        const said = { won: `★ ${t("profile.result_won")}`, lost: t("profile.result_lost"), draw: t("profile.result_draw") }[result];
        return h("li", { class: ["game-row", `is-${result}`] },
          h("div", { class: "game-main" },
            h("span", { class: "game-name" }, g.table || g.table_id),
            h("span", { class: "game-meta" },
              when(g.finished_at), " · ", t("profile.seat", { seat: g.seat }), " · ",
              roleName(g.role), " · ", teamMark(team), " ", msg(`play.team_short.${team}`))),
          h("span", { class: ["game-result", `is-${result}`] }, said),
          h("span", { class: "game-links" },
            pageLink(end, { class: "btn btn-small", attrs: { "aria-label": t("profile.end_of", { table: g.table || g.table_id }) } }, t("profile.end_screen")),
            pageLink(replay, { class: "btn btn-small btn-primary", attrs: { "aria-label": t("profile.replay_of", { table: g.table || g.table_id }) } }, "▶ ", t("profile.replay"))));
      })) : h("p", { class: "hint" }, t("profile.no_games")));
  }

  averages(rows) {
    return h("section", { class: "card", attrs: { "aria-labelledby": "profile-avg-h" } },
      h("h2", { id: "profile-avg-h" }, t("profile.averages")),
      h("p", { class: "hint" }, t("profile.averages_hint")),
      rows.length ? region(t("profile.averages"), h("table", { class: "data stats-table averages" },
        h("tbody", {}, rows.map((r) => h("tr", { dataset: { stat: String(r.id) } },
          h("th", { scope: "row" }, r.label || r.name),
          h("td", { class: "num" }, number(r.value))))))) : h("p", { class: "hint" }, t("profile.no_games")));
  }
}

export class LeaderboardScreen extends Page {
  constructor(app) {
    super(app);
    this.el.classList.add("leaderboard");
  }

  url() { return "/api/leaderboard"; }

  title() { return t("board.title"); }

  render() {
    const players = this.data?.players || [];
    fill(this.el,
      h("header", { class: "page-head" }, h("h1", {}, "☆ ", t("board.title")), h("p", { class: "hint" }, t("board.hint"))),
      this.error ? h("p", { class: "form-error", attrs: { role: "alert" } }, errorText(this.error)) : null,
      h("section", { class: "card", attrs: { "aria-label": t("board.title") } },
        players.length ? region(t("board.title"), h("table", { class: "data board-table" },
          h("thead", {}, h("tr", {}, [t("board.rank"), t("end.player"), t("profile.rating"), t("board.games")].map((c, i) =>
            h("th", { scope: "col", class: i === 0 || i > 1 ? "num" : "" }, c)))),
          h("tbody", {}, players.map((p, i) => h("tr", { class: isMe(this.app, p.id) ? "is-me" : "" },
            h("td", { class: "num rank" }, String(i + 1)),
            h("th", { scope: "row" }, pageLink(`/p/${encodeURIComponent(p.id)}`, {}, p.name),
              isMe(this.app, p.id) ? h("span", { class: "badge badge-you" }, t("seat.you")) : null),
            h("td", { class: "num" }, number(p.rating)),
            h("td", { class: "num" }, number(p.games, 0)))))))
          : h("p", { class: "hint" }, t("board.empty"))));
  }
}
