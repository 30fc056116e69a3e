// The lobby's HTTP API (docs/protocol.md). Errors come back as {code, params, message}.

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.code || `http_${status}`;
    this.params = body?.params || {};
    this.field = body?.field;
  }
}

/**
 * One request. A GET that gets no answer in 8 s is tried again (twice): a connection that
 * went quiet must not freeze a screen; other methods are never sent twice.
 */
export async function api(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const tries = method === "GET" ? 3 : 1;
  let res;
  for (let attempt = 1; ; attempt += 1) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), method === "GET" ? 8000 : 20000);
    try {
      res = await fetch(path, { ...init, signal: abort.signal });
      break;
    } catch (err) {
      if (attempt >= tries) throw new ApiError(0, { code: "network", message: String(err) });
    } finally {
      clearTimeout(timer);
    }
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = { message: text }; }
  }
  if (!res.ok) {
    // FastAPI's own validation errors come as {"detail": [...]}.
    if (data && !data.code && data.detail) {
      const d = Array.isArray(data.detail) ? data.detail[0] : data.detail;
      data = { code: typeof d === "object" ? "bad_request" : String(d), message: JSON.stringify(data.detail) };
    }
    throw new ApiError(res.status, data);
  }
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);
export const del = (path) => api("DELETE", path);

/** Lists may come bare or wrapped ({"tables": [...]}, {"bots": [...]}). */
export function listOf(data, key) {
  if (Array.isArray(data)) return data;
  if (data && Array.isArray(data[key])) return data[key];
  if (data && Array.isArray(data.items)) return data.items;
  return [];
}
