// What the announcer says about a batch of events beyond the banners and result cards:
// votes, withdrawals, passes, tally changes and chat the player cannot see on screen (a
// private thread not open, the chat while the phone shows the table), at the verbosity of
// srmode.js. Everything comes from the events and the view this seat already receives.

import { seatName, t } from "./i18n.js";
import { eventText } from "./log.js";
import { srMode, verbosity } from "./srmode.js";

const VOTES = new Set(["vote_cast", "vote_withdrawn", "trusis_vote", "trusis_vote_withdrawn"]);
/** Said already by the banner or a result card (tablescreen.js). */
const ELSEWHERE = new Set([
  "phase_started", "died", "revived", "nobody_killed", "quiet_night", "stalemate", "phase_limit", "operator_draw",
  "vote_killed", "game_over", "sweep_result", "foresee_result", "gravekeeper_result", "gravedigger_result",
]);
/** Who plays a seat changed (R52, R53, D29): a player left, a bot took the seat, the player
 * came back. Rare, and it changes who is at the table: said from the normal verbosity on. */
const PRESENCE = new Set(["left", "replaced", "returned"]);
const MOST = 12; // a resumed connection's backlog is not read out in full (/last reads it)

/** The vote counts that changed within one phase, as one sentence (or none). */
function tally(before, after) {
  // A game over has no tally: its counts are emptied, not 0 votes each.
  if (after?.status !== "running") return [];
  if (!before || !after || before.phase?.kind !== after.phase?.kind || before.phase?.number !== after.phase?.number) return [];
  const was = before.vote_counts || {};
  const now = after.vote_counts || {};
  const seats = [...new Set([...Object.keys(was), ...Object.keys(now)])].map(Number).sort((a, b) => a - b);
  const changed = seats.filter((s) => (was[String(s)] || 0) !== (now[String(s)] || 0));
  if (!changed.length) return [];
  const night = after.phase?.kind === "night";
  const parts = changed.map((s) => t(night ? "sr.kill_tally_seat" : "sr.tally_seat", { seat: seatName(s), count: now[String(s)] || 0 }));
  return [t("sr.tally", { tally: parts.join(", ") })];
}

/** Lines to announce for one batch; `showing(line)` tells whether a chat line is on screen. */
export function spoken(store, change, { showing }) {
  const level = verbosity();
  const sr = srMode();
  const me = store.seat;
  const lines = [];
  for (const e of change.events || []) {
    const p = e.params || {};
    if (e.code === "said" || e.code === "whispered") {
      if (p.seat === me) continue;
      if (store.blocked?.has(p.seat)) continue;  // a blocked player is not heard either (D33)
      const whisper = e.code === "whispered";
      if (level === "brief" && !whisper) continue;
      // In the usual mode the chat box on screen is a live log and reads its own lines.
      if (!sr && showing({ from: p.seat, to: p.to ?? null })) continue;
      lines.push(t(whisper ? "sr.whispered" : "sr.said", { seat: seatName(p.seat), text: p.text }));
    } else if (ELSEWHERE.has(e.code) || level === "brief") {
      continue;
    } else if (VOTES.has(e.code) || PRESENCE.has(e.code) || (e.code === "passed" && !p.auto)) {
      lines.push(eventText(e));
    } else if (level === "full") {
      lines.push(eventText(e));
    }
  }
  if (level !== "brief") lines.push(...tally(change.before, store.view));
  return lines.length > MOST ? [t("sr.backlog", { count: lines.length }), ...lines.slice(-MOST)] : lines;
}
