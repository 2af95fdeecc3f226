// The lobby page (/): create a room, play alone against bots, join by code.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api, tokenKey, hostKey } from "./net.js";

const RANGE = { punjab: [3, 8], classic: [2, 8] };
const BOT_LEVELS = ["easy", "medium", "hard", "expert"];
// Boolean variants (docs/rules.md §6), as Rules.profile(..., name=True).
const VARIANTS = [
  ["trump", "Spades trump", "Spades beat every other suit (V-TRUMP)."],
  ["nopickup", "No pickup", "A player who cannot follow passes; nobody picks up (V-NOPICKUP)."],
  ["kicker", "High-card kicker", "A void player must pick up a kick: the top card still in play (V-KICKER)."],
  ["dehla", "Dehla Pakad (tens)", "Winners of completed tricks capture the tens (V-DEHLA)."],
  ["joker", "Joker reveal", "One Joker joins the pack (V-JOKER)."],
  ["beggar", "Beggar-thy-Neighbour", "The loser deals next and penalties grow (V-BEGGAR)."],
  ["progressive", "Progressive penalty", "Last place scores 3, second-to-last 1 (V-PROGRESSIVE)."],
];
const EXCLUSIVE = { nopickup: "kicker", kicker: "nopickup", beggar: "progressive", progressive: "beggar" };
// Option selects: [option, label, [[value, text], ...]]; "" keeps the profile's default.
const SELECTS = [
  ["takes", "Who may take the left hand", [["any", "anyone"], ["leader", "only the next leader"], ["off", "nobody"]]],
  ["take_protocol", "How takes are offered", [["poll", "asked before each trick"], ["interject", "announced at any moment"]]],
  ["uneven", "Spare cards", [["round_robin", "dealt round (hands differ by one)"], ["loaded", "all to the dealer (loaded hand)"], ["strip", "low cards removed"]]],
  ["enforcement", "Irregular plays", [["strict", "refused"], ["penalize", "penalized"]]],
  ["dealer", "First dealer", [["lot", "by lot"], ["cut", "by cutting"]]],
];

function field(label, control, hint) {
  const id = control.id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("small", { class: "hint" }, hint) : null);
}

export function renderLobby(root, { go, showError }) {
  const saved = JSON.parse(localStorage.getItem("getaway.lobby") || "{}");
  const name = h("input", { id: "name", "data-testid": "name-input", maxlength: 24, autocomplete: "nickname",
    value: localStorage.getItem("getaway.name") || "", placeholder: t("Your name") });
  const profile = h("select", { id: "profile", "data-testid": "profile" },
    h("option", { value: "punjab" }, t("punjab: the highest card of the led suit picks up")),
    h("option", { value: "classic" }, t("classic: the player who cannot follow picks up")));
  profile.value = saved.profile || "punjab";
  const players = h("select", { id: "players", "data-testid": "players" });
  const fillPlayers = () => {
    const [lo, hi] = RANGE[profile.value];
    const keep = Number(players.value || saved.players || 4);
    fill(players, ...Array.from({ length: hi - lo + 1 }, (_, i) => h("option", { value: lo + i }, String(lo + i))));
    players.value = String(Math.min(hi, Math.max(lo, keep)));
  };
  fillPlayers();
  profile.addEventListener("change", fillPlayers);
  const deals = h("input", { id: "deals", "data-testid": "deals", type: "number", min: 1, max: 99, value: saved.deals || 1, inputmode: "numeric" });
  const level = h("select", { id: "level", "data-testid": "bot-level" }, BOT_LEVELS.map((l) => h("option", { value: l }, t(l))));
  level.value = saved.bot_level || "medium";
  // The hint (the expert's move on your own decision): the host may switch it off for the room.
  const hints = h("input", { type: "checkbox", id: "hints", "data-testid": "hints", checked: saved.hints !== false });

  const checks = {};
  const variantBoxes = VARIANTS.map(([key, label, hint]) => {
    const box = h("input", { type: "checkbox", id: `opt-${key}`, "data-testid": `opt-${key}`, checked: !!(saved.options || {})[key] });
    checks[key] = box;
    return h("div", { class: "check" }, box, h("label", { for: box.id }, t(label), h("small", { class: "hint" }, t(hint))));
  });
  const syncExclusive = () => {
    for (const [a, b] of Object.entries(EXCLUSIVE)) checks[b].disabled = checks[a].checked;
  };
  for (const box of Object.values(checks)) box.addEventListener("change", syncExclusive);
  syncExclusive();
  const selects = {};
  const selectFields = SELECTS.map(([key, label, choices]) => {
    const sel = h("select", { id: `opt-${key}`, "data-testid": `opt-${key}` },
      h("option", { value: "" }, t("profile default")), choices.map(([v, text]) => h("option", { value: v }, t(text))));
    sel.value = (saved.options || {})[key] || "";
    selects[key] = sel;
    return field(t(label), sel);
  });
  const ante = h("input", { id: "opt-ante", "data-testid": "opt-ante", type: "number", min: 0, max: 1000, value: (saved.options || {}).ante || 0, inputmode: "numeric" });

  const busy = (on) => root.querySelectorAll("button").forEach((b) => { b.disabled = on; });

  function settings(withName) {
    const options = {};
    for (const [key, box] of Object.entries(checks)) if (box.checked && !box.disabled) options[key] = key === "trump" ? "spades" : true;
    for (const [key, sel] of Object.entries(selects)) if (sel.value) options[key] = sel.value;
    if (Number(ante.value) > 0) options.ante = Number(ante.value);
    const body = { profile: profile.value, players: Number(players.value), deals: Math.max(1, Number(deals.value) || 1),
      options, bot_level: level.value, hints: hints.checked };
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
      showError(e.message);
      busy(false);
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

  const createForm = h("form", { class: "card-panel", "aria-labelledby": "create-title", onsubmit: (e) => { e.preventDefault(); create(false); } },
    h("h2", { id: "create-title" }, t("New game")),
    field(t("Your name"), name),
    field(t("Profile"), profile),
    h("div", { class: "row" }, field(t("Players"), players), field(t("Deals in the match"), deals), field(t("Bot level"), level)),
    h("div", { class: "check" }, hints, h("label", { for: "hints" }, t("Hints allowed"))),
    h("details", { class: "variants" },
      h("summary", {}, t("Variants and options")),
      h("fieldset", {}, h("legend", {}, t("Variants")), variantBoxes),
      selectFields,
      field(t("Ante (chips per deal)"), ante)),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "primary", "data-testid": "play-alone", onclick: () => create(true) }, t("Play alone against bots")),
      h("button", { type: "submit", "data-testid": "create-room" }, t("Create a room for friends"))),
    h("p", { class: "hint" }, t("Empty seats are played by bots. In a room for friends, share the link and start when everyone is seated.")));

  fill(root,
    h("section", { class: "lobby" },
      h("p", { class: "tagline" }, t("The South Asian shedding card game (Bhabhi): empty your hand, and do not be the last one holding cards.")),
      h("div", { class: "lobby-grid" }, createForm, joinForm)));
  name.focus();
}
