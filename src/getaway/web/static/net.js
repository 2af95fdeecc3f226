// HTTP API and the room's WebSocket (docs/web.md): reconnects with backoff, sending `since`.
// Both tell the server the page's language, so even errors before a socket's hello are translated.

import { currentLang } from "./i18n.js";

export class ApiError extends Error {
  constructor(code, message, status) {
    super(message || code);
    this.code = code;
    this.status = status;
  }
}

/** fetch JSON; a 4xx/5xx answer throws ApiError with the server's {"error": {code, message}}.
 * A string `body` is sent as it is (JSON text already: see `jsonText`). With `raw`, the answer's
 * text is returned unparsed (a record's 128-bit seed does not survive a JavaScript number). */
export async function api(method, path, body, token, { raw = false } = {}) {
  const headers = { "Accept-Language": currentLang() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let r;
  try {
    const sent = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    r = await fetch(path, { method, headers, body: sent });
  } catch (e) {
    throw new ApiError("network", null, 0);
  }
  const text = await r.text();
  let data = null;
  try { data = JSON.parse(text); } catch (e) { /* not JSON */ }
  if (!r.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(err.code || `http_${r.status}`, err.message, r.status);
  }
  return raw ? text : data;
}

/** A JSON object's text from `fields`, each value JSON already (a string: put in as it is) or
 * a plain value: a game record's text goes in unparsed, its big integers exact. */
export function jsonText(fields) {
  return "{" + Object.entries(fields).map(([k, v]) => `${JSON.stringify(k)}:${v && v.json !== undefined ? v.json : JSON.stringify(v ?? null)}`).join(",") + "}";
}

export const tokenKey = (code) => `getaway.token.${code}`;
export const hostKey = (code) => `getaway.host.${code}`;

/** The close code of a server that is stopping or handing its rooms over (1012 "service
 * restart"): reconnect at once, to another process behind the front, without showing a lost
 * connection (docs/web.md, "Behind a front"). */
export const RESTART_CLOSE = 1012;

/**
 * One room's socket. `hello()` returns the first message's fields (token or spectate, lang,
 * since); `onmessage(msg)` gets every server message; `onstate(s)` gets "connecting",
 * "resuming" (reconnecting at once after a RESTART_CLOSE: nothing to show), "open", "waiting"
 * (a reconnect is scheduled) or "stopped".
 */
export class RoomSocket {
  constructor(code, { hello, onmessage, onstate }) {
    this.code = code;
    this.hello = hello;
    this.onmessage = onmessage;
    this.onstate = onstate;
    this.ws = null;
    this.stopped = false;
    this.attempt = 0;
    this.timer = null;
    this.pinger = null;
    this.retryAt = 0;
  }

  connect(resuming = false) {
    this.stopped = false;
    clearTimeout(this.timer);
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(this.code)}?lang=${currentLang()}`);
    this.ws = ws;
    this.onstate(resuming ? "resuming" : "connecting");
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", ...this.hello() }));
      this.onstate("open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "welcome" || msg.type === "sync") this.attempt = 0;
      this.onmessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) { this.onstate("stopped"); return; }
      if (ev.code === RESTART_CLOSE && this.attempt === 0) {
        // The process is stopping: at once (within 250 ms, so that its pages do not all arrive in
        // the same instant), and quietly: the seat and cards come back with the welcome. Once
        // until the next welcome: a second one in a row takes the backoff below.
        this.attempt = 1;
        this.timer = setTimeout(() => this.connect(true), 250 * Math.random());
        return;
      }
      // Backoff: 0.5 s, 1 s, 2 s … up to 15 s, with some jitter so a room does not reconnect in step.
      const delay = Math.min(15000, 500 * 2 ** this.attempt) * (0.8 + 0.4 * Math.random());
      this.attempt += 1;
      this.retryAt = Date.now() + delay;
      this.timer = setTimeout(() => this.connect(), delay);
      this.onstate("waiting");
    };
  }

  /** Send a message now; false when the socket is not open (the caller keeps its state). */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Close for good (no reconnect). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    this.onstate("stopped");
  }

  /** Drop the socket and reconnect at once: the server answers the new hello with the whole
   * state (used when an update does not fit what we hold). */
  resync() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    ws.onclose = null;
    clearInterval(this.pinger);
    ws.close();
    this.connect();
  }

  /** Reconnect now (a "retry" button, or the page came back online). */
  retryNow() {
    if (this.ws || this.stopped) return;
    this.connect();
  }
}
