// The lobby page (/): create a room (private, or public: listed here), play alone against bots,
// quick play, join a public room from the list, join by code.

import { h, fill } from "./dom.js";
import { t, tStartingWith } from "./i18n.js";
import { api, tokenKey, hostKey } from "./net.js";
import { prepareOffline, renderOffline, isUnreachable } from "./offline.js";

const BOT_LEVELS = ["random", "easy", "medium", "hard", "expert"];

// The option schema (Rules.schema(), GET /api/rules/schema): every control below is built
// from it (choices, ranges, profile defaults, player ranges, exclusive pairs); labels are msgids.
let schemaCache = null;
async function loadSchema() {
  if (!schemaCache) schemaCache = await api("GET", "/api/rules/schema");
  return schemaCache;
}

// A choice between "nothing" and one value (trump: null or "spades") is a checkbox, as a bool.
const isSwitch = (spec) => spec.type === "bool" || (spec.type === "choice" && spec.choices.length === 2 && spec.choices[0] === null);
const switchValue = (spec) => (spec.type === "bool" ? true : spec.choices[1]);

function field(label, control, hint) {
  const id = control.id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("small", { class: "hint" }, hint) : null);
}

export async function renderLobby(root, { go, showError }) {
  let schema;
  try {
    schema = await loadSchema();
  } catch (e) {
    if (isUnreachable(e)) { offlineLobby(root, { go, showError }); return; } // no server: bots in the page
    showError(e.message);
    return;
  }
  prepareOffline();
  const specs = schema.options;
  const saved = JSON.parse(localStorage.getItem("getaway.lobby") || "{}");
  const savedOptions = saved.options || {};
  const name = h("input", { id: "name", "data-testid": "name-input", autocomplete: "nickname",
    value: localStorage.getItem("getaway.name") || "", placeholder: t("Your name") });
  const profile = h("select", { id: "profile", "data-testid": "profile" },
    specs.profile.choices.map((v, i) => h("option", { value: v }, t(specs.profile.choice_labels[i]))));
  profile.value = specs.profile.choices.includes(saved.profile) ? saved.profile : schema.profiles.punjab.defaults.profile;
  const players = h("select", { id: "players", "data-testid": "players" });
  const fillPlayers = () => {
    const { min: lo, max: hi } = schema.profiles[profile.value].players;
    const keep = Number(players.value || saved.players || schema.profiles[profile.value].defaults.players);
    fill(players, ...Array.from({ length: hi - lo + 1 }, (_, i) => h("option", { value: lo + i }, String(lo + i))));
    players.value = String(Math.min(hi, Math.max(lo, keep)));
  };
  fillPlayers();
  const deals = h("input", { id: "deals", "data-testid": "deals", type: "number", min: specs.deals.min, max: specs.deals.max,
    value: saved.deals || 1, inputmode: "numeric" });
  const level = h("select", { id: "level", "data-testid": "bot-level" }, BOT_LEVELS.map((l) => h("option", { value: l }, t(l))));
  level.value = BOT_LEVELS.includes(saved.bot_level) ? saved.bot_level : "medium";
  // One line on what the chosen level does (getaway.bots.LEVEL_HELP, served with the page's strings).
  const levelHelp = h("p", { class: "hint", id: "level-help", "data-testid": "bot-level-help", "aria-live": "polite" });
  const showLevel = () => { levelHelp.textContent = tStartingWith(`${level.value}: `); };
  level.setAttribute("aria-describedby", "level-help");
  level.addEventListener("change", showLevel);
  showLevel();
  // The hint (the expert's move on your own decision): the host may switch it off for the room.
  const hints = h("input", { type: "checkbox", id: "hints", "data-testid": "hints", checked: saved.hints !== false });
  // A public room is listed below (GET /api/rooms?public=1) until its seats are taken or it starts.
  const isPublic = h("input", { type: "checkbox", id: "public", "data-testid": "public", checked: saved.public === true });

  // Variants: check boxes; the other options: a select per choice ("" keeps the profile's
  // default), a number per whole number (a seat number: a select of the seats, counted from 1).
  const checks = {};
  const controls = {};
  const variantBoxes = [];
  const optionFields = [];
  for (const [key, spec] of Object.entries(specs)) {
    if (spec.group === "setup") continue;
    if (spec.group === "variant" && isSwitch(spec)) {
      const box = h("input", { type: "checkbox", id: `opt-${key}`, "data-testid": `opt-${key}`, checked: savedOptions[key] === switchValue(spec) });
      checks[key] = box;
      variantBoxes.push(h("div", { class: "check" }, box,
        h("label", { for: box.id }, t(spec.label), spec.hint ? h("small", { class: "hint" }, t(spec.hint)) : null)));
    } else if (spec.type === "choice" || (spec.type === "int" && spec.nullable)) {
      const values = spec.type === "choice" ? spec.choices.filter((v) => v !== null) : [];
      const sel = h("select", { id: `opt-${key}`, "data-testid": `opt-${key}` },
        h("option", { value: "" }, spec.type === "choice" ? t("profile default") : t(spec.hint || "profile default")),
        values.map((v) => h("option", { value: v }, t(spec.choice_labels[spec.choices.indexOf(v)]))));
      sel.value = savedOptions[key] === undefined || savedOptions[key] === null ? "" : String(savedOptions[key]);
      if (spec.type === "int") sel.dataset.want = sel.value; // filled with the seats by sync()
      controls[key] = sel;
      optionFields.push(field(t(spec.label), sel));
    } else if (spec.type === "int") {
      const input = h("input", { id: `opt-${key}`, "data-testid": `opt-${key}`, type: "number", min: spec.min, max: spec.max,
        value: savedOptions[key] ?? schema.profiles.punjab.defaults[key], inputmode: "numeric" });
      controls[key] = input;
      optionFields.push(field(t(spec.label), input));
    }
  }
  const current = (key) => {
    if (checks[key]) return checks[key].checked ? switchValue(specs[key]) : schema.profiles[profile.value].defaults[key];
    const c = controls[key];
    return c && c.value !== "" ? c.value : schema.profiles[profile.value].defaults[key];
  };
  const sync = () => {
    // A seat option lists the seats of the chosen number of players.
    for (const [key, spec] of Object.entries(specs)) {
      const sel = controls[key];
      if (!sel || spec.type !== "int" || !spec.nullable) continue;
      const keep = sel.dataset.want ?? sel.value;
      delete sel.dataset.want;
      const n = Math.min(spec.max, Number(players.value) - 1);
      fill(sel, h("option", { value: "" }, t(spec.hint || "profile default")),
        ...Array.from({ length: n - spec.min + 1 }, (_, i) => h("option", { value: spec.min + i }, t("Seat {n}", { n: spec.min + i + 1 }))));
      sel.value = keep !== "" && Number(keep) <= n ? keep : "";
    }
    // Values that cannot go together: checking one disables the others of its set.
    for (const c of [...Object.values(checks), ...Object.values(controls)]) c.disabled = false;
    for (const { options } of schema.exclusive) {
      const keys = Object.keys(options);
      for (const a of keys) if (checks[a] && checks[a].checked) for (const b of keys) if (b !== a && checks[b]) checks[b].disabled = true;
    }
    // An option that means something only with others' values is disabled without them.
    for (const [key, spec] of Object.entries(specs)) {
      const c = controls[key] || checks[key];
      if (c) c.disabled = c.disabled || Object.entries(spec.requires).some(([k, v]) => String(current(k)) !== String(v));
    }
  };
  for (const c of [players, ...Object.values(checks), ...Object.values(controls)]) c.addEventListener("change", sync);
  profile.addEventListener("change", () => { fillPlayers(); sync(); });
  sync();

  const busy = (on) => root.querySelectorAll("button").forEach((b) => { b.disabled = on; });

  function settings(withName) {
    const options = {};
    for (const [key, box] of Object.entries(checks)) if (box.checked && !box.disabled) options[key] = switchValue(specs[key]);
    for (const [key, c] of Object.entries(controls)) {
      if (c.disabled || c.value === "") continue;
      const spec = specs[key];
      const value = spec.type === "int" ? Number(c.value) : c.value;
      if (spec.type === "int" && !spec.nullable && value === schema.profiles[profile.value].defaults[key]) continue;
      options[key] = value;
    }
    const body = { profile: profile.value, players: Number(players.value), deals: deals.value === "" ? specs.deals.min : Number(deals.value), // out of range: the server says why
      options, bot_level: level.value, hints: hints.checked, public: isPublic.checked };
    localStorage.setItem("getaway.lobby", JSON.stringify(body));
    const n = name.value.trim();
    if (n) localStorage.setItem("getaway.name", n);
    if (withName) body.name = n;
    return body;
  }

  async function create(alone) {
    const body = settings(true);
    if (!body.name) { name.focus(); showError(t("Please enter your name.")); return; }
    busy(true);
    try {
      const room = await api("POST", "/api/rooms", body);
      localStorage.setItem(tokenKey(room.code), room.token);
      if (room.host_token) localStorage.setItem(hostKey(room.code), room.host_token);
      if (alone) await api("POST", `/api/rooms/${room.code}/start`, undefined, room.host_token || room.token);
      go(room.url || `/r/${room.code}`);
    } catch (e) {
      busy(false);
      if (alone && isUnreachable(e)) { playOffline(root, { go, showError }); return; }
      showError(e.message);
    }
  }

  const code = h("input", { id: "code", "data-testid": "code-input", autocapitalize: "characters", autocomplete: "off",
    spellcheck: "false", maxlength: 12, placeholder: "K7QX2M" });
  const joinForm = h("form", { class: "card-panel", "aria-labelledby": "join-title", onsubmit: (e) => {
    e.preventDefault();
    const c = code.value.trim().toUpperCase().replace(/^.*\/R\//, "");
    if (c) go(`/r/${encodeURIComponent(c)}`);
  } },
  h("h2", { id: "join-title" }, t("Join a room")),
  field(t("Room code"), code),
  h("button", { type: "submit", "data-testid": "go-room" }, t("Go to the room")));

  // novalidate: a value out of range is sent as typed, and the server's refusal names the limit
  const createForm = h("form", { class: "card-panel", "aria-labelledby": "create-title", novalidate: true, onsubmit: (e) => { e.preventDefault(); create(false); } },
    h("h2", { id: "create-title" }, t("New game")),
    field(t("Your name"), name),
    field(t(specs.profile.label), profile),
    h("div", { class: "row" }, field(t(specs.players.label), players), field(t(specs.deals.label), deals), field(t("Bot level"), level)),
    levelHelp, // under the row, so that a long line does not widen the select
    h("div", { class: "check" }, hints, h("label", { for: "hints" }, t("Hints allowed"))),
    h("div", { class: "check" }, isPublic, h("label", { for: "public" }, t("Public room: listed in the lobby, anyone may join"))),
    h("details", { class: "variants" },
      h("summary", {}, t("Variants and options")),
      h("fieldset", {}, h("legend", {}, t("Variants")), variantBoxes),
      optionFields),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "primary", "data-testid": "play-alone", onclick: () => create(true) }, t("Play alone against bots")),
      h("button", { type: "submit", "data-testid": "create-room" }, t("Create a room for friends"))),
    h("p", { class: "hint" }, t("Empty seats are played by bots. In a room for friends, share the link and start when everyone is seated.")));

  // Seated by the server: remember the seat's token (and the host's), then open the room.
  async function seated(request) {
    const n = name.value.trim();
    if (!n) { name.focus(); showError(t("Please enter your name.")); return; }
    localStorage.setItem("getaway.name", n);
    busy(true);
    try {
      const room = await request(n);
      localStorage.setItem(tokenKey(room.code), room.token);
      if (room.host_token) localStorage.setItem(hostKey(room.code), room.host_token);
      go(room.url || `/r/${room.code}`);
    } catch (e) {
      showError(e.message);
      busy(false);
    }
  }
  const quickPlay = () => seated((n) => api("POST", "/api/quickplay", { name: n }));
  const joinPublic = (code) => seated(async (n) => ({ code, ...(await api("POST", `/api/rooms/${encodeURIComponent(code)}/join`, { name: n })) }));

  const publicList = h("ul", { class: "public-rooms", "data-testid": "public-list", "aria-live": "polite" });
  const publicPanel = h("section", { class: "card-panel", "aria-labelledby": "public-title", "data-testid": "public-rooms" },
    h("h2", { id: "public-title" }, t("Public rooms")),
    h("button", { type: "button", class: "primary", "data-testid": "quick-play", onclick: quickPlay }, t("Quick play")),
    h("p", { class: "hint" }, t("Quick play seats you in a public room that is waiting for players, or opens one: empty seats are played by bots.")),
    publicList);

  function variantsOf(room) {
    return Object.entries(room.options || {}).filter(([key]) => specs[key]).map(([key, value]) => {
      const spec = specs[key];
      if (isSwitch(spec)) return t(spec.label);
      const i = spec.choices ? spec.choices.indexOf(value) : -1;
      return `${t(spec.label)}: ${i >= 0 && spec.choice_labels ? t(spec.choice_labels[i]) : value}`;
    });
  }
  function roomItem(room) {
    // who is there: the players' names, bots marked by their seat kind (a name cannot hold the mark)
    const who = room.seats.filter((s) => s.kind !== "empty").map((s) => (s.kind === "bot" ? `🤖 ${t("Bot {n}", { n: s.seat + 1 })}` : s.name));
    const variants = variantsOf(room);
    return h("li", { class: "public-room", "data-testid": `public-room-${room.code}`, "data-code": room.code },
      h("div", {},
        h("strong", {}, `${room.profile} · ${t("{n} players", { n: room.players })} · ${t("Free seats: {n}", { n: room.free })}`),
        h("p", { class: "hint" }, variants.length ? variants.join(", ") : t("no variants")),
        h("p", { class: "who" }, who.join(" · "))),
      h("button", { type: "button", "data-testid": `join-public-${room.code}`, "aria-label": t("Join {names}", { names: who.join(", ") }),
        onclick: () => joinPublic(room.code) }, t("Join")));
  }
  let listTimer = null;
  async function refreshList() {
    clearTimeout(listTimer);
    if (!root.contains(publicList)) return; // the lobby was left
    try {
      const { rooms } = await api("GET", "/api/rooms?public=1");
      fill(publicList, ...(rooms.length ? rooms.map(roomItem) : [h("li", { class: "hint" }, t("No public room is waiting for players."))]));
    } catch (e) { /* kept as it was; tried again below */ }
    listTimer = setTimeout(refreshList, 4000);
  }

  fill(root,
    h("section", { class: "lobby" },
      h("p", { class: "tagline" }, t("The South Asian shedding card game (Bhabhi): empty your hand, and do not be the last one holding cards.")),
      h("div", { class: "lobby-grid" }, createForm, h("div", { class: "lobby-side" }, publicPanel, joinForm)),
      h("p", { class: "lobby-learn" },
        h("a", { href: "/learn", "data-testid": "learn-link", onclick: (e) => { e.preventDefault(); go("/learn"); } }, t("Learn to play")), " · ",
        h("a", { href: "/replay", "data-testid": "replay-page-link", onclick: (e) => { e.preventDefault(); go("/replay"); } }, t("Replay a game record")))));
  refreshList();
  name.focus();
}

// The server cannot be reached: play alone against bots in the page (offline.js), with the
// level and name saved by the lobby.
function playOffline(root, { go, showError }) {
  const saved = JSON.parse(localStorage.getItem("getaway.lobby") || "{}");
  showError("");
  renderOffline(root, { level: BOT_LEVELS.includes(saved.bot_level) ? saved.bot_level : "medium",
    name: localStorage.getItem("getaway.name") || "", back: () => renderLobby(root, { go, showError }) });
}

function offlineLobby(root, ctx) {
  document.body.dataset.status = "lobby";
  fill(root, h("section", { class: "card-panel" }, h("h2", {}, t("New game")),
    h("p", { class: "hint" }, t("The server cannot be reached: you can play alone against bots in this page.")),
    h("div", { class: "buttons" }, h("button", { type: "button", class: "primary", "data-testid": "play-alone",
      onclick: () => playOffline(root, ctx) }, t("Play alone against bots")))));
}
