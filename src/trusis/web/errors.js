// Refusals and errors, rendered from their code and parameters in the player's language.

import { clockTime } from "./dom.js";
import { hasMsg, lang, sentence, t, untilText } from "./i18n.js";

/** A duration in the player's language: "40 s", "3 min", "1 min 30 s". */
export function lapse(seconds) {
  const whole = Math.max(0, Math.round(Number(seconds) || 0));
  const m = Math.floor(whole / 60);
  const s = whole % 60;
  if (!m) return t("lapse.seconds", { n: s });
  return s ? t("lapse.both", { m, s }) : t("lapse.minutes", { n: m });
}

/** The parameters a refusal's sentence shows, made readable: the moments and durations of
 * `player_may_return` (D52) as this player's clock says them (`offset`: the server's clock
 * minus this browser's, in seconds). */
function readable(code, params, offset) {
  if (code !== "player_may_return") return params;
  return { ...params, since: clockTime(Number(params.since) - offset, lang()),
    until: clockTime(Number(params.until) - offset, lang()),
    wait: lapse(params.wait), away: lapse(params.away) };
}

/** {code, params, message} (HTTP or WebSocket) as a sentence. */
export function errorText(err, { offset = 0 } = {}) {
  const code = String(err?.code || "");
  const params = err?.params || {};
  if (code === "banned") return banText(params);
  if (hasMsg(code)) return sentence(code, params);
  if (hasMsg(`refusal.${code}`)) return sentence(`refusal.${code}`, params);
  const key = `err.${code}`;
  // A refusal that names its limit counts on it for its plural forms ("1 table", "5
  // tables"): t() chooses them on `count`.
  const own = t(key, { count: params.limit, ...readable(code, params, offset) });
  if (own !== key) return own;
  return err?.message ? String(err.message) : t("err.unknown");
}

/** Refusals that name the acting seat ("{seat} has already passed this phase"): said to the
 * player as "you" when the seat is their own. */
const ABOUT_YOU = new Set(["already_passed", "actor_dead", "actor_left", "already_left"]);

/**
 * A refusal of this player's own command, said to them: "You have already passed", not
 * "Ann (seat 2) has already passed". `away`: how the seat was played since the command was
 * made, while its player was away ("bot": a bot took it over; "self": it passed by itself),
 * which is why a command sent again on coming back is refused.
 */
export function refusalText(answer, { seat = null, away = null } = {}) {
  const code = String(answer?.code || "");
  const mine = seat !== null && seat !== undefined && Number(answer?.params?.seat) === Number(seat);
  if (mine && ABOUT_YOU.has(code)) {
    if (code === "already_passed" && away) return t(`you.already_passed_away_${away}`);
    return t(`you.${code}`);
  }
  return errorText(answer);
}

/** A ban as its player is told it (D53): "A moderator has banned you until 12 Mar 2027,
 * 18:40. Reason: …" (or "for good"), from the HTTP refusal's params or the `banned` frame. */
export function banText(ban) {
  const said = t("err.banned", { until: untilText(ban?.until ?? null) });
  return ban?.reason ? `${said} ${t("ban.reason", { reason: ban.reason })}` : said;
}
