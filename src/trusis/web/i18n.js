// The player's language: the client's own UI strings (/static/locales/<lang>.json) and the
// engine's catalogues (/api/i18n/<lang>: events, refusals, role names, statistics' labels).
// The server sends codes and parameters; everything is rendered here, plurals included.

import { get } from "./api.js";
import { localeFor } from "./dom.js";

export const LANGUAGES = ["en", "fr", "it"];
const STORE_KEY = "trusis.lang";
const SEAT_PARAMS = new Set(["seat", "target", "shown", "to", "voter"]);

const state = {
  lang: "en",
  ui: {},        // the client's strings in the chosen language
  uiEn: {},      // English, for a key another language lacks
  msgs: {},      // engine messages
  roles: {},     // ROLE_ID -> {name, team}
  stats: {},
  plural: new Intl.PluralRules("en"),
  names: new Map(), // seat -> display name at the current table
  listeners: [],
};

export function lang() { return state.lang; }

/** The language to use: the player's switch, else the browser's first known language. */
export function preferredLang() {
  try {
    const kept = localStorage.getItem(STORE_KEY);
    if (LANGUAGES.includes(kept)) return kept;
  } catch { /* storage may be off */ }
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

/** Load a language (and English behind it); call the listeners once it is in place. */
export async function setLang(code, { remember = false } = {}) {
  const next = LANGUAGES.includes(code) ? code : "en";
  const [ui, uiEn, engine] = await Promise.all([
    get(`/static/locales/${next}.json`),
    next === "en" ? null : get("/static/locales/en.json"),
    get(`/api/i18n/${next}`).catch(() => ({ messages: {}, roles: {}, stats: {} })),
  ]);
  state.lang = next;
  state.ui = ui;
  state.uiEn = uiEn || ui;
  state.msgs = engine.messages || {};
  state.roles = engine.roles || {};
  state.stats = engine.stats || {};
  state.plural = new Intl.PluralRules(next);
  document.documentElement.lang = next;
  if (remember) {
    try { localStorage.setItem(STORE_KEY, next); } catch { /* ignore */ }
  }
  translateStatic(document);
  for (const fn of state.listeners) fn(next);
}

/** Run fn after every change of language; returns the function that stops it. */
export function onLangChange(fn) {
  state.listeners.push(fn);
  return () => { state.listeners = state.listeners.filter((f) => f !== fn); };
}

function fillTemplate(template, params) {
  return String(template).replace(/\{(\w+)\}/g, (whole, key) =>
    params && Object.prototype.hasOwnProperty.call(params, key) ? String(params[key]) : whole);
}

/**
 * A UI string of the client. A value may be a plural object ({"one": "# vote", "other":
 * "# votes"}), chosen with Intl.PluralRules on params.count; "#" is the formatted count.
 */
export function t(key, params = {}) {
  let value = state.ui[key] ?? state.uiEn[key];
  if (value === undefined) return key;
  if (typeof value === "object") {
    const n = Number(params.count ?? 0);
    value = value[state.plural.select(n)] ?? value.other ?? "";
    value = value.replace(/#/g, new Intl.NumberFormat(state.lang).format(n));
  }
  return fillTemplate(value, params);
}

/** Whether the engine catalogue holds a message. */
export function hasMsg(code) { return Object.prototype.hasOwnProperty.call(state.msgs, code); }

/** A role's name in the player's language (a fact id such as NEITHER through fact.*). */
export function roleName(role) {
  if (state.roles[role]) return state.roles[role].name;
  if (hasMsg(`fact.${role}`)) return state.msgs[`fact.${role}`];
  return String(role);
}

export function roleTeam(role) { return state.roles[role]?.team || null; }
export function allRoles() { return Object.keys(state.roles); }
export function statsLabels() { return state.stats; }

/** Set the display names of the current table's seats. */
export function setNames(players) {
  state.names = new Map(players.map((p) => [Number(p.seat), p.name]));
}
export function nameOf(seat) { return state.names.get(Number(seat)) ?? ""; }

/** A seat as sentences name it: "Bob (seat 4)". */
/** A seat named by `name`, its holder when a chat line was written (issue 38), as seatName. */
export function seatNameAs(seat, name) {
  if (!name) return seatName(seat);
  return fillTemplate(state.msgs["play.seat_name"] || "{name} (seat {number})", { name, number: seat });
}

export function seatName(seat) {
  if (seat === null || seat === undefined) return "—";
  const name = state.names.get(Number(seat));
  if (name === undefined) return fillTemplate(state.msgs["seat.label"] || "seat {number}", { number: seat });
  return fillTemplate(state.msgs["play.seat_name"] || "{name} (seat {number})", { name, number: seat });
}

/**
 * An engine message (event.*, refusal.*, setup.*, play.*) with its parameters, rendered as
 * the engine's own i18n.render does: seats named, roles, powers, phases, facts, winners and
 * teams translated.
 */
export function msg(code, params = {}, namer = seatName) {
  const template = state.msgs[code];
  if (template === undefined) return code;
  const values = {};
  for (const [key, value] of Object.entries(params || {})) {
    if (SEAT_PARAMS.has(key)) values[key] = value === null || value === undefined ? "—" : namer(value);
    else if (key === "role") values[key] = roleName(value);
    else if (key === "holders") values[key] = (value || []).map(roleName).join(" / ");
    else if (key === "power") {
      values.power = state.msgs[`power.${value}`] ?? value;
      values.power_on = state.msgs[`power_on.${value}`] ?? value;
    } else if (key === "kind") values[key] = state.msgs[`phase.${value}`] ?? value;
    else if (key === "result") values[key] = state.msgs[`fact.${value}`] ?? value;
    else if (key === "winner") values[key] = state.msgs[`winner.${value}`] ?? value;
    else if (key === "team") values[key] = state.msgs[`team.${value}`] ?? value;
    else if (key === "by") values[key] = value === "bot" ? state.msgs["by.bot"] ?? value : value;
    else if (key === "until") values[key] = untilText(value);
    else values[key] = value;
  }
  return fillTemplate(template, values);
}

/** "19 h 12 min", never more than is left; under an hour, at least "1 min" ("0 min" would
 * read as over). */
export function leftText(seconds) {
  if (seconds < 3600) return t("games.m", { minutes: Math.max(1, Math.ceil(seconds / 60)) });
  const minutes = Math.floor(seconds / 60);
  return t("games.hm", { hours: Math.floor(minutes / 60), minutes: minutes % 60 });
}

/**
 * A sanction's end (seconds since the epoch; null or 0: none) in the player's language and
 * time zone: "until 18:40" today, "until 12 Mar 2027, 18:40" another day, "for good".
 */
export function untilText(epoch) {
  const seconds = Number(epoch);
  if (epoch === null || epoch === undefined || !Number.isFinite(seconds) || seconds <= 0) {
    return state.msgs["until.never"] ?? "for good";
  }
  const end = new Date(seconds * 1000);
  const locale = localeFor(state.lang);
  if (end.toDateString() === new Date().toDateString()) {
    const time = end.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" });
    return fillTemplate(state.msgs["until.time"] ?? "until {time}", { time });
  }
  const date = end.toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" });
  return fillTemplate(state.msgs["until.date"] ?? "until {date}", { date });
}

/** The first letter in upper case: rendered codes start lower-case. */
export function capital(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

/** The parameters that hold a player's name as they wrote it. */
const NAME_PARAMS = new Set([...SEAT_PARAMS, "name"]);

/**
 * An engine message as a sentence: its first letter in upper case — unless the sentence
 * starts with a player's name, which is shown as written: "gnp.exe (seat 2) has passed",
 * never "Gnp.exe". A seat without a known name ("seat 3 has passed") is capitalised.
 */
export function sentence(code, params = {}, namer = seatName) {
  const text = msg(code, params, namer);
  const lead = /^\{(\w+)\}/.exec(state.msgs[code] ?? "")?.[1];
  if (lead && NAME_PARAMS.has(lead) && params?.[lead] !== null && params?.[lead] !== undefined) {
    const value = params[lead];
    const bare = fillTemplate(state.msgs["seat.label"] || "seat {number}", { number: value });
    if (lead === "name" || namer(value) !== bare) return text;
  }
  return capital(text);
}

/** "Day 2" / "Nuit 3". */
export function phaseName(phase) {
  if (!phase) return "";
  return msg("play.phase", { kind: phase.kind, number: phase.number });
}

/** Elements marked data-i18n="key" get their text; data-i18n-attr="attr:key;attr:key". */
export function translateStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      if (attr && key && attr !== "style" && !attr.startsWith("on")) el.setAttribute(attr, t(key));
    }
  }
}
