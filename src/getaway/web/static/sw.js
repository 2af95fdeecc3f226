// The page's service worker (docs/web.md "Fonts, install, offline"), served at /sw.js (scope: the
// whole app) by getaway.web.routes.pages, which fills in BUILD (a hash of the static files: a new
// build is a new worker and a new cache, the old one deleted) and FILES ({url: sha-256 of its
// bytes, base64} for each file of the app shell; PRECACHE: the ones fetched at install).
//
// - The shell (index.html, the JS modules, CSS, fonts, cards, icons): from the cache when the
//   cached copy's bytes have the hash this build expects, else a fresh fetch (stored once its
//   hash matches): a missing, stale or corrupted entry is fetched again, never served.
// - Pages (/, /r/…, /learn, /replay): the network first, then the cached index.html (offline).
// - /api/ and the socket are never answered here: no API answer is ever cached (hidden cards).
const BUILD = "__BUILD__";
const FILES = __FILES__;
const PRECACHE = __PRECACHE__;
const CACHE = `getaway-shell-${BUILD}`;

async function digest(response) {
  const bytes = await response.clone().arrayBuffer();
  const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return btoa(String.fromCharCode(...sum));
}

async function fresh(url) {
  // The network's copy of a shell file, kept when its bytes are this build's.
  const response = await fetch(url, { cache: "no-cache" });
  try {
    if (response.ok && (await digest(response)) === FILES[url]) await (await caches.open(CACHE)).put(url, response.clone());
  } catch (e) { /* not kept: fetched again next time */ }
  return response;
}

async function shell(url) {
  try {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(url);
    if (hit && hit.ok && (await digest(hit)) === FILES[url]) return hit;
    if (hit) await cache.delete(url);
  } catch (e) { /* an unreadable cache: the network's copy */ }
  return fresh(url);
}

async function page(request) {
  let response;
  try {
    response = await fetch(request);
  } catch (e) {
    const cached = await shell("/").catch(() => null);
    if (cached) return cached;
    throw e;
  }
  try {  // every page is index.html: the offline copy follows the server's
    if (response.ok && (await digest(response)) === FILES["/"]) await (await caches.open(CACHE)).put("/", response.clone());
  } catch (e) { /* not kept: the next visit tries again */ }
  return response;
}

self.addEventListener("install", (event) => {
  // Each file on its own: one that fails now is fetched when the page asks for it.
  event.waitUntil(Promise.allSettled(PRECACHE.map((url) => shell(url))).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) return;
  if (request.mode === "navigate") event.respondWith(page(request));
  else if (url.search === "" && url.pathname in FILES) event.respondWith(shell(url.pathname));
});
