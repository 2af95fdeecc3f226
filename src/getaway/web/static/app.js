// Getaway in the browser: the lobby (/) and a room (/r/{code}). Plain ES modules, no build step.
// Protocol and API: docs/web.md. Every visible text goes through t() (i18n.js), whose table comes
// from GET /api/strings/{lang}; the msgids are listed in getaway/web/strings.py (UI_STRINGS).
//
// Test hooks (data-testid), for Playwright:
//   lobby:  name-input, profile, players, deals, bot-level, opt-<option> (variant checkboxes and
//           selects: opt-trump, opt-nopickup, opt-takes …), public, play-alone, create-room, code-input, go-room,
//           public-rooms (the panel), quick-play, public-list (items public-room-<code>, buttons join-public-<code>)
//   room:   join-form, name-input, seat-select, join, watch, seat-list (items seat-item-<i>),
//           share-link, copy-link, start (host only), room-code
//   table:  status (whose turn / what to do), table, seat-<i> (an opponent; hand-size-<i>,
//           absent-<i> countdown), trick (items trick-card with data-card, data-seat, data-mark
//           "tochoo"/"ruff"/"void"), trick-caption (who picked up / waste), waste, me, hand,
//           hand-card (data-card="10♥", data-legal="true"|"false"; a button: click or Enter plays),
//           take, pass, pickup, hint (the expert's move: hint-text), next-deal (host, between deals), outcome, loser, match-over, new-game,
//           rematch (a seat or the host, when the match is over),
//           log (narration lines, role=log), standings (rows standing-<seat>), deals (record-<i>
//           download links), lang (language select), rules-button, rules-panel, close-room (host,
//           in the header until the match is over), error (the last
//           error/notice), connection (shown while reconnecting), reconnect (retry button).
//   The <body> carries data-status (lobby, joining, connecting, lobby/playing/between_deals/
//   finished/closed from the room) and data-version (the last version applied).

import { h, fill, $ } from "./dom.js";
import { t, loadLang, initialLang, pickLang, currentLang, LANGUAGES } from "./i18n.js";
import { api, tokenKey, hostKey, RoomSocket } from "./net.js";
import { renderLobby } from "./lobby.js";
import { TableView, seatName } from "./table.js";
import { soundButton, speedSelect, speedName } from "./motion.js";
import { renderReplay, renderLearn } from "./learn.js";

const S = {
  code: null, token: null, hostToken: null, socket: null, conn: "idle",
  seat: null, room: null, view: null, version: null, log: [], logReset: true, dealShown: null,
  absent: {}, pending: false, isHost: false, history: null, historyFor: -1, spectate: false,
};
let tableView = null;
let leavePage = null; // the replay viewer's cleanup (its keyboard handler)
let joinPoll = null;
let noticeTimer = null;

const main = $("#main");
const header = $("#header");
const rulesPanel = $("#rules");
const notice = $("#notice");
const connBar = $("#connection");

/** sessionStorage key: this room is a solo rematch, to start as soon as its socket is welcomed. */
const soloKey = (code) => `getaway.solo.${code}`;

function go(path) {
  history.pushState(null, "", path);
  route();
}

function setBodyStatus(s) { document.body.dataset.status = s; }

function showError(message) {
  clearTimeout(noticeTimer);
  notice.textContent = message;
  notice.hidden = !message;
  if (message) noticeTimer = setTimeout(() => { notice.hidden = true; }, 7000);
}

// ---------- header: title, room code, language, rules ----------

function renderHeader() {
  const lang = h("select", { id: "lang", "data-testid": "lang", "aria-label": t("Language") },
    LANGUAGES.map(([code, name]) => h("option", { value: code, lang: code }, name)));
  lang.value = currentLang();
  lang.addEventListener("change", () => switchLang(lang.value));
  fill(header,
    h("a", { href: "/", class: "brand", onclick: (e) => { if (S.code) return; e.preventDefault(); } }, t("Getaway")),
    S.code ? h("span", { class: "room-code", "data-testid": "room-code", title: t("Room {code}", { code: S.code }) },
      h("span", { class: "sr-only" }, t("Room {code}", { code: S.code })), h("span", { "aria-hidden": "true" }, S.code)) : null,
    // The controls keep together at the right; on a phone too narrow for one line they wrap, as
    // one row, below the title (style.css .top .controls).
    h("span", { class: "controls" },
      S.code && S.isHost && S.room && !["finished", "closed"].includes(S.room.status)
        ? h("button", { type: "button", class: "ghost", "data-testid": "close-room", onclick: closeRoom }, t("Close the room"))
        : null,
      S.code ? soundButton() : null,
      S.code ? speedSelect((speed) => S.socket && S.socket.send({ type: "speed", speed })) : null,
      h("button", { type: "button", class: "ghost", "data-testid": "rules-button", "aria-expanded": String(!rulesPanel.hidden),
        "aria-controls": "rules", onclick: toggleRules }, t("Rules")),
      lang));
  document.title = S.code ? `${t("Getaway")} · ${S.code}` : t("Getaway");
  $(".skip").textContent = t("Skip to the game");
}

async function switchLang(code) {
  pickLang(code);
  await loadLang(code);
  S.socket && S.socket.send({ type: "lang", lang: code });
  renderHeader();
  if (!rulesPanel.hidden) loadRules();
  connState(S.conn);
  if (S.code) { tableView && tableView.destroy(); tableView = null; renderRoom(); } else renderLobby(main, { go, showError });
}

// ---------- rules side panel ----------

function toggleRules() {
  rulesPanel.hidden = !rulesPanel.hidden;
  renderHeader();
  if (!rulesPanel.hidden) { loadRules(); rulesPanel.focus(); } else $('[data-testid="rules-button"]').focus();
}

async function loadRules() {
  const rules = (S.view && S.view.rules) || (S.room && S.room.config) || {};
  const chosen = document.getElementById("profile"); // the lobby's profile select, if shown
  const profile = rules.profile || (chosen && chosen.value) || "punjab";
  const options = { ...(rules.options || {}) };
  for (const [k, v] of Object.entries(rules)) if (!["profile", "players", "options", "bot_level", "name", "deals"].includes(k)) options[k] = v;
  const query = new URLSearchParams({ profile, options: JSON.stringify(options) });
  const body = h("div", { class: "rules-text" }, t("Loading…"));
  // A room with takes between tricks (interject): its take window (docs/web.md "Takes").
  const config = (S.code && S.room && S.room.config) || null;
  const interject = rules.take_protocol === "interject" || (config && config.options && config.options.take_protocol === "interject");
  const takeNote = config && interject && rules.takes !== "off" ? h("p", { class: "hint", "data-testid": "take-window-rule" },
    t("Take window: between tricks, while you may take, a bot's lead waits {s} s (the countdown on the take control); your own lead ends it.",
      { s: config.take_window ?? 2.5 })) : null;
  fill(rulesPanel,
    h("div", { class: "rules-head" }, h("h2", { id: "rules-title" }, t("Rules")),
      h("button", { type: "button", class: "ghost", onclick: toggleRules, "aria-label": t("Close the rules") }, "✕")),
    takeNote, body);
  let data;
  try {
    const r = await fetch(`/api/rules/${currentLang()}?${query}`);
    const type = r.headers.get("content-type") || "";
    data = type.includes("json") ? await r.json() : await r.text();
  } catch (e) {
    data = t("The rules could not be loaded.");
  }
  fill(body, rulesToDom(data));
}

function rulesToDom(data) {
  // Accepts {sections: [{title, text}] | [[title, text]]}, {title, text}, {text} or plain text.
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const secs = data.sections || data.rules;
    const out = [];
    if (data.title) out.push(h("h3", {}, data.title));
    if (Array.isArray(secs)) {
      for (const s of secs) {
        const [title, text] = Array.isArray(s) ? s : [s.title ?? s.heading, s.text ?? s.body];
        out.push(h("h3", {}, title), paragraphs(text));
      }
      return out;
    }
    if (typeof data.text === "string") return out.concat(paragraphs(data.text));
    if (data.error) return paragraphs(data.error.message || data.error.code);
  }
  if (Array.isArray(data)) return rulesToDom({ sections: data });
  return paragraphs(String(data ?? ""));
}

function paragraphs(text) {
  return String(text ?? "").split(/\n\s*\n/).map((p) => {
    const m = p.match(/^#+\s*(.*)$/);
    return m ? h("h3", {}, m[1]) : h("p", {}, p.trim());
  });
}

// ---------- room: join form, waiting room, table ----------

async function openRoom(code) {
  S.code = code;
  S.token = localStorage.getItem(tokenKey(code));
  S.hostToken = localStorage.getItem(hostKey(code));
  if (S.token) connect({ token: S.token });
  else showJoin();
}

async function showJoin() {
  setBodyStatus("joining");
  clearInterval(joinPoll);
  let room;
  try {
    room = await api("GET", `/api/rooms/${encodeURIComponent(S.code)}`);
  } catch (e) {
    fill(main, h("section", { class: "card-panel" }, h("h2", {}, t("Room {code}", { code: S.code })),
      h("p", { role: "alert", "data-testid": "room-error" }, e.code === "room_not_found" || e.status === 404 ? t("There is no room with this code.") : e.message),
      h("a", { href: "/", class: "button" }, t("Back to the lobby"))));
    return;
  }
  S.room = room;
  const free = (room.seats || []).filter((s) => s.kind === "empty");
  const name = h("input", { id: "join-name", "data-testid": "name-input", autocomplete: "nickname",
    value: localStorage.getItem("getaway.name") || "", required: true });
  const seatSel = h("select", { id: "join-seat", "data-testid": "seat-select" },
    h("option", { value: "" }, t("first free seat")), free.map((s) => h("option", { value: s.seat }, t("Seat {n}", { n: s.seat + 1 }))));
  const canJoin = room.status === "lobby" && free.length > 0;
  const form = h("form", { class: "card-panel", "data-testid": "join-form", onsubmit: async (e) => {
    e.preventDefault();
    const n = name.value.trim();
    if (!n) { name.focus(); showError(t("Please enter your name.")); return; }
    localStorage.setItem("getaway.name", n);
    const body = { name: n };
    if (seatSel.value !== "") body.seat = Number(seatSel.value);
    try {
      const res = await api("POST", `/api/rooms/${encodeURIComponent(S.code)}/join`, body);
      localStorage.setItem(tokenKey(S.code), res.token);
      S.token = res.token;
      clearInterval(joinPoll);
      connect({ token: res.token });
    } catch (err) {
      showError(err.message);
    }
  } },
  h("h2", {}, t("Room {code}", { code: S.code })),
  roomSummary(room),
  seatList(room),
  canJoin ? [h("div", { class: "field" }, h("label", { for: "join-name" }, t("Your name")), name),
    h("div", { class: "field" }, h("label", { for: "join-seat" }, t("Seat")), seatSel)] : h("p", {}, t("No seat is free: you can watch.")),
  h("div", { class: "buttons" },
    canJoin ? h("button", { type: "submit", class: "primary", "data-testid": "join" }, t("Take a seat")) : null,
    h("button", { type: "button", "data-testid": "watch", onclick: () => { clearInterval(joinPoll); connect({ spectate: true }); } }, t("Watch as a spectator"))));
  fill(main, form);
  if (canJoin) name.focus();
  // Keep the seat list fresh while the visitor decides.
  joinPoll = setInterval(async () => {
    try {
      const r = await api("GET", `/api/rooms/${encodeURIComponent(S.code)}`);
      const list = form.querySelector('[data-testid="seat-list"]');
      if (list) list.replaceWith(seatList(r));
    } catch (e) { /* keep the old list */ }
  }, 4000);
}

function roomSummary(room) {
  const c = room.config || {};
  // take_protocol=interject is how every web room offers takes (docs/web.md "Takes"): not news
  const opts = Object.entries(c.options || {}).filter(([k, v]) => !(k === "take_protocol" && v === "interject"))
    .map(([k, v]) => (v === true ? k : `${k}=${v}`)).join(", ");
  return h("p", { class: "summary" }, t("{profile} · players: {players} · deals: {n}", { profile: c.profile ?? "?", players: c.players ?? room.seats.length, n: c.deals ?? room.deals ?? 1 }),
    opts ? ` · ${opts}` : "", c.bot_level ? ` · ${t("Bot level")}: ${t(c.bot_level)}` : "");
}

function seatList(room) {
  return h("ul", { class: "seat-list", "data-testid": "seat-list", "aria-label": t("Seats") },
    (room.seats || []).map((s) => h("li", { "data-testid": `seat-item-${s.seat}`, class: s.kind },
      h("span", { class: "seat-no" }, t("Seat {n}", { n: s.seat + 1 })), " ",
      h("strong", {}, s.kind === "empty" ? t("empty (a bot if nobody sits)") : seatName(room, s.seat)),
      s.kind === "bot" ? ` · ${t("bot")}` : "", s.host ? ` · ${t("host")}` : "",
      s.seat === S.seat ? ` · ${t("you")}` : "",
      s.kind === "human" && s.connected === false ? ` · ${t("away")}` : "")));
}

function connect(hello) {
  S.spectate = !!hello.spectate;
  if (S.socket) S.socket.stop();
  setBodyStatus("connecting");
  fill(main, h("p", { class: "loading" }, t("Connecting…")));
  S.socket = new RoomSocket(S.code, {
    hello: () => {
      const msg = { ...hello, lang: currentLang(), speed: speedName() };  // the room paces its bots at its slowest page's
      if (S.version !== null) msg.since = S.version;
      return msg;
    },
    onmessage: onMessage,
    onstate: connState,
  });
  S.socket.connect();
}

function connState(state) {
  S.conn = state;
  const lost = (state === "waiting" || state === "connecting") && S.version !== null;
  connBar.hidden = !lost;
  if (lost) {
    fill(connBar, t("Connection lost: reconnecting…"), " ",
      h("button", { type: "button", class: "ghost", "data-testid": "reconnect", onclick: () => S.socket && S.socket.retryNow() }, t("Retry now")));
  }
}

function onMessage(msg) {
  if ("turn_ends_in" in msg && !(msg.type === "update" && S.version !== null && msg.version < S.version)) {
    S.turnEnds = msg.turn_ends_in === null ? null : Date.now() / 1000 + msg.turn_ends_in;  // the turn timer (docs/web.md)
  }
  if ("take_ends_in" in msg && !(msg.type === "update" && S.version !== null && msg.version < S.version)) {
    // the take window a bot's lead waits for (docs/web.md "Takes"): its countdown on the take control
    S.takeEnds = msg.take_ends_in === null ? null : performance.now() / 1000 + msg.take_ends_in;
  }
  switch (msg.type) {
    case "welcome":
    case "sync":
      S.seat = msg.seat ?? null;
      S.hostSocket = !!msg.host;
      S.pending = false;
      S.version = msg.version ?? (msg.room && msg.room.version) ?? null;
      S.log = [];
      S.logReset = true;
      S.dealShown = msg.room ? msg.room.deal_index : null;
      if (msg.room && msg.room.status !== "lobby" && (msg.log || []).length) {
        S.log.push({ text: t("Deal {k} of {n}", { k: (msg.room.deal_index ?? 0) + 1, n: msg.room.deals ?? 1 }), heading: true });
      }
      pushLog(msg.log);
      S.settled = true;  // a page load or a reconnect: the cards on the table are shown in place, not flown in
      S.illegal = msg.illegal || [];
      applyState(msg.room, msg.view);
      S.settled = false;
      if (msg.room && msg.room.status === "lobby" && sessionStorage.getItem(soloKey(S.code))) {
        sessionStorage.removeItem(soloKey(S.code));
        startMatch();
      }
      break;
    case "update":
      if (S.version !== null && msg.version !== undefined && msg.version < S.version) return; // already applied
      if (S.version !== null && msg.version === S.version) {
        // Same version: only who is connected changed (a socket came or went); no new events.
        applyState(msg.room);
        break;
      }
      if (msg.view && msg.view.history === undefined) {
        // An update carries only the new events; the view's history is ours plus them (a new
        // deal starts it afresh). A count that differs means we missed something: reconnect
        // for a full sync rather than show a wrong table.
        const sameDeal = S.view && S.view.history && S.room && msg.room && S.room.deal_index === msg.room.deal_index;
        msg.view.history = (sameDeal ? S.view.history : []).concat(msg.events || []);
        if (msg.history_length !== undefined && msg.view.history.length !== msg.history_length) {
          S.socket.resync();
          return;
        }
      }
      S.version = msg.version ?? S.version;
      if (msg.room && msg.room.deal_index !== S.dealShown && msg.room.deal_index !== undefined) {
        S.dealShown = msg.room.deal_index;
        const n = msg.room.deals ?? (msg.room.config && msg.room.config.deals) ?? 1;
        S.log.push({ text: t("Deal {k} of {n}", { k: msg.room.deal_index + 1, n }), heading: true });
      }
      pushLog(msg.log);
      firedTake(msg.events);
      S.pending = false;
      S.illegal = msg.illegal || [];
      applyState(msg.room, msg.view);
      break;
    case "hint":
      tableView && tableView.showHint(msg);
      break;
    case "chat":
      tableView && tableView.chat.heard(msg);
      break;
    case "absent":
      S.absent[msg.seat] = msg.deadline;
      render();
      break;
    case "error":
      S.pending = false;
      // Both players asked at once: the other ask made the room, and the server moves this
      // socket there too (its own "rematch" message): nothing went wrong for this person.
      if (msg.code === "rematch_made") { render(); break; }
      showError(msg.message || msg.code);
      if (msg.code === "bad_token") {
        localStorage.removeItem(tokenKey(S.code));
        S.token = null;
        S.socket.stop();
        showJoin();
        return;
      }
      if (msg.code === "room_not_found" || msg.code === "room_closed") { S.socket.stop(); roomGone(msg.message); return; }
      render();
      break;
    case "rematch":
      // The rematch room of this finished match: this socket's own new seat (and host) token.
      if (msg.token) localStorage.setItem(tokenKey(msg.code), msg.token);
      if (msg.host_token) localStorage.setItem(hostKey(msg.code), msg.host_token);
      S.rematchAsked = false;
      showError("");
      // A solo rematch (one human with bots) deals at once: nobody else is to wait for in its lobby.
      if (S.room && S.room.seats.filter((s) => s.kind === "human").length === 1) sessionStorage.setItem(soloKey(msg.code), "1");
      go(msg.url || `/r/${msg.code}`);
      break;
    case "closed":
      S.socket.stop();
      roomGone(t("The room is closed."));
      break;
    default:
      break;
  }
}

function pushLog(lines) {
  for (const line of lines || []) S.log.push({ text: typeof line === "string" ? line : line.text ?? JSON.stringify(line) });
}

function applyState(room, view) {
  if (room) S.room = room;
  if (view !== undefined) S.view = view;
  const seats = (S.room && S.room.seats) || [];
  S.isHost = !!S.hostToken || !!S.hostSocket || (S.seat !== null && !!(seats[S.seat] && seats[S.seat].host));
  const headerKey = `${S.isHost}|${S.room && S.room.status}`;  // the header's close button follows them
  if (headerKey !== S.headerKey) { S.headerKey = headerKey; renderHeader(); }
  for (const s of seats) if (s.connected === true || s.bot_playing || s.kind !== "human") delete S.absent[s.seat];
  takeIfArmed();
  document.body.dataset.version = S.version ?? "";
  // Fetch the match history when a deal has finished (losers per deal, for the records list).
  const done = (S.room.deal_index ?? 0) + (S.view && S.view.outcome ? 1 : 0);
  if (done > 0 && done !== S.historyFor) {
    S.historyFor = done;
    api("GET", `/api/rooms/${encodeURIComponent(S.code)}/history`).then((hist) => {
      const deals = (hist && (hist.deals || hist.history)) || (Array.isArray(hist) ? hist : null);
      if (deals) { S.history = deals; render(); }
    }).catch(() => {});
  }
  render();
}

/** An armed take ("take at the next chance") is sent as soon as the take is legal (docs/web.md "Takes"). */
function takeIfArmed() {
  const v = S.view;
  if (!S.armedTake || !v || S.pending) return;
  if (v.outcome || (S.seat !== null && v.got_away[S.seat])) { S.armedTake = false; return; }
  if (v.decision === "play" && !v.trick.length && v.legal_actions.includes("take")) {
    S.armedTake = false;
    S.armedFired = true;
    localStorage.setItem("getaway-take-explained", "1");
    sendAct("take");
  }
}

/** The narration says when an armed take fired: "You took B's hand" (the take event of our seat). */
function firedTake(events) {
  if (!S.armedFired) return;
  for (const e of events || []) {
    if (e.kind === "take" && e.seat === S.seat && e.other !== undefined) {
      S.armedFired = false;
      const name = seatName(S.room, e.other);
      S.log.push({ text: t("Your armed take fired: you took {name}'s hand.", { name }), fired: true });
    }
  }
}

function roomGone(message) {
  setBodyStatus("closed");
  tableView && tableView.destroy();
  tableView = null;
  fill(main, h("section", { class: "card-panel" }, h("p", { role: "alert" }, message),
    h("a", { href: "/", class: "button" }, t("Back to the lobby"))));
}

function render() {
  if (!S.room) return;
  setBodyStatus(S.room.status);
  renderRoom();
}

function renderRoom() {
  if (!S.room) return;
  if (S.room.status === "lobby") {
    tableView && tableView.destroy();
    tableView = null;
    renderWaiting();
    return;
  }
  if (!tableView || !main.contains(tableView.el)) {
    tableView = new TableView(main, {
      act: sendAct,
      next: () => send({ type: "next" }),
      hint: () => send({ type: "hint" }),
      chat: (phrase) => send({ type: "chat", phrase }),
      back: () => send({ type: "back" }),
      finish: () => send({ type: "finish" }),
      rematch: () => { S.rematchAsked = true; send({ type: "rematch" }); render(); },
      armTake: (on) => { S.armedTake = on; render(); },
      notice: showError,
    });
  }
  tableView.update(S);
}

function send(msg) {
  if (!S.socket || !S.socket.send(msg)) showError(t("Not connected: try again in a moment."));
}

function sendAct(action) {
  if (S.pending) return;
  if (!S.socket || !S.socket.send({ type: "act", action, version: S.version })) {
    showError(t("Not connected: try again in a moment."));
    return;
  }
  S.pending = true;
  render();
}

function renderWaiting() {
  const room = S.room;
  const url = `${location.origin}/r/${room.code || S.code}`;
  const link = h("input", { id: "share", readonly: true, value: url, "data-testid": "share-link", onfocus: (e) => e.target.select() });
  const copied = h("span", { class: "hint", "aria-live": "polite" });
  fill(main, h("section", { class: "card-panel waiting" },
    h("h2", {}, t("Room {code}", { code: room.code || S.code })),
    roomSummary(room),
    h("div", { class: "field" }, h("label", { for: "share" }, t("Invite your friends with this link")),
      h("div", { class: "row" }, link, h("button", { type: "button", "data-testid": "copy-link", onclick: async () => {
        try { await navigator.clipboard.writeText(url); copied.textContent = t("Copied."); } catch (e) { link.select(); }
      } }, t("Copy")), copied)),
    seatList(room),
    S.seat === null ? h("p", {}, t("You are watching.")) : null,
    h("p", { class: "status", "data-testid": "status" }, S.isHost ? t("Start when everyone is seated: empty seats are played by bots.") : t("Waiting for the host to start.")),
    S.isHost ? h("button", { type: "button", class: "primary", "data-testid": "start", onclick: startMatch }, t("Start the match")) : null));
}

async function closeRoom() {
  if (!window.confirm(t("Close this room for everyone? It cannot be opened again."))) return;
  try {
    await api("POST", `/api/rooms/${encodeURIComponent(S.code)}/close`, undefined, S.hostToken || S.token);
  } catch (e) {
    showError(e.message);
  }
}

async function startMatch() {
  if ((S.hostSocket || (S.seat !== null && S.room.seats[S.seat] && S.room.seats[S.seat].host)) && S.socket && S.socket.send({ type: "start" })) return;
  try {
    await api("POST", `/api/rooms/${encodeURIComponent(S.code)}/start`, undefined, S.hostToken || S.token);
  } catch (e) {
    showError(e.message);
  }
}

// ---------- routing ----------

function route() {
  clearInterval(joinPoll);
  if (S.socket) { S.socket.stop(); S.socket = null; }
  tableView && tableView.destroy();
  tableView = null;
  Object.assign(S, { code: null, seat: null, room: null, view: null, version: null, log: [], logReset: true, absent: {}, pending: false, history: null, historyFor: -1, armedTake: false, turnEnds: null });
  const m = location.pathname.match(/^\/r\/([^/]+)\/?$/);
  connBar.hidden = true;
  if (leavePage) { leavePage(); leavePage = null; }
  if (location.pathname === "/replay") {
    setBodyStatus("replay");
    renderHeader();
    leavePage = renderReplay(main, { showError });
  } else if (location.pathname === "/learn") {
    setBodyStatus("learn");
    renderHeader();
    renderLearn(main, { showError });
  } else if (m) {
    S.code = decodeURIComponent(m[1]).toUpperCase();
    renderHeader();
    openRoom(S.code);
  } else {
    setBodyStatus("lobby");
    renderHeader();
    renderLobby(main, { go, showError });
  }
}

window.addEventListener("popstate", route);
window.addEventListener("online", () => S.socket && S.socket.retryNow());
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !rulesPanel.hidden) toggleRules();
});
setInterval(() => tableView && tableView.tick(), 1000);

await loadLang(await initialLang());
route();
