// The offline table's worker (docs/web.md "Offline"): Pyodide (npm `pyodide`, vendored in
// ./pyodide/) runs the game's own Python core and bots (the zip GET /offline/files.json names,
// built by the server from its package files: getaway.web.routes.offline), so that a deal
// against bots plays with no network, by the same rules and bots as the server.
//
// Every file comes through the Cache API (cache first, then the network, kept once under
// "getaway-offline-<version>", each checked against files.json's SHA-256), so that a worker
// started while the network is gone still finds them; a copy a service worker keeps is used too.
//
// Messages in (postMessage): {id, kind: "prepare"} (fetch and keep the files; no Python yet),
// then {id, kind: "new" | "view" | "play" | "bot" | "record", ...}: getaway.web.offline.answer's
// messages, passed as JSON. Out: {id, ok: true, answer} or {id, ok: false, error: {code, message}}.
// Also {kind: "progress", loaded, total} (bytes) while preparing.

const MANIFEST = "/offline/files.json";
const PYODIDE = new URL("/static/offline/pyodide/", self.location.href).href;
const PREFIX = "getaway-offline-";

let manifest = null;   // files.json, from the network or the cache
let python = null;     // the promise of getaway.web.offline.answer (a Python function)
const netFetch = self.fetch.bind(self);

/** files.json: the network's (kept), else the kept one (offline). */
async function loadManifest() {
  if (manifest) return manifest;
  try {
    const r = await netFetch(MANIFEST, { cache: "no-cache" });
    if (!r.ok) throw new Error(`${MANIFEST}: HTTP ${r.status}`);
    manifest = await r.clone().json();
    await (await caches.open(PREFIX + manifest.version)).put(MANIFEST, r);
  } catch (e) {
    const kept = await caches.match(MANIFEST);
    if (!kept) throw new Error("offline play was not prepared while online");
    manifest = await kept.json();
  }
  return manifest;
}

async function sha256(response) {
  const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", await response.arrayBuffer()));
  return [...sum].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The response of `url`: this version's cached copy; else another cache's (a service worker's,
 * the previous version's) when its bytes have files.json's hash; else the network's, checked
 * against that hash, then kept. A stale or corrupted copy is never used. */
async function cached(url) {
  const absolute = new URL(url, self.location.href).href;
  const { version, files } = await loadManifest();
  const cache = await caches.open(PREFIX + version);
  const hit = await cache.match(absolute);
  if (hit) return hit;
  const entry = files.find((f) => new URL(f.url, self.location.href).href === absolute);
  const other = entry ? await caches.match(absolute) : null;
  if (other && (await sha256(other.clone())) === entry.sha256) {
    await cache.put(absolute, other.clone());
    return other;
  }
  const r = await netFetch(absolute, { cache: "no-cache" });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  if (entry && (await sha256(r.clone())) !== entry.sha256) throw new Error(`${url}: not the bytes files.json lists`);
  await cache.put(absolute, r.clone());
  return r;
}

/** Keep every file of files.json (the first visit, online); drop the caches of older versions. */
async function prepare() {
  const { version, files } = await loadManifest();
  const total = files.reduce((n, f) => n + f.bytes, 0);
  let loaded = 0;
  for (const f of files) {
    await cached(f.url);
    loaded += f.bytes;
    self.postMessage({ kind: "progress", loaded, total });
  }
  for (const name of await caches.keys()) {
    if (name.startsWith(PREFIX) && name !== PREFIX + version) await caches.delete(name);
  }
  return { version, bytes: total, files: files.length };
}

/** A module from the cache, imported through a blob URL (import() itself skips the Cache API). */
async function importCached(url) {
  const blob = new Blob([await (await cached(url)).arrayBuffer()], { type: "text/javascript" });
  const href = URL.createObjectURL(blob);
  try { return await import(href); } finally { URL.revokeObjectURL(href); }
}

async function startPython() {
  const { package: zipUrl } = await loadManifest();
  // Pyodide fetches its wasm, its standard library and its lock file with fetch(): from the cache
  self.fetch = async (input, init) => {
    const url = typeof input === "string" || input instanceof URL ? String(input) : input.url;
    if (new URL(url, self.location.href).origin !== self.location.origin) return netFetch(input, init);
    return cached(url);
  };
  const { loadPyodide } = await importCached(PYODIDE + "pyodide.mjs");
  const asm = await importCached(PYODIDE + "pyodide.asm.mjs");
  const pyodide = await loadPyodide({ indexURL: PYODIDE, createPyodideModule: asm.default, stdout: () => {}, stderr: () => {} });
  const zip = await (await cached(zipUrl)).arrayBuffer();
  pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/offline" });
  pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide/offline')");
  return pyodide.pyimport("getaway.web.offline").answer;
}

self.onmessage = async ({ data }) => {
  const { id, kind } = data || {};
  try {
    let answer;
    if (kind === "prepare") answer = await prepare();
    else {
      if (!python) {
        python = startPython();
        python.catch(() => { python = null; }); // a failed start is tried again on the next message
      }
      answer = JSON.parse((await python)(JSON.stringify(data)));
      if (answer.error) { self.postMessage({ id, ok: false, error: answer.error }); return; }
    }
    self.postMessage({ id, ok: true, answer });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { code: "offline_unavailable", message: String(e && e.message || e) } });
  }
};
