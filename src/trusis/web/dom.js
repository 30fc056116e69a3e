// Small DOM helpers. User text only ever goes through text nodes (never innerHTML),
// and no style attribute is ever written (the Content-Security-Policy forbids it).

/**
 * h("button", {class: "x", on: {click}, attrs: {"aria-label": "…"}}, "text", child)
 * Strings among the children become text nodes: safe for names and chat.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    else if (key === "text") el.textContent = String(value);
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "attrs") {
      for (const [name, v] of Object.entries(value)) {
        if (v === undefined || v === null || v === false) continue;
        if (name === "style" || name.startsWith("on")) throw new Error(`refusing attribute ${name}`);
        el.setAttribute(name, v === true ? "" : String(v));
      }
    } else if (key in el) el[key] = value;
    else throw new Error(`unknown property ${key}`);
  }
  append(el, children);
  return el;
}

/** Append children: nodes as they are, strings and numbers as text nodes. */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Replace an element's children. */
export function fill(el, ...children) {
  clear(el);
  return append(el, children);
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/** mm:ss for a number of seconds (never negative). */
export function mmss(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const two = (n) => String(n).padStart(2, "0");
  // A slow game's phase lasts hours (D62): "19:59:58", never "1199:58".
  if (s >= 3600) return `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  return `${two(Math.floor(s / 60))}:${two(s % 60)}`;
}

/** hh:mm of a time in seconds since the epoch, in the player's locale. */
export function clockTime(epochSeconds, lang) {
  const d = new Date(epochSeconds * 1000);
  return d.toLocaleTimeString(localeFor(lang), { hour: "2-digit", minute: "2-digit" });
}

/**
 * The browser's own locale when it speaks the page's language (en-GB keeps its 24-hour
 * clock, fr-CA its conventions), else the page's language itself.
 */
export function localeFor(lang) {
  const own = (navigator.languages || [navigator.language]).find((l) => String(l).split("-")[0] === lang);
  return own || lang;
}

export const prefersReducedMotion = () =>
  window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** A stable small key for storage: letters, digits, - and _ only. */
export const safeKey = (s) => String(s).replace(/[^A-Za-z0-9_-]/g, "_");

/** Whether keyboard focus fell out of the page (a focused element was removed or disabled). */
export function focusLost() {
  const el = document.activeElement;
  return !el || el === document.body || el === document.documentElement || !el.isConnected;
}

/** The data-focus key of the focused element inside `root` (to find it again after a redraw). */
export function focusKey(root) {
  const el = document.activeElement;
  return el && el !== document.body && root.contains(el) ? el.dataset?.focus || null : null;
}

/**
 * Put focus back after a redraw (WCAG 2.4.3): on the element with the first of `keys` that
 * is there and enabled, else on `fallback`. Returns whether it moved focus.
 */
export function refocus(root, keys, fallback = null) {
  for (const key of keys) {
    if (!key) continue;
    const el = root.querySelector(`[data-focus="${CSS.escape(key)}"]`);
    if (el && !el.disabled && !el.hidden) { el.focus(); return true; }
  }
  if (fallback) { fallback.focus(); return true; }
  return false;
}
