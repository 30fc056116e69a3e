// Rules at hand: every role's team and power in the player's language, the roles at this
// table first; and the card of your own role (name, team, goal, power, what you know).

import { fill, h } from "./dom.js";
import { openModal } from "./dialogs.js";
import { shortcutHelp } from "./keys.js";
import { allRoles, capital, msg, roleName, roleTeam, seatName, t } from "./i18n.js";

export function powerText(role) {
  const own = t(`power.${role}`);
  return own !== `power.${role}` ? own : msg(`play.power.${role}`);
}

/** Your own power. A TRUSIS whose view names no other TRUSIS (each knows every other, R7) is
 * the only one — the standard set deals one at 5-7 seats (R2) — and is not told of fellows it
 * does not have (the rest of its team, a Butcher say, is unknown to it and is no Trusis, §1). */
export function ownPowerText(view, mySeat) {
  const others = Object.entries(view.known || {}).filter(([s]) => Number(s) !== mySeat).map(([, fact]) => fact);
  return view.role === "TRUSIS" && !others.includes("TRUSIS") ? powerText("TRUSIS_alone") : powerText(view.role);
}

/** "You are the Sweeper", with the gender the language needs. */
export function youAre(role) {
  const key = `play.you_are.${role}`;
  const text = msg(key);
  return text !== key ? text : msg("play.you_are", { role });
}

/** The card of your role: name, team, goal, power, and what you know from the start. */
export function roleCard(view, mySeat, open = true) {
  const role = view.role;
  const team = view.team || roleTeam(role);
  const fellows = Object.entries(view.known || {})
    .filter(([s]) => Number(s) !== mySeat)
    .map(([s, fact]) => t("role.known_fact", { seat: seatName(Number(s)), fact: roleName(fact) }));
  const details = h("details", { open: open },
    h("summary", { class: "role-summary" },
      h("span", { class: "role-kicker" }, t("role.your_role")),
      h("span", { id: "role-card-title", class: "role-name" }, roleName(role)),
      h("span", { class: "role-team" }, teamMark(team), " ", msg(`play.team.${team}`))),
    h("p", { class: "role-power" }, ownPowerText(view, mySeat)),
    h("p", { class: "role-goal" }, msg(`play.goal.${team}`)),
    view.status === "running" && fellows.length
      ? h("div", { class: "role-known" }, h("h3", {}, t("role.you_know")), h("ul", {}, fellows.map((f) => h("li", {}, "◆ ", f))))
      : null);
  return h("section", { class: ["role-card", `team-${String(team).toLowerCase()}`], attrs: { "aria-labelledby": "role-card-title" } }, details);
}

export function teamMark(team) {
  return { HUMAN: "☀", TRUSIS: "☾", CASTAWAY: "⚓" }[team] || "•";
}

export class RulesDialog {
  constructor() {
    this.dlg = h("dialog", { class: "dialog rules-dialog", attrs: { "aria-labelledby": "rules-title" } });
    this.dlg.addEventListener("click", (ev) => { if (ev.target === this.dlg) this.dlg.close(); });
    document.body.append(this.dlg);
  }

  open(composition = null, focusRole = null) {
    const here = composition ? Object.keys(composition) : [];
    const others = allRoles().filter((r) => !here.includes(r));
    const table = (roles, counts) => h("table", { class: "rules-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("rules.role")), h("th", { scope: "col" }, t("rules.team")), h("th", { scope: "col" }, t("rules.power")))),
      h("tbody", {}, roles.map((r) => h("tr", { class: r === focusRole ? "is-mine" : "", attrs: { id: `rule-${r}` } },
        h("th", { scope: "row" }, roleName(r), counts?.[r] ? h("span", { class: "count" }, ` × ${counts[r]}`) : null),
        h("td", {}, teamMark(roleTeam(r)), " ", msg(`play.team_short.${roleTeam(r)}`)),
        h("td", {}, powerText(r))))));
    const close = h("button", { class: "btn", type: "button", text: t("close"), on: { click: () => this.dlg.close() } });
    fill(this.dlg,
      h("div", { class: "dialog-head" }, h("h2", { id: "rules-title" }, t("rules.title")), close),
      h("div", { class: "rules-body" },
        h("p", {}, t("rules.summary")),
        h("ul", { class: "rules-goals" }, ["HUMAN", "TRUSIS", "CASTAWAY"].map((team) =>
          h("li", {}, teamMark(team), " ", h("strong", {}, msg(`play.team_short.${team}`)), ": ", capital(msg(`play.goal.${team}`))))),
        here.length ? [h("h3", {}, t("rules.here")), table(here, composition)] : null,
        others.length ? [h("h3", {}, here.length ? t("rules.others") : t("rules.all")), table(others, null)] : null,
        shortcutHelp()));
    openModal(this.dlg);
    close.focus();
    if (focusRole) this.dlg.querySelector(`#rule-${focusRole}`)?.scrollIntoView({ block: "center" });
  }
}
