// The lobby: choose a name (POST /api/guest) or change it (PATCH /api/me: the same player,
// D46), your games (GET /api/me/tables: where you sit or host, private ones too, D48), the
// open tables with their seats taken, and the form that creates a table.

import { fill, h } from "./dom.js";
import { api, get, listOf, post } from "./api.js";
import { onLangChange, t } from "./i18n.js";
import { CreateForm } from "./createform.js";
import { errorText } from "./errors.js";
import { announce } from "./dialogs.js";
import { paceText } from "./yourgames.js";
import { pageLink } from "./account.js";
import { showWarnings } from "./moderation.js";

/** The name form: shown in the lobby, and at a table when nobody is signed in. */
export const NAME_MAX = 32;

/**
 * A name field's length, said while typing (D25): the field takes 32 characters, the count
 * says how many are left and when the limit is reached, and a paste that the field had to
 * cut says so, before anything is sent. A longer value set some other way is not sent.
 */
export function nameCounter(input, submit) {
  // The browser's maxlength counts UTF-16 units (an emoji is two): at 32 the field stopped
  // at 16 emoji while the count said 16/32. The server counts characters (code points,
  // D25), and so does this field: maxlength only bounds a paste, what passes 32 is cut here.
  input.maxLength = NAME_MAX * 2;
  const note = h("p", { class: "hint name-count", id: `${input.id}-count`, attrs: { "aria-live": "polite" } });
  input.setAttribute("aria-describedby", note.id);
  let pasted = 0;  // the length of a paste the field cut, until the next edit
  const update = () => {
    const n = [...input.value.trim()].length;
    const over = n > NAME_MAX;
    note.textContent = over ? t("name.too_long", { count: n, max: NAME_MAX })
      : pasted ? t("name.cut", { count: pasted, max: NAME_MAX })
        : n >= NAME_MAX ? t("name.full", { max: NAME_MAX }) : t("name.count", { count: n, max: NAME_MAX });
    note.classList.toggle("is-over", over || !!pasted);
    input.setCustomValidity(over ? note.textContent : "");
    if (submit) submit.disabled = over;
  };
  input.addEventListener("paste", (ev) => {
    const text = ev.clipboardData?.getData("text") || "";
    const kept = [...input.value].length - Math.abs((input.selectionEnd ?? 0) - (input.selectionStart ?? 0));
    pasted = kept + [...text].length > NAME_MAX ? kept + [...text].length : 0;
  });
  input.addEventListener("input", (ev) => {
    if (ev.inputType !== "insertFromPaste") pasted = 0;
    const over = [...input.value].length - NAME_MAX;
    if (over > 0 && !ev.isComposing) {
      // What was just put in past the limit goes: the characters before the caret.
      const end = input.selectionEnd ?? input.value.length;
      const before = [...input.value.slice(0, end)];
      const kept = before.slice(0, Math.max(0, before.length - over)).join("");
      input.value = kept + input.value.slice(end);
      input.setSelectionRange(kept.length, kept.length);
    }
    update();
  });
  update();
  return note;
}

export function nameForm(app, { compact = false } = {}) {
  const input = h("input", {
    id: compact ? "name-input-t" : "name-input", type: "text", maxLength: NAME_MAX, required: true,
    value: app.me?.name || "", attrs: { autocomplete: "nickname", placeholder: t("name.placeholder") },
  });
  const error = h("p", { class: "form-error", attrs: { role: "alert" } });
  const go = h("button", { class: "btn btn-primary", type: "submit", text: app.me ? t("name.rename") : t("name.go") });
  const count = nameCounter(input, go);
  const form = h("form", {
    class: ["card", "name-form", compact ? "compact" : ""], attrs: { "aria-labelledby": "name-title" },
    on: {
      submit: async (ev) => {
        ev.preventDefault();
        error.textContent = "";
        go.disabled = true;
        try {
          // A player who has a name keeps their identity, seats and account: only the
          // name changes (D46; an account signs in by its new name, D47).
          const renaming = !!app.me;
          const answer = renaming ? await api("PATCH", "/api/me", { name: input.value })
            : await post("/api/guest", { name: input.value });
          const player = answer.player || answer;
          const same = renaming && player.name === app.me.name;
          app.setMe(player);
          if (renaming && !same) announce(t("name.renamed", { name: player.name }));
        } catch (err) {
          error.textContent = errorText(err);
          input.focus();
        } finally {
          go.disabled = false;
        }
      },
    },
  },
  h("h2", { id: "name-title" }, app.me ? t("name.change") : t("name.title")),
  app.me ? h("p", { class: "hint" }, t("name.current", { name: app.me.name })) : h("p", { class: "hint" }, t("name.hint")),
  app.me?.kind === "account" ? h("p", { class: "hint" }, t("name.account_hint")) : null,
  h("div", { class: "row" }, h("label", { class: "sr-only", attrs: { for: input.id } }, t("name.label")), input, go),
  count, error);
  return form;
}

/**
 * What the player typed or chose in `root`'s fields, by id. The function returned puts it
 * back into the fields of the same ids once `root` is drawn again, telling each field's own
 * listeners (a name's count, the form's check of its set, slow or real time).
 */
function keepFields(root) {
  const kept = [...root.querySelectorAll("input[id], select[id], textarea[id]")].map((el) =>
    [el.id, el.type === "checkbox" || el.type === "radio" ? el.checked : el.value]);
  const focused = root.contains(document.activeElement) ? document.activeElement.id : "";
  return () => {
    for (const [id, value] of kept) {
      const el = document.getElementById(id);
      if (!el || !root.contains(el)) continue;
      const box = typeof value === "boolean";
      // A radio is put back by checking the one that was: unchecking the others is its own.
      if (box ? el.checked === value || (el.type === "radio" && !value) : el.value === value) continue;
      if (box) el.checked = value;
      else el.value = value;
      el.dispatchEvent(new Event(box || el.tagName === "SELECT" ? "change" : "input", { bubbles: true }));
    }
    if (focused) document.getElementById(focused)?.focus();
  };
}

export class Lobby {
  constructor(app) {
    this.app = app;
    this.list = h("div", { class: "table-list" });
    this.slowList = h("div", { class: "table-list slow-list" });
    this.mine = h("section", { class: "card your-games", hidden: true, attrs: { "aria-labelledby": "mine-title" } });
    this.el = h("div", { class: "lobby" });
    this.timer = null;
    this.form = null;
  }

  mount(main) {
    fill(main, this.el);
    this.render();
    this.refresh();
    this.offLang = onLangChange(() => this.relang());
  }

  unmount() {
    this.stopped = true;
    this.offLang?.();
    clearTimeout(this.timer);
    this.form?.stop();
  }

  /**
   * A switch of language redraws the lobby at once, as the table screen and the replay are
   * (their relang): drawn once, its words stayed in English until the player went elsewhere
   * while the top bar had changed. What was typed in its fields stays; a table's name left
   * as it was given follows the language.
   */
  relang() {
    if (this.stopped) return;
    const restore = keepFields(this.el);
    const given = this.form && this.form.name.value === this.form.defaultName;
    this.render({ keepForm: true });
    restore();
    if (given) this.form.name.value = this.form.defaultName;
    this.refresh();
  }

  render({ keepForm = false } = {}) {
    if (keepForm && this.form && this.app.me) {
      this.form.build();
    } else {
      this.form?.stop();
      this.form = this.app.me ? new CreateForm({ onCreated: (table) => this.created(table) }) : null;
    }
    fill(this.el,
      h("div", { class: "lobby-intro" }, h("h1", {}, t("lobby.title")), h("p", {}, t("lobby.intro"))),
      h("div", { class: "lobby-grid" },
        h("div", { class: "lobby-col" }, nameForm(this.app), this.mine,
          h("section", { class: "card tables", attrs: { "aria-labelledby": "tables-title" } },
            h("div", { class: "card-head" }, h("h2", { id: "tables-title" }, t("lobby.tables")),
              h("button", { class: "btn btn-small", type: "button", text: t("lobby.refresh"), on: { click: () => this.refresh() } })),
            this.list),
          h("section", { class: "card slow-tables", attrs: { "aria-labelledby": "slow-title" } },
            h("h2", { id: "slow-title" }, t("lobby.slow_tables")),
            h("p", { class: "hint" }, t("lobby.slow_hint")),
            this.slowList)),
        this.form ? this.form.el : h("section", { class: "card" }, h("h2", {}, t("create.title")), h("p", { class: "hint" }, t("create.need_name")))));
  }

  created(table) {
    const q = table.invite && table.options?.private ? `?invite=${encodeURIComponent(table.invite)}` : "";
    this.app.navigate(`/t/${encodeURIComponent(table.id)}${q}`);
  }

  async refresh() {
    clearTimeout(this.timer);
    // A ban ends the session: this request is the lobby's way to learn it (403 banned).
    const mine = this.app.me ? get("/api/me/tables").catch((err) => {
      if (err.code === "banned") this.app.showBanned(err.params);
      return null;
    }) : Promise.resolve({ tables: [] });
    try {
      const tables = listOf(await get("/api/tables"), "tables");
      // Slow tables apart (D62): a player looking for a game now must not sit down at one
      // that lasts a week.
      this.drawTables(this.list, tables.filter((tb) => !tb.options?.slow), t("lobby.no_tables"));
      this.drawTables(this.slowList, tables.filter((tb) => tb.options?.slow), t("lobby.no_slow"));
    } catch (err) {
      fill(this.list, h("p", { class: "form-error" }, errorText(err)));
    }
    // A moderator's warning reaches the lobby live (issue 38), as a game's `warning` frame
    // brings it to a table at once (D53).
    if (this.app.me && !this.stopped) showWarnings(this.app);
    const yours = await mine;
    if (yours && !this.stopped) {
      this.app.waiting?.set(yours.waiting || 0);
      this.drawMine(listOf(yours, "tables"), yours.waiting || 0);
    }
    if (!this.stopped) this.timer = setTimeout(() => this.refresh(), 5000);
  }

  /**
   * Your games (D48): every table where you sit or that you host, private ones too, each with
   * its way back in. Your seat (or your being the host) opens a private table: the link
   * carries no invite, which stays the host's.
   */
  drawMine(tables, waiting = 0) {
    this.mine.hidden = !tables.length;
    if (!tables.length) { fill(this.mine); return; }
    const go = (href) => (ev) => { ev.preventDefault(); this.app.navigate(href); };
    fill(this.mine,
      h("div", { class: "card-head" }, h("h2", { id: "mine-title" }, t("lobby.mine")),
        pageLink("/games", { class: "btn btn-small", id: "all-games" }, t("lobby.all_games"))),
      h("p", { class: ["games-count", waiting ? "is-waiting" : ""], id: "mine-waiting" },
        waiting ? t("lobby.waiting", { count: waiting }) : t("games.none_waiting")),
      h("p", { class: "hint" }, t("lobby.mine_hint")),
      h("ul", { class: "tables-ul" }, tables.map((tb) => {
        const running = tb.status === "running";
        const seat = (tb.seats || []).find((s) => (s.you || s.yours_away) && s.yours_away !== "left");
        const away = seat?.yours_away === "grace";
        const href = `/t/${encodeURIComponent(tb.id)}`;
        const action = seat ? t(away ? "lobby.take_back" : "lobby.back") : t("lobby.open_table");
        const name = tb.name || tb.id;
        return h("li", { class: ["table-row", running ? "is-running" : "is-open"], dataset: { table: tb.id } },
          h("div", { class: "table-main" },
            h("a", { class: "table-name", href, on: { click: go(href) } }, name),
            h("span", { class: "table-meta" },
              t(running ? "lobby.running" : "lobby.open"), " · ",
              seat ? t(away ? "lobby.mine_away" : "lobby.mine_seat", { seat: seat.seat }) : t("lobby.mine_host"),
              tb.yours?.to_do ? [" · ", h("strong", {}, t("games.to_do"))] : null,
              tb.options?.slow ? [" · ", paceText(tb.options)] : null,
              tb.you_host && seat ? [" · ", t("lobby.mine_host")] : null,
              tb.options?.private ? [" · ", t("lobby.private")] : null)),
          h("a", { class: ["btn", "btn-primary"], href, attrs: { "aria-label": t("lobby.mine_label", { action, table: name }) },
            on: { click: go(href) } }, action));
      })));
  }

  drawTables(list, tables, none) {
    if (!tables.length) {
      fill(list, h("p", { class: "hint" }, none));
      return;
    }
    fill(list, h("ul", { class: "tables-ul" }, tables.map((tb) => {
      const seats = tb.options?.seats ?? (tb.seats || []).length;
      const taken = tb.taken ?? (tb.seats || []).filter((s) => s.kind).length;
      const mine = (tb.seats || []).some((s) => s.you);
      const running = tb.status === "running";
      const full = !running && taken >= seats;  // nothing to join: it waits for its host to start
      const opts = tb.options || {};
      const href = `/t/${encodeURIComponent(tb.id)}`;
      return h("li", { class: ["table-row", running ? "is-running" : "is-open"] },
        h("div", { class: "table-main" },
          h("a", { class: "table-name", href, on: { click: (ev) => { ev.preventDefault(); this.app.navigate(href); } } }, tb.name || tb.id),
          h("span", { class: "table-meta" },
            t(running ? "lobby.running" : full ? "lobby.full" : "lobby.open"), " · ",
            t("lobby.taken", { taken, count: seats }), " · ",
            opts.set?.custom ? t("lobby.custom") : t("lobby.standard"), " · ",
            opts.slow ? paceText(opts) : t("lobby.timers", { day: opts.day_seconds ?? "?", night: opts.night_seconds ?? "?" }), " · ",
            t("lobby.host", { name: tb.host?.name || "?" }))),
        h("a", { class: ["btn", running || (full && !mine) ? "" : "btn-primary"], href,
          on: { click: (ev) => { ev.preventDefault(); this.app.navigate(href); } } },
        mine ? t("lobby.back") : running || full ? t("lobby.watch") : t("lobby.join")));
    })));
  }
}


