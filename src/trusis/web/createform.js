// Creating a table with every option of the server: name, seats (5–30), the standard set or
// a custom one checked live (POST /api/sets/check) with the roles it will deal, the balance
// lab's estimate beside it, the timers, private (an invite link), bots taking over, and the
// pace: real time, or a slow game (D62) with its presets or any hours.

import { fill, h } from "./dom.js";
import { post } from "./api.js";
import { allRoles, capital, lang, roleName, t } from "./i18n.js";
import { Balance } from "./balance.js";
import { errorText } from "./errors.js";

/** The slow games' presets (D62): [day hours, night hours]. */
export const PRESETS = { day: [20, 4], evenings: [3, 1], relaxed: [48, 24] };
const HOUR = 3600;

export class CreateForm {
  constructor({ onCreated }) {
    this.onCreated = onCreated;
    this.balance = new Balance();
    this.counts = {};
    this.checkSeq = 0;
    this.el = h("form", { class: "card create", attrs: { "aria-labelledby": "create-title" },
      on: { submit: (ev) => { ev.preventDefault(); this.submit(); } } });
    this.build();
  }

  field(id, label, input, hint) {
    return h("div", { class: "field" }, h("label", { attrs: { for: id } }, label), input,
      hint ? h("small", { class: "hint", id: `${id}-hint` }, hint) : null);
  }

  build() {
    const num = (id, min, max, value) => h("input", {
      id, type: "number", min: String(min), max: String(max), value: String(value), required: true,
      attrs: { inputmode: "numeric", "aria-describedby": `${id}-hint` },
      on: { input: () => this.changed() },
    });
    this.defaultName = t("create.default_name");
    this.name = h("input", { id: "ct-name", type: "text", maxLength: 80, value: this.defaultName, required: true });
    this.seats = num("ct-seats", 5, 30, 8);
    this.day = num("ct-day", 30, 3600, 180);
    this.night = num("ct-night", 15, 1800, 90);
    this.grace = num("ct-grace", 5, 600, 60);
    const pace = (value) => h("input", { type: "radio", name: "ct-pace", value, id: `ct-${value}`, checked: value === "live",
      on: { change: () => this.paced() } });
    this.live = pace("live");
    this.slow = pace("slow");
    this.preset = h("select", { id: "ct-preset", on: { change: () => this.presetChosen() } },
      [...Object.keys(PRESETS), "custom"].map((key) => h("option", { value: key, text: t(`create.preset_${key}`) })));
    this.dayHours = num("ct-day-hours", 1, 48, PRESETS.day[0]);
    this.nightHours = num("ct-night-hours", 1, 24, PRESETS.day[1]);
    for (const input of [this.dayHours, this.nightHours]) input.addEventListener("input", () => this.hoursTyped());
    this.standard = h("input", { type: "radio", name: "ct-set", value: "standard", checked: true, id: "ct-standard", on: { change: () => this.changed() } });
    this.custom = h("input", { type: "radio", name: "ct-set", value: "custom", id: "ct-custom", on: { change: () => this.changed() } });
    this.private = h("input", { type: "checkbox", id: "ct-private" });
    this.takeover = h("input", { type: "checkbox", id: "ct-takeover", checked: true });
    // The hint above the grid, never in it: as its first cell it pushed every box beside
    // the next role's name (2 typed on the "Trusis" line asked for two White Knights).
    this.roleCounts = h("div", { class: "role-counts" });
    this.roleInputs = h("div", { class: "role-set", hidden: true },
      h("p", { class: "hint", id: "ct-roles-hint" }, t("create.custom_hint")), this.roleCounts);
    this.dealt = h("div", { class: "dealt", attrs: { "aria-live": "polite" } });
    this.error = h("p", { class: "form-error", attrs: { role: "alert" } });
    this.submitBtn = h("button", { class: "btn btn-primary", type: "submit", text: t("create.submit") });
    fill(this.el,
      h("h2", { id: "create-title" }, t("create.title")),
      h("div", { class: "create-row" },
        this.field("ct-name", t("create.name"), this.name),
        this.field("ct-seats", t("create.seats"), this.seats, t("create.seats_hint"))),
      h("div", { class: "create-set" },
        h("fieldset", { class: "set" }, h("legend", {}, t("create.set")),
          h("label", { class: "check" }, this.standard, " ", t("create.standard")),
          h("label", { class: "check" }, this.custom, " ", t("create.custom")),
          this.roleInputs),
        h("div", { class: "set-side" }, this.dealt, this.balance.el)),
      h("fieldset", { class: "pace" }, h("legend", {}, t("create.pace")),
        h("label", { class: "check" }, this.live, " ", t("create.live")),
        h("label", { class: "check" }, this.slow, " ", t("create.slow"))),
      this.liveTimers = h("fieldset", { class: "timers" }, h("legend", {}, t("create.timers")),
        this.field("ct-day", t("create.day"), this.day, t("create.day_hint")),
        this.field("ct-night", t("create.night"), this.night, t("create.night_hint"))),
      this.slowTimers = h("fieldset", { class: "timers slow-timers", hidden: true }, h("legend", {}, t("create.timers")),
        this.field("ct-preset", t("create.preset"), this.preset),
        this.field("ct-day-hours", t("create.day_hours"), this.dayHours, t("create.day_hours_hint")),
        this.field("ct-night-hours", t("create.night_hours"), this.nightHours, t("create.night_hours_hint")),
        h("p", { class: "hint" }, t("create.slow_grace"))),
      h("label", { class: "check" }, this.private, " ", t("create.private")),
      h("label", { class: "check" }, this.takeover, " ", t("create.takeover")),
      this.graceField = this.field("ct-grace", t("create.grace"), this.grace, t("create.grace_hint")),
      this.error, this.submitBtn);
    this.buildRoles();
    this.paced();
    this.changed();
  }

  /** Real time or slow (D62): each shows its own timers; a slow game's grace is a day (D63). */
  paced() {
    const slow = this.slow.checked;
    this.liveTimers.hidden = slow;
    this.slowTimers.hidden = !slow;
    this.graceField.hidden = slow;
    for (const input of [this.day, this.night, this.grace]) input.disabled = slow;
    for (const input of [this.dayHours, this.nightHours, this.preset]) input.disabled = !slow;
  }

  presetChosen() {
    const hours = PRESETS[this.preset.value];
    if (!hours) return;
    [this.dayHours.value, this.nightHours.value] = hours.map(String);
  }

  /** Hours typed by hand: the preset they match, or "choose the hours". */
  hoursTyped() {
    const typed = [Number(this.dayHours.value), Number(this.nightHours.value)];
    const found = Object.entries(PRESETS).find(([, hours]) => hours[0] === typed[0] && hours[1] === typed[1]);
    this.preset.value = found ? found[0] : "custom";
  }

  buildRoles() {
    const roles = allRoles().filter((r) => r !== "HUMAN");
    fill(this.roleCounts,
      roles.map((r) => {
        const id = `ct-role-${r}`;
        const input = h("input", {
          id, type: "number", min: "0", max: "30", value: String(this.counts[r] || 0),
          attrs: { inputmode: "numeric", "aria-describedby": "ct-roles-hint" },
          on: { input: (ev) => { this.counts[r] = Math.max(0, Number(ev.target.value) || 0); this.changed(); } },
        });
        return h("div", { class: "role-count" }, h("label", { attrs: { for: id } }, roleName(r)), input);
      }));
  }

  setJson() {
    if (!this.custom.checked) return { standard: true };
    const custom = {};
    for (const [r, n] of Object.entries(this.counts)) if (n > 0) custom[r] = n;
    return { custom };
  }

  changed() {
    this.roleInputs.hidden = !this.custom.checked;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), 200);
  }

  async check() {
    const seats = Number(this.seats.value);
    const set = this.setJson();
    const mine = ++this.checkSeq;
    if (!Number.isInteger(seats) || seats < 5 || seats > 30) {
      this.showCheck({ ok: false, text: t("create.seats_range") });
      return;
    }
    let answer;
    try {
      answer = await post("/api/sets/check", { seats, set });
    } catch (err) {
      answer = { ok: false, code: err.code, params: err.params, message: err.message };
    }
    if (mine !== this.checkSeq) return;
    if (answer.ok) {
      this.showCheck({ ok: true, roles: answer.roles });
      this.balance.show(seats, set);
    } else {
      this.showCheck({ ok: false, text: errorText(answer) });
      this.balance.stop();
      fill(this.balance.el);
    }
  }

  showCheck({ ok, roles, text }) {
    this.valid = ok;
    this.submitBtn.disabled = !ok;
    if (!ok) {
      fill(this.dealt, h("p", { class: "check-bad" }, "✗ ", text));
      return;
    }
    fill(this.dealt,
      h("h3", {}, t("create.dealt")),
      h("ul", { class: "dealt-list" }, Object.entries(roles || {}).map(([r, n]) =>
        h("li", {}, h("span", { class: "count" }, `${n} ×`), " ", roleName(r)))),
      h("p", { class: "check-ok" }, "✓ ", t("create.valid")));
  }

  async submit() {
    if (!this.valid) return;
    this.error.textContent = "";
    const slow = this.slow.checked;
    const body = {
      name: this.name.value.trim() || t("create.default_name"),
      seats: Number(this.seats.value),
      set: this.setJson(),
      slow,
      day_seconds: slow ? Number(this.dayHours.value) * HOUR : Number(this.day.value),
      night_seconds: slow ? Number(this.nightHours.value) * HOUR : Number(this.night.value),
      private: this.private.checked,
      bots_take_over: this.takeover.checked,
      grace_seconds: slow ? 60 : Number(this.grace.value),  // not used at a slow table (D63)
      lang: lang(), // its bots speak it (docs/bots.md)
    };
    this.submitBtn.disabled = true;
    try {
      const table = await post("/api/tables", body);
      this.onCreated(table);
    } catch (err) {
      this.error.textContent = capital(errorText(err));
    } finally {
      this.submitBtn.disabled = false;
    }
  }

  stop() { this.balance.stop(); clearTimeout(this.timer); }
}


