// Refusals and errors, rendered from their code and parameters in the player's language.

import { capital, hasMsg, msg, t } from "./i18n.js";

/** {code, params, message} (HTTP or WebSocket) as a sentence. */
export function errorText(err) {
  const code = String(err?.code || "");
  const params = err?.params || {};
  if (hasMsg(code)) return capital(msg(code, params));
  if (hasMsg(`refusal.${code}`)) return capital(msg(`refusal.${code}`, params));
  const key = `err.${code}`;
  const own = t(key, params);
  if (own !== key) return own;
  return err?.message ? String(err.message) : t("err.unknown");
}
