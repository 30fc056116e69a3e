// The service worker of the browser's notifications (issue 37): it shows each push the
// server sends (its payload decrypted by the browser, RFC 8291) and opens its game when
// clicked. It reads nothing else, and shows nothing while a page of that game is in view.

self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch { data = {}; }
  const title = data.title || "Trusis";
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const url = data.url || "/";
    const path = new URL(url, self.location.origin).pathname;
    if (windows.some((w) => w.visibilityState === "visible" && new URL(w.url).pathname === path)) return;
    await self.registration.showNotification(title, {
      body: data.body || "", tag: data.tag || undefined, data: { url }, icon: "/static/favicon.svg",
    });
  })());
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data?.url || "/";
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const w of windows) {
      if (new URL(w.url).pathname === new URL(url, self.location.origin).pathname && "focus" in w) return w.focus();
    }
    return self.clients.openWindow(url);
  })());
});
