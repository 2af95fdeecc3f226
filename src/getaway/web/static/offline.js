// Offline play against bots (issue 25 item 6, docs/web.md "Offline"): when the server cannot be
// reached, "Play alone against bots" plays here, in the page: the worker (offline/worker.js)
// runs the game's own Python core and bots with Pyodide. One deal (punjab, 4 players), the
// human at seat 0; its record can be downloaded (and replayed or reviewed when back online).
//
// prepareOffline() (the lobby calls it while online) starts the worker, which keeps every file
// it will need in the Cache API; renderOffline() plays. <html data-offline> says how far the
// preparation is: preparing, ready or unavailable.
//
// Test ids: offline-status, offline-hand, offline-card (data-card, disabled unless legal),
// offline-action (data-action: take, pass, pickup), offline-trick, offline-last-trick,
// offline-seat-<i>, offline-result, offline-record (the download link), offline-again.
// <body data-status>: offline-starting, offline-playing, offline-over, offline-unavailable.

import { h, fill } from "./dom.js";
import { t, cardName } from "./i18n.js";
import { cardFace } from "./cards.js";

const BOT_PAUSE = 350; // ms between two bots' moves, so that a person can follow them
const PREPARE_AFTER = 5000; // ms on the lobby before the files of offline play are fetched
const STYLE = "/static/offline/offline.css";
const CALLS = ["take", "pass", "pickup"]; // the actions that are not cards

let worker = null;
let nextId = 1;
const waiting = new Map();

function theWorker() {
  if (worker) return worker;
  worker = new Worker("/static/offline/worker.js", { type: "module" });
  worker.onmessage = ({ data }) => {
    const pending = waiting.get(data.id);
    if (!pending) return; // progress
    waiting.delete(data.id);
    if (data.ok) pending.resolve(data.answer);
    else pending.reject(Object.assign(new Error(data.error.message), { code: data.error.code }));
  };
  worker.onerror = (e) => {
    e.preventDefault();
    for (const p of waiting.values()) p.reject(Object.assign(new Error(e.message || "worker"), { code: "offline_unavailable" }));
    waiting.clear();
    worker = null;
  };
  return worker;
}

function ask(kind, fields = {}) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    try { theWorker().postMessage({ id, kind, ...fields }); } catch (e) { waiting.delete(id); reject(e); }
  });
}

const mark = (s) => { document.documentElement.dataset.offline = s; };

/** While online: start the worker and let it keep the files of offline play (once; later
 * visits find them kept). Quiet: nothing is shown, a failure only marks <html data-offline>. */
export function prepareOffline() {
  if (document.documentElement.dataset.offline || !("caches" in window) || !window.Worker) return;
  if (navigator.connection && navigator.connection.saveData) return; // the user asked for less data
  mark("preparing");
  const start = () => ask("prepare").then(() => mark("ready"), () => mark("unavailable"));
  // after PREPARE_AFTER on the page, when it is idle: a glance at the lobby downloads nothing
  setTimeout(() => (window.requestIdleCallback ? requestIdleCallback(start, { timeout: 5000 }) : start()), PREPARE_AFTER);
}

/** Whether an error of the lobby (net.js ApiError) means the server cannot be reached. */
export function isUnreachable(e) {
  return !navigator.onLine || (e && (e.code === "network" || e.status === 0));
}

function ensureStyle() {
  if (document.querySelector(`link[href="${STYLE}"]`)) return;
  document.head.append(h("link", { rel: "stylesheet", href: STYLE }));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function randomHex(bytes) {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Play one deal against bots of `level` in `root`, offline; `back()` returns to the lobby. */
export async function renderOffline(root, { level = "medium", name = "", back } = {}) {
  ensureStyle();
  const setStatus = (s) => { document.body.dataset.status = s; };
  const seatName = (seat) => (seat === 0 ? t("You") : t("Bot {n}", { n: seat + 1 }));
  const status = h("p", { class: "status", "data-testid": "offline-status", role: "status", "aria-live": "polite" });
  const seats = h("ul", { class: "offline-seats" });
  const trick = h("div", { class: "offline-trick", "data-testid": "offline-trick", role: "list", "aria-label": t("Cards on the table") });
  const lastTrick = h("div", { class: "offline-trick last", "data-testid": "offline-last-trick", role: "list", "aria-label": t("Last trick") });
  const actions = h("div", { class: "actions" });
  const hand = h("div", { class: "offline-hand", "data-testid": "offline-hand", role: "group", "aria-label": t("Your hand") });
  const result = h("div", { class: "offline-result", "data-testid": "offline-result", hidden: true });
  fill(root, h("section", { class: "card-panel offline", "aria-labelledby": "offline-title" },
    h("h2", { id: "offline-title" }, t("Play alone against bots")),
    h("p", { class: "hint" }, t("Offline: this deal is played in your browser, by the same rules and bots.")),
    status, seats,
    h("h3", {}, t("Cards on the table")), trick,
    h("h3", {}, t("Last trick")), lastTrick,
    actions, h("h3", {}, t("Your hand")), hand, result));

  setStatus("offline-starting");
  status.textContent = t("Starting the offline game (the first start takes some seconds)…");
  let state;
  try {
    state = await ask("new", { level, name, seed: crypto.getRandomValues(new Uint32Array(1))[0], secret: randomHex(32) });
  } catch (e) {
    setStatus("offline-unavailable");
    status.textContent = t("Offline play is not available: open this page once while online, then try again.");
    return;
  }
  let busy = false;
  let shownTrick = [];

  const cardEl = (card, extra = {}) => h("span", { class: "offline-card", role: "listitem", "aria-label": cardName(card), ...extra }, cardFace(card));

  function leftActive(view) {
    for (let k = 1; k < view.players; k++) {
      const s = (view.seat + k) % view.players;
      if (!view.got_away[s]) return s;
    }
    return null;
  }

  function show(view) {
    const mine = view.to_act === view.seat && !view.outcome;
    if (view.outcome) status.textContent = t("The deal is over.");
    else if (mine && view.decision === "take") status.textContent = t("Take {name}'s hand, or pass?", { name: seatName(leftActive(view)) });
    else if (mine) status.textContent = view.trick.length ? t("Your turn: play a card.") : t("Your turn: lead a card.");
    else status.textContent = t(view.decision === "take" ? "{name} to take or pass" : "{name} to play", { name: seatName(view.to_act) });
    fill(seats, view.hand_sizes.map((n, s) => h("li", { "data-testid": `offline-seat-${s}`, class: s === view.to_act ? "to-act" : "" },
      h("strong", {}, seatName(s)), " · ", view.got_away[s] ? t("got away ({place})", { place: view.out_order.findIndex((g) => g.includes(s)) + 1 }) : t("Cards: {n}", { n }))));
    fill(trick, view.trick.map(({ card }) => cardEl(card)));
    const legal = new Set(mine ? view.legal_actions : []);
    fill(hand, (view.hand || []).map((card) => h("button", { type: "button", class: "offline-card", "data-testid": "offline-card",
      "data-card": card, "aria-label": cardName(card), disabled: !legal.has(card) || busy, onclick: () => move(card) }, cardFace(card))));
    const labels = { take: t("Take left hand"), pass: t("Pass"), pickup: t("Pick up") };
    fill(actions, CALLS.filter((a) => legal.has(a)).map((a) =>
      h("button", { type: "button", "data-testid": "offline-action", "data-action": a, disabled: busy, onclick: () => move(a) }, labels[a])));
  }

  // the cards of a trick that just ended stay in view under "Last trick"
  function follow(before, action, after) {
    if (!CALLS.includes(action)) {
      const played = [...before.trick.map((p) => p.card), action];
      if (after.trick.length < played.length) { shownTrick = played; fill(lastTrick, shownTrick.map((c) => cardEl(c))); }
    }
  }

  function finish(view) {
    setStatus("offline-over");
    const o = view.outcome;
    const loser = o.loser === null || o.loser === undefined ? t("Loser: none (drawn deal)")
      : o.loser === view.seat ? t("Loser: {name} (you)", { name: seatName(o.loser) }) : t("Loser: {name}", { name: seatName(o.loser) });
    const order = t("Order of getting away: {order}", { order: o.out_order.flat().map(seatName).join(", ") });
    result.hidden = false;
    fill(result, h("p", { "data-testid": "offline-loser" }, loser), h("p", {}, order), h("div", { class: "buttons" },
      h("a", { "data-testid": "offline-record", class: "button", download: "getaway-offline-deal.json", href: "#" }, t("Download the record")),
      h("button", { type: "button", class: "primary", "data-testid": "offline-again", onclick: () => renderOffline(root, { level, name, back }) }, t("Next deal")),
      back ? h("button", { type: "button", onclick: back }, t("Back to the lobby")) : null));
    ask("record").then(({ record_text: record }) => {
      const link = result.querySelector('[data-testid="offline-record"]');
      link.href = URL.createObjectURL(new Blob([record], { type: "application/json" }));
      link.dataset.ready = "true";
    }, () => { /* no record: the link stays without one */ });
  }

  const unavailable = () => {
    setStatus("offline-unavailable");
    status.textContent = t("Offline play is not available: open this page once while online, then try again.");
  };

  async function bots() {
    while (!state.over && !state.human_to_act) {
      await sleep(BOT_PAUSE);
      const before = state.view;
      try {
        state = await ask("bot");
      } catch (e) { unavailable(); return; } // the worker is gone (out of memory, closed)
      if (state.action) follow(before, state.action, state.view);
      show(state.view);
    }
    busy = false;
    show(state.view);
    if (state.over) finish(state.view); else setStatus("offline-playing");
  }

  async function move(action) {
    if (busy || !state.human_to_act) return;
    busy = true;
    show(state.view); // the hand is disabled at once: one move per turn
    const before = state.view;
    try {
      state = await ask("play", { action });
    } catch (e) { busy = false; show(state.view); return; } // refused: nothing changed
    follow(before, action, state.view);
    show(state.view);
    await bots();
  }

  setStatus("offline-playing");
  show(state.view);
  busy = true;
  await bots();
}
