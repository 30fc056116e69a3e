// "Your games" (/games, issue 37, D64): every game where you sit or that you host, with its
// phase, the time left, whether you still have something to do this phase and what reached
// your seat since your last visit (GET /api/me/tables, `yours`). And the count of games that
// wait for you, in the page's title on every screen ("(2) Trusis") and in the lobby.

import { fill, h } from "./dom.js";
import { get, listOf } from "./api.js";
import { leftText, onLangChange, phaseName, t, untilText } from "./i18n.js";
import { errorText } from "./errors.js";
import { pageLink } from "./account.js";

const REFRESH_MS = 30000;
const TITLE_COUNT = /^\(\d+\) /;

/**
 * The count of games waiting for the player, kept in the page's title: asked every 30 s while
 * someone is signed in, and again whenever a screen changes the title or the lobby asks.
 */
export class Waiting {
  constructor(app) {
    this.app = app;
    this.count = 0;
    this.timer = null;
  }

  start() {
    clearTimeout(this.timer);
    // Any screen may write its title (a profile once loaded): the count is put back in front.
    const el = document.querySelector("title");
    if (el && !this.observer) {
      this.observer = new MutationObserver(() => this.title());
      this.observer.observe(el, { childList: true, characterData: true, subtree: true });
    }
    this.poll();
  }

  async poll() {
    clearTimeout(this.timer);
    if (this.app.me) {
      try { this.set((await get("/api/me/tables")).waiting || 0); } catch { /* kept as it was */ }
    } else {
      this.set(0);
    }
    this.timer = setTimeout(() => this.poll(), REFRESH_MS);
  }

  /** Ask again shortly: something that may change the count happened (a pass, a phase). */
  soon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), 1000);
  }

  set(count) {
    this.count = Number(count) || 0;
    this.title();
  }

  /** The title, with the count in front when some game waits ("(2) Your games — Trusis"). */
  title() {
    const bare = document.title.replace(TITLE_COUNT, "");
    const next = this.count > 0 ? `(${this.count}) ${bare}` : bare;
    if (document.title !== next) document.title = next;
  }
}

export class YourGamesScreen {
  constructor(app) {
    this.app = app;
    this.el = h("div", { class: "page your-games-page" });
    this.tables = null;
    this.error = null;
  }

  mount(main) {
    fill(main, this.el);
    this.offLang = onLangChange(() => this.render());
    fill(this.el, h("h1", {}, t("games.title")), h("p", { class: "hint" }, t("page.loading")));
    this.load();
  }

  unmount() { this.stopped = true; clearTimeout(this.timer); this.offLang?.(); }

  async load() {
    clearTimeout(this.timer);
    try {
      const data = await get("/api/me/tables");
      this.tables = listOf(data, "tables");
      this.app.waiting?.set(data.waiting || 0);
      this.error = null;
    } catch (err) {
      this.error = err;
    }
    if (this.stopped) return;
    this.render();
    this.timer = setTimeout(() => this.load(), REFRESH_MS);
  }

  render() {
    document.title = `${t("games.title")} — Trusis`;
    this.app.waiting?.title();
    if (!this.tables) {
      fill(this.el, h("h1", {}, t("games.title")),
        h("div", { class: "card notice-bad", attrs: { role: "alert" } }, this.error ? errorText(this.error) : t("page.loading")));
      return;
    }
    const waiting = this.tables.filter((tb) => tb.yours?.to_do).length;
    fill(this.el,
      h("h1", {}, t("games.title")),
      h("p", { class: "hint" }, t("games.intro")),
      h("p", { class: "games-count", id: "games-count", attrs: { role: "status" } },
        waiting ? t("lobby.waiting", { count: waiting }) : t("games.none_waiting")),
      this.tables.length
        ? h("ul", { class: "games-list", attrs: { "aria-labelledby": "games-count" } }, this.tables.map((tb) => this.row(tb)))
        : h("p", { class: "card hint" }, t("games.none")),
      this.finishedHint());
  }

  /** A game leaves this list when it ends: where to find it then (a guest has a profile too). */
  finishedHint() {
    const me = this.app.me;
    if (!me?.id) return null;
    const [before, after] = t("games.finished").split("{link}");
    return h("p", { class: "hint", id: "games-finished" }, before,
      pageLink(`/p/${encodeURIComponent(me.id)}`, {}, t("games.profile")), after ?? "");
  }

  /** One game: its name and pace, where it stands, what the player has to do, what is new. */
  row(tb) {
    const yours = tb.yours || {};
    const name = tb.name || tb.id;
    const href = `/t/${encodeURIComponent(tb.id)}`;
    const running = tb.status === "running";
    const seat = (tb.seats || []).find((s) => s.seat === yours.seat);
    const state = !running ? t("games.not_started")
      : yours.seat == null ? t("games.hosting")
        : seat?.yours_away === "grace" || seat?.kind === "bot" ? t("games.bot_plays")
          : yours.to_do ? t("games.to_do") : t("games.done");
    const left = running && yours.deadline ? Math.max(0, yours.deadline - Date.now() / 1000) : null;
    const unread = yours.unread || { chat: 0, private: 0 };
    const news = yours.reading ? [t("games.reading")]
      : [unread.chat ? t("games.unread", { count: unread.chat }) : null,
        unread.private ? t("games.unread_private", { count: unread.private }) : null].filter(Boolean);
    const opts = tb.options || {};
    return h("li", { class: ["card", "yours-row", yours.to_do ? "is-waiting" : ""], dataset: { table: tb.id } },
      h("h2", { class: "game-name" }, pageLink(href, { class: "table-name" }, name)),
      h("p", { class: "game-where" },
        running && yours.phase ? phaseName(yours.phase) : t("lobby.open"),
        left !== null ? [" · ", h("span", { class: "game-left", attrs: { title: untilText(yours.deadline) } }, t("games.left", { time: leftText(left) }))] : null,
        opts.slow ? [" · ", paceText(opts)] : null),
      h("p", { class: ["game-state", yours.to_do ? "is-to-do" : ""] }, state),
      h("p", { class: "game-news" }, news.length ? news.join(" · ") : t("games.no_unread")),
      pageLink(href, { class: ["btn", yours.to_do ? "btn-primary" : ""], attrs: { "aria-label": t("games.open_label", { table: name }) } }, t("games.open")));
  }
}

/** A slow table's pace in hours ("slow: day 20 h, night 4 h", D62). */
export function paceText(opts) {
  const hours = (s) => Math.round((Number(s) / 3600) * 10) / 10;
  return t("lobby.pace", { day: hours(opts.day_seconds), night: hours(opts.night_seconds) });
}
