// The pages of issue 10, by address: a player's profile (/p/{id}), the leaderboard
// (/leaderboard) and a finished game's replay (/t/{id}/replay?seat=N&step=K).

import { LeaderboardScreen, ProfileScreen } from "./profile.js";
import { ReplayScreen } from "./replay.js";
import { ModerationScreen } from "./moderation.js";
import { NotifySettingsScreen } from "./notifysettings.js";
import { YourGamesScreen } from "./yourgames.js";

/** The screen for the current address, or null when it is not one of these pages. */
export function pageFor(app, where = location) {
  const path = where.pathname;
  let m = path.match(/^\/t\/([^/]+)\/replay\/?$/);
  if (m) return new ReplayScreen(app, decodeURIComponent(m[1]), new URLSearchParams(where.search));
  m = path.match(/^\/p\/([^/]+)\/?$/);
  if (m) return new ProfileScreen(app, decodeURIComponent(m[1]));
  if (/^\/leaderboard\/?$/.test(path)) return new LeaderboardScreen(app);
  if (/^\/moderation\/?$/.test(path)) return new ModerationScreen(app);
  if (/^\/settings\/notifications\/?$/.test(path)) return new NotifySettingsScreen(app);
  if (/^\/games\/?$/.test(path)) return new YourGamesScreen(app);
  return null;
}
