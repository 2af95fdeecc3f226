// Learning pages (issue 16): the replay viewer (/replay), the review of a seat, the lessons (/learn).
// All drawn with the live table's code (TableView); the server does the engine's work
// (POST /api/replay, /api/review, /api/lessons/{key}: getaway/web/learn.py).
//
// Test hooks (data-testid):
//   replay: replay-drop (file drop zone), replay-file (file input), replay-first, replay-back,
//           replay-forward, replay-last, replay-slider, replay-move ("Move k of n"), replay-seat
//           (select: all hands or a seat), replay-hands (every hand; items replay-hand-<seat>),
//           replay-link (shareable link), review-button, review (the review panel: review-chart,
//           review-row, review-goto-<index>)
//   learn:  lesson-list (items lesson-<key>, data-done="true" once finished), lesson-title,
//           lesson-goal, lesson-feedback (data-verdict), lesson-again, lesson-next

import { h, fill, svg } from "./dom.js";
import { t } from "./i18n.js";
import { api, jsonText } from "./net.js";
import { TableView, cardFace, cardText, BOT_MARK } from "./table.js";

const DONE_KEY = "getaway.lessons.done";
const noop = { act() {}, next() {}, hint() {}, notice() {} };

function roomOf(names, status) {
  const seats = names.map((name) => ({ name: name && !name.startsWith(BOT_MARK) ? name : null,
    kind: name && name.startsWith(BOT_MARK) ? "bot" : "human", connected: true }));
  return { seats, status, deal_index: 0, deals: 1, config: { hints: false }, standings: [] };
}

// ------------------------------------------------------------------ replay viewer

/** The replay viewer. `params`: URLSearchParams (room, deal, move, seat; review=1: the seat's
 * review begins at once, as the result panel's "Review this deal" asks). */
export function renderReplay(root, { showError }) {
  const params = new URLSearchParams(location.search);
  const R = { record: null, room: params.get("room"), deal: Number(params.get("deal") || 0), move: params.has("move") ? Number(params.get("move")) : null,
    seat: params.has("seat") && params.get("seat") !== "" ? Number(params.get("seat")) : null, frame: null, asked: 0 };
  const tableRoot = h("div", { class: "replay-table" });
  const moveLabel = h("span", { class: "replay-move", "data-testid": "replay-move", "aria-live": "polite" });
  const slider = h("input", { type: "range", min: "0", max: "0", value: "0", "data-testid": "replay-slider", "aria-label": t("Move") });
  slider.addEventListener("input", () => go(Number(slider.value)));
  const button = (id, label, text, to) => h("button", { type: "button", "data-testid": id, "aria-label": label, title: label, onclick: () => go(to()) }, text);
  const seatSelect = h("select", { "data-testid": "replay-seat", "aria-label": t("Whose cards") });
  seatSelect.addEventListener("change", () => { R.seat = seatSelect.value === "" ? null : Number(seatSelect.value); show(); });
  const hands = h("div", { class: "replay-hands", "data-testid": "replay-hands" });
  const link = h("a", { "data-testid": "replay-link", class: "replay-link" }, t("Link to this move"));
  const reviewBox = h("section", { class: "review", "data-testid": "review", hidden: true });
  // Present at once: with a seat chosen (the player's own, from the room's links) it reviews that
  // seat; with "All hands" it asks for a seat first.
  const reviewButton = h("button", { type: "button", "data-testid": "review-button", onclick: () => review() }, t("Review"));
  const controls = h("div", { class: "replay-controls" },
    button("replay-first", t("First move"), "|◀", () => 0),
    button("replay-back", t("Back"), "◀", () => cur() - 1),
    slider,
    button("replay-forward", t("Forward"), "▶", () => cur() + 1),
    button("replay-last", t("Last move"), "▶|", () => R.frame.moves),
    moveLabel, seatSelect, reviewButton, link);
  const file = h("input", { type: "file", accept: ".json,application/json", "data-testid": "replay-file" });
  file.addEventListener("change", () => file.files[0] && load(file.files[0]));
  const drop = h("div", { class: "replay-drop", "data-testid": "replay-drop" },
    h("p", {}, t("Drop a game record (.json) here to replay it, or choose the file:")), file);
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); if (e.dataTransfer.files[0]) load(e.dataTransfer.files[0]); });
  const viewer = h("div", { class: "replay", hidden: true }, controls, tableRoot, hands, reviewBox);
  fill(root, h("div", { class: "replay-page" }, h("h1", {}, t("Replay")), drop, viewer));
  let table = null;

  function onKey(e) {
    if (!R.frame || e.target.closest("input, select, textarea")) return;
    const to = { ArrowLeft: cur() - 1, ArrowRight: cur() + 1, Home: 0, End: R.frame.moves }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  }
  document.addEventListener("keydown", onKey);

  async function load(f) {
    // kept as text: a record's seed may be a 128-bit integer, which a JavaScript number rounds
    const record = await f.text();
    try {
      JSON.parse(record);
    } catch (e) {
      showError(t("This file is not a game record: it is not JSON."));
      return;
    }
    R.record = record; R.room = null; R.move = null; R.seat = null;
    await show();
  }

  // The move asked for last (the frame shown may still be on its way).
  function cur() { return R.move ?? (R.frame ? R.frame.moves : 0); }

  function go(move) {
    if (!R.frame) return;
    R.move = Math.max(0, Math.min(R.frame.moves, move));
    show();
  }

  async function show() {
    if (!R.record) return;
    let frame;
    const asked = ++R.asked;
    try {
      frame = await api("POST", "/api/replay", jsonText({ record: { json: R.record }, move: R.move, seat: R.seat }));
    } catch (e) {
      showError(e.message);
      return;
    }
    if (asked !== R.asked) return; // a later frame was asked for
    R.frame = frame;
    viewer.hidden = false;
    const names = frame.players;
    if (seatSelect.options.length !== names.length + 1) {
      fill(seatSelect, h("option", { value: "" }, t("All hands")),
        names.map((n, i) => { const seat = t("Seat {n}", { n: i + 1 }); return h("option", { value: String(i) }, n && n !== `Seat ${i + 1}` ? `${seat} · ${n}` : seat); }));
    }
    seatSelect.value = R.seat === null ? "" : String(R.seat);
    slider.max = String(frame.moves);
    slider.value = String(frame.move);
    moveLabel.textContent = t("Move {k} of {n}", { k: frame.move, n: frame.moves });
    const room = roomOf(names, "replay");
    if (!table) table = new TableView(tableRoot, noop);
    const view = { ...frame.view, legal_actions: [] };
    table.update({ room, view, seat: frame.seat, version: frame.move, settled: true, pending: true, illegal: [],
      log: frame.log.map((text) => ({ text })), logReset: true, absent: {}, history: null });
    fill(hands, frame.hands ? frame.hands.map((cards, s) => h("div", { class: "replay-hand", "data-testid": `replay-hand-${s}` },
      h("strong", {}, t("Seat {n}", { n: s + 1 })), " ", cards.length ? cards.map((c) => h("span", { class: "mini-card", "data-card": c }, cardFace(c))) : t("no cards")))
      : null);
    hands.hidden = !frame.hands;
    reviewButton.disabled = R.seat === null;
    reviewButton.title = R.seat === null ? t("Choose a seat to review") : "";
    const query = new URLSearchParams();
    if (R.room) { query.set("room", R.room); query.set("deal", String(R.deal)); }
    query.set("move", String(frame.move));
    if (R.seat !== null) query.set("seat", String(R.seat));
    const url = `${location.origin}/replay?${query}`;
    link.href = url;
    link.hidden = !R.room;
    if (R.room) history.replaceState(null, "", `/replay?${query}`);
  }

  async function review() {
    if (R.seat === null || !R.record) return;
    reviewBox.hidden = false;
    fill(reviewBox, h("p", {}, t("The expert is reviewing this deal (this takes a few seconds)…")));
    let data;
    try {
      const body = { record: { json: R.record }, seat: R.seat };
      if (window.__reviewIterations) body.iterations = window.__reviewIterations; // tests: a quicker review
      data = await api("POST", "/api/review", jsonText(body));
    } catch (e) {
      fill(reviewBox, h("p", {}, e.message));
      return;
    }
    fill(reviewBox, reviewPanel(data, (move) => go(move)));
  }

  if (R.room) {
    drop.hidden = true;
    api("GET", `/api/rooms/${encodeURIComponent(R.room)}/deals/${R.deal}/record`, undefined, undefined, { raw: true })
      .then(async (record) => { R.record = record; await show(); if (params.get("review") === "1" && R.seat !== null) review(); })
      .catch((e) => showError(e.message));
  }
  return () => document.removeEventListener("keydown", onKey);
}

/** The review: the chart of the seat's losing chance over its decisions (the move played), and
 * the table of decisions; each mistake links to its position in the replay (`goto(move)`). */
function reviewPanel(data, goto) {
  const ds = data.decisions.filter((d) => Object.keys(d.losses).length);
  const W = 600, H = 160, pad = 24;
  const x = (i) => pad + (ds.length > 1 ? (i * (W - 2 * pad)) / (ds.length - 1) : (W - 2 * pad) / 2);
  const y = (v) => H - pad - (v / 100) * (H - 2 * pad);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "review-chart", "data-testid": "review-chart", role: "img",
    "aria-label": t("Your losing chance over the deal, by the expert") });
  const el = (tag, attrs) => { const e = svg(tag, attrs); chart.append(e); return e; };
  for (const v of [0, 50, 100]) {
    el("line", { x1: pad, x2: W - pad, y1: y(v), y2: y(v), class: "grid" });
    el("text", { x: 2, y: y(v) + 4, class: "axis" }).textContent = `${v}%`;
  }
  el("polyline", { points: ds.map((d, i) => `${x(i)},${y(d.losses[d.played])}`).join(" "), class: "line" });
  ds.forEach((d, i) => {
    const dot = el("circle", { cx: x(i), cy: y(d.losses[d.played]), r: d.mark ? 6 : 3, class: `dot ${d.mark}` });
    if (d.mark) {
      dot.setAttribute("tabindex", "0");
      dot.setAttribute("role", "link");
      dot.setAttribute("aria-label", t("Move {k}: {played} ({mark})", { k: d.index + 1, played: d.played, mark: markText(d.mark) }));
      dot.addEventListener("click", () => goto(d.index));
    }
  });
  const rows = data.decisions.map((d) => {
    const has = Object.keys(d.losses).length > 0;
    const loss = (a) => has ? `${Math.round(d.losses[a])}% ±${Math.round(d.plus_minus[a])}` : t("not searched");
    return h("tr", { "data-testid": "review-row", "data-mark": d.mark || null, class: d.mark || "" },
      h("td", {}, h("a", { href: "#", "data-testid": `review-goto-${d.index}`, onclick: (e) => { e.preventDefault(); goto(d.index); } }, String(d.index + 1))),
      h("td", {}, actionText(d.played)), h("td", {}, loss(d.played)),
      h("td", {}, d.best === d.played ? "=" : actionText(d.best)), h("td", {}, d.best === d.played ? "" : loss(d.best)),
      h("td", {}, markText(d.mark)), h("td", {}, d.best === d.played ? "" : cardText(d.reason || "")));
  });
  return [
    h("h2", {}, t("Review of seat {n}", { n: data.seat + 1 })),
    h("p", {}, t("{decisions} decisions, {mistakes} mistake(s), {blunders} blunder(s)",
      { decisions: data.decisions.length, mistakes: data.mistakes, blunders: data.blunders })),
    chart,
    h("table", { class: "review-table" },
      h("thead", {}, h("tr", {}, [t("move"), t("played"), t("loses"), t("best"), t("loses"), t("mark"), t("why")].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, rows)),
  ];
}

function actionText(a) {
  return a === "pass" ? t("Pass") : a === "take" ? t("Take left hand") : a === "pickup" ? t("Pick up") : cardText(a);
}

function markText(mark) {
  return mark === "blunder" ? t("blunder") : mark === "mistake" ? t("mistake") : "";
}

// ------------------------------------------------------------------ lessons

function doneSet() {
  try { return new Set(JSON.parse(localStorage.getItem(DONE_KEY) || "[]")); } catch (e) { return new Set(); }
}

/** The tutorial: the list of lessons (finished ones marked), or one lesson (`?lesson=key`). */
export async function renderLearn(root, { showError }) {
  const params = new URLSearchParams(location.search);
  let lessons;
  try { lessons = await api("GET", "/api/lessons"); } catch (e) { showError(e.message); return; }
  const key = params.get("lesson");
  if (!key) {
    const done = doneSet();
    fill(root, h("div", { class: "learn-page" }, h("h1", {}, t("Learn to play")),
      h("ol", { class: "lesson-list", "data-testid": "lesson-list" }, lessons.map((l) => h("li", {},
        h("a", { href: `/learn?lesson=${encodeURIComponent(l.key)}`, "data-testid": `lesson-${l.key}`, "data-done": done.has(l.key) ? "true" : "false" },
          l.title), " ", h("span", { class: "badge" }, l.profile), done.has(l.key) ? h("span", { class: "badge done" }, `✓ ${t("done")}`) : null)))));
    return;
  }
  const next = lessons[lessons.findIndex((l) => l.key === key) + 1];
  const title = h("h1", { "data-testid": "lesson-title" });
  const goal = h("p", { class: "lesson-goal", "data-testid": "lesson-goal" });
  const feedback = h("p", { class: "lesson-feedback", "data-testid": "lesson-feedback", "aria-live": "assertive" });
  const after = h("div", { class: "lesson-after" });
  const tableRoot = h("div", {});
  fill(root, h("div", { class: "learn-page" }, h("a", { href: "/learn" }, t("All lessons")), title, goal, feedback, after, tableRoot));
  let table = null;
  let busy = false;

  async function draw(moves) {
    let s;
    try { s = await api("POST", `/api/lessons/${encodeURIComponent(key)}`, { moves }); } catch (e) { showError(e.message); return null; }
    title.textContent = s.title;
    fill(goal, cardText(s.goal));
    const room = roomOf(Array.from({ length: s.view.players }, () => ""), "lesson");
    const finished = s.verdict === "success" || s.verdict === "failure";
    const view = finished ? { ...s.view, legal_actions: [], to_act: null } : s.view;
    if (!table) table = new TableView(tableRoot, { ...noop, act: (a) => move(a) });
    // illegal: why a card may not be played now, said next to the hand when it is tapped (the table's refusal)
    table.update({ room, view, seat: s.seat, version: moves.length, settled: false, pending: finished, illegal: finished ? [] : s.illegal || [],
      log: s.log.map((text) => ({ text })), logReset: true, absent: {}, history: null });
    return s;
  }

  async function move(action) {
    if (busy) return;
    busy = true;
    const s = await draw([action]);
    busy = false;
    if (!s) return;
    fill(feedback, cardText(s.message));
    feedback.dataset.verdict = s.verdict;
    if (s.verdict === "illegal" || s.verdict === "wrong") { await draw([]); return; }
    const parts = [h("button", { type: "button", "data-testid": "lesson-again", onclick: () => { fill(after); fill(feedback); delete feedback.dataset.verdict; draw([]); } }, t("Try again"))];
    if (s.verdict === "success") {
      const done = doneSet();
      done.add(key);
      localStorage.setItem(DONE_KEY, JSON.stringify([...done]));
      parts.push(next ? h("a", { class: "button primary", href: `/learn?lesson=${encodeURIComponent(next.key)}`, "data-testid": "lesson-next" }, t("Next lesson"))
        : h("a", { class: "button primary", href: "/learn", "data-testid": "lesson-next" }, t("All lessons")));
    }
    fill(after, parts);
  }

  await draw([]);
}
