/* scorekeeper service worker (rendered by the server: asset URLs carry content hashes).
   - static assets: cache first, under a cache named after their versions; old caches removed;
   - pages (navigations): network first; the last copy is kept and shown read-only when offline,
     or when the network has not answered within SLOW_MS (a connection that connects but never
     answers: the page's live poll brings it up to date once an answer comes);
   - POSTs and htmx fragment requests are never answered from a cache. */
const VERSION = {{ version|tojson }};
const STATIC = "static-" + VERSION;
const PAGES = "pages-v1";  // also written by app.js (the page after each entry) and cleared at login
const ASSETS = {{ assets|tojson }};
const OFFLINE = {{ offline_url|tojson }};
const SLOW_MS = 5000;  // a page kept on the phone is shown after this long without an answer

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(STATIC).then((c) => c.addAll(ASSETS.concat([OFFLINE]))).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== STATIC && k !== PAGES).map((k) => caches.delete(k))))
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;  // entries always go to the server
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(caches.match(req).then((hit) => hit || fetch(req)));
    return;
  }
  if (req.mode !== "navigate" || req.headers.get("HX-Request")) return;
  let offlineKept = null;
  const network = fetch(req).then((res) => {
    // Pages only: a download opened by a link (the export zip) is not kept on the phone.
    const page = (res.headers.get("Content-Type") || "").startsWith("text/html");
    if (res.ok && res.type === "basic" && !res.redirected && page) {
      const copy = res.clone();
      caches.open(PAGES).then((c) => c.put(req, copy));
      offlineKept = offlineIn(res.clone());
    }
    return res;
  });
  event.respondWith(new Promise((resolve) => {
    let answered = false;
    const answer = (res) => { if (!answered) { answered = true; resolve(res); } };
    network.then(answer, () => caches.match(req).then((hit) => answer(hit ? marked(hit) : caches.match(OFFLINE))));
    // No answer yet: the kept copy, if there is one (else the network is waited for, as before).
    setTimeout(() => { if (!answered) caches.match(req).then((hit) => { if (hit) answer(marked(hit)); }); }, SLOW_MS);
  }));
  // The copy is still kept when the answer comes late.
  event.waitUntil(network.then(() => offlineKept).catch(() => null));
});

// The offline page speaks the pages' language: a page that comes in another language than the
// kept offline page (the language was switched since it was kept, at install) has it fetched
// again, in the language the server now answers in. One request per switch, none otherwise: a
// second page in that language, come while the first one's request is still on its way (the kept
// copy still in the old language), waits for that request instead of sending its own.
const langOf = (html) => (/<html[^>]*\slang="([^"]*)"/i.exec(html.slice(0, 500)) || [])[1];
const offlineFetches = {};  // by language, the request on its way
function offlineIn(res) {
  return Promise.all([res.text(), caches.open(STATIC)])
    .then(([html, c]) => c.match(OFFLINE).then((hit) => (hit ? hit.text() : ""))
      .then((kept) => {
        const lang = langOf(html);
        if (!lang || lang === langOf(kept)) return null;
        return offlineFetches[lang] ||= c.add(OFFLINE).finally(() => { delete offlineFetches[lang]; });
      }))
    .catch(() => null);
}

// A kept copy served for want of a network says so on its <html> (data-offline-copy): the page
// shows its offline banner by that, not by navigator.onLine alone, which can say "online" with no
// connection (a weak signal; a browser's emulated offline after a navigation).
function marked(hit) {
  const headers = new Headers(hit.headers);
  headers.delete("Content-Length");  // the body grows; it is text again (no encoding)
  headers.delete("Content-Encoding");
  return hit.text().then((html) => new Response(html.replace(/<html\b/i, "<html data-offline-copy"), {
    status: hit.status, headers,
  }));
}
