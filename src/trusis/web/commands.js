// The chat box's short commands (/who, /votes, /time, /role, /last, /help; /vote, /unvote,
// /pass, /use to act): answered in the player's language from the view this page already
// holds — never a question to the server that could reveal more (docs/accessibility.md).
// Any player may use them; the screen-reader mode is where they matter most.

import { mmss } from "./dom.js";
import { capital, msg, phaseName, seatName, t } from "./i18n.js";
import { eventText } from "./log.js";
import { youAre } from "./rules.js";
import { seatLabel } from "./seats.js";
import { errorText } from "./errors.js";
import { shortcutList } from "./keys.js";

/** Each command and the words that call it, in English, French and Italian. */
const ALIASES = {
  who: ["who", "qui", "chi"],
  votes: ["votes", "voti", "tally"],
  time: ["time", "temps", "tempo"],
  role: ["role", "rôle", "ruolo"],
  last: ["last", "derniers", "dernier", "ultimi", "ultimo"],
  help: ["help", "aide", "aiuto", "?"],
  vote: ["vote", "vota"],
  unvote: ["unvote", "retirer", "ritira"],
  pass: ["pass", "passer", "passe", "passa"],
  use: ["use", "utiliser", "usa"],
};
const BY_WORD = new Map(Object.entries(ALIASES).flatMap(([cmd, words]) => words.map((w) => [w, cmd])));

/** "/who" is a command; "//who" sends "/who" to the chat as it is. */
export function isCommand(text) { return /^\/[^/\s]/.test(text); }

/** A seat from a number or the start of a name; null when none or several match. */
export function seatFrom(store, word) {
  const players = store.view?.players || [];
  if (/^\d+$/.test(word || "")) return players.some((p) => p.seat === Number(word)) ? Number(word) : null;
  const w = String(word || "").toLowerCase();
  if (!w) return null;
  const hits = players.filter((p) => String(p.name).toLowerCase().startsWith(w));
  return hits.length === 1 ? hits[0].seat : null;
}

function who(store, notebook) {
  const players = store.view?.players || [];
  return players.map((p) => {
    const note = notebook?.get(p.seat);
    const tag = note && p.seat !== store.seat ? notebook.tagText(note) : "";
    return seatLabel(store, p, tag);
  }).join(".\n");
}

function votes(store) {
  const view = store.view;
  const counts = Object.entries(view?.vote_counts || {}).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  const cast = view?.votes || {};
  const night = view?.phase?.kind === "night";
  if (!counts.length) return t("cmd.no_votes");
  const lines = counts.map(([seat, n]) => {
    const voters = Object.entries(cast).filter(([, target]) => target === Number(seat)).map(([v]) => seatName(v));
    return t(night ? "cmd.kill_votes_line" : "cmd.votes_line", { seat: seatName(seat), count: n, voters: voters.join(", ") || "—" });
  });
  if (!night) {
    const idle = (view.players || []).filter((p) => p.alive && !p.left && !(String(p.seat) in cast)).map((p) => seatName(p.seat));
    if (idle.length) lines.push(t("cmd.not_voted", { seats: idle.join(", ") }));
  }
  return lines.join(".\n");
}

function time(store) {
  const view = store.view;
  if (!view || view.status !== "running") return view?.status === "finished" ? t("status.finished") : t("status.waiting");
  const left = store.remaining();
  const alive = (view.alive || []).length;
  return [
    `${phaseName(view.phase)}: ${t("cmd.time_left", { time: left === null ? "—" : mmss(left) })}`,
    msg("play.passed_count", { passed: (view.passed || []).length, alive }),
  ].join(". ");
}

function role(store, notebook, prompt) {
  const view = store.view;
  if (!view?.role) return t("seat.spectating");
  const lines = [youAre(view.role)];
  for (const [seat, facts] of notebook?.facts() || []) {
    if (seat === store.seat) continue;
    lines.push(`${seatName(seat)}: ${facts.join("; ")}`);
  }
  const now = prompt?.();
  if (now) lines.push(now);
  return lines.join(".\n");
}

function last(store, word) {
  const n = Math.min(20, Math.max(1, Number(word) || 5));
  const entries = store.log.slice(-n);
  return entries.length ? entries.map((e) => eventText(e)).join(".\n") : t("log.empty");
}

async function act(store, send, action, done) {
  if (!store.seat) return t("chat.spectator");
  const answer = await send(action);
  return answer?.type === "refused" ? capital(errorText(answer)) : done;
}

/** The answer to one command line, as text for the announcer and the box under the chat. */
export async function runCommand(text, { store, act: send, notebook, prompt }) {
  const [head, ...args] = text.slice(1).trim().split(/\s+/);
  const cmd = BY_WORD.get(head.toLowerCase());
  const view = store.view;
  if (!cmd) return `${t("cmd.unknown", { name: head })} ${t("cmd.help")}`;
  if (cmd === "help") return `${t("cmd.help")} ${t("keys.intro")} ${shortcutList()}.`;
  if (!view) return t("wait.loading_game");
  if (cmd === "who") return who(store, notebook);
  if (cmd === "votes") return votes(store);
  if (cmd === "time") return time(store);
  if (cmd === "role") return role(store, notebook, prompt);
  if (cmd === "last") return last(store, args[0]);
  if (cmd === "pass") return act(store, send, { do: "pass" }, t("cmd.passed"));
  if (cmd === "unvote") return act(store, send, { do: "vote", target: null }, t("cmd.unvoted"));
  const power = cmd === "use" ? args.shift() : "vote";
  const target = seatFrom(store, args.join(" "));
  if (target === null) return t("cmd.which_seat", { word: args.join(" ") || "?" });
  return act(store, send, { do: power, target }, t("cmd.done", { target: seatName(target) }));
}
