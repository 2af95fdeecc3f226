// Texts of the page: every visible text goes through t(msgid, args); the table comes from
// GET /api/strings/{lang} (the server translates the msgids of getaway.web.strings.UI_STRINGS
// with the CLI's gettext catalogs). English is the msgid itself.

export const LANGUAGES = [
  ["en", "English"], ["fr", "Français"], ["it", "Italiano"], ["pt", "Português"], ["es", "Español"],
  ["hi", "हिन्दी"], ["ur", "اردو"], ["bn", "বাংলা"], ["pa", "ਪੰਜਾਬੀ"],
];
const CODES = LANGUAGES.map(([c]) => c);
const SUITS = { "♠": 0, "♥": 1, "♦": 2, "♣": 3 };
const EN_SUITS = ["spades", "hearts", "diamonds", "clubs"];
const EN_RANKS = { 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
  10: "ten", J: "jack", Q: "queen", K: "king", A: "ace" };

let lang = "en";
let texts = {};
let cardNames = {};   // "Q♠" -> "queen of spades"
let rankNames = {};   // "Q" -> "queen"
let suitNames = {};   // "♠" -> "spades" (as in "queen of spades")
let suitPlurals = {}; // "♠" -> "spades" (as in "no spades")
let chatTexts = {};   // quick chat: "well_played" -> "Well played!" (getaway.text.chat.PHRASES, in order)

export function currentLang() { return lang; }

const PICKED = "getaway.lang"; // the language the user picked on the page (localStorage)

/** Remember the language the user picked on the page (the header's select). */
export function pickLang(code) { if (CODES.includes(code)) localStorage.setItem(PICKED, code); }

/** The language to start with (docs/web.md): the URL's `?lang=` (one with a catalog), else the one the user picked on the page (or the
 * browser's found on an earlier visit, remembered), else the server's (`getaway serve --lang`,
 * from GET /api/lang), else the browser's first one with a catalog (remembered), else English. */
export async function initialLang() {
  const asked = new URLSearchParams(location.search).get("lang"); // a link's ?lang= (the server drew the page in it)
  if (CODES.includes(asked)) return asked;
  const picked = localStorage.getItem(PICKED);
  if (CODES.includes(picked)) return picked;
  try {
    const r = await fetch("/api/lang");
    const server = r.ok ? (await r.json()).default : null;
    if (CODES.includes(server)) return server;
  } catch (e) { /* no answer: the browser's */ }
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const code = String(l).split("-")[0].toLowerCase();
    if (CODES.includes(code)) {
      // remembered unless a pick was stored meanwhile (another tab's, or the page's select while /api/lang was asked)
      try { if (!CODES.includes(localStorage.getItem(PICKED))) localStorage.setItem(PICKED, code); } catch (e) { /* storage off: chosen again next visit */ }
      return code;
    }
  }
  return "en";
}

/** The languages written right to left (the page's `<html dir>`; docs/web.md "Right to left"). */
export const RTL = ["ur"];

/** `msgid` translated, with {name} placeholders filled from `args`; in a right-to-left language
 * each filled value is isolated (FSI … PDI) so that a number, a seat letter, a card or a Latin
 * name keeps its place in the sentence. */
export function t(msgid, args) {
  let s = texts[msgid];
  if (typeof s !== "string" || !s) s = msgid;
  const rtl = RTL.includes(lang);
  if (args) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in args ? (rtl ? `\u2068${args[k]}\u2069` : String(args[k])) : m));
  return s;
}

/** The translation of the one served msgid that starts with `prefix` (the bot levels' lines:
 * "easy: …", getaway.bots.LEVEL_HELP), or "" if none does. */
export function tStartingWith(prefix) {
  const msgid = Object.keys(texts).find((k) => k.startsWith(prefix));
  return msgid ? t(msgid) : "";
}

function asMap(x, keyOf) {
  // Accepts {key: name}, [name, ...] (indexed by keyOf(i)) or [[key, name], ...].
  const out = {};
  if (!x) return out;
  if (Array.isArray(x)) {
    x.forEach((v, i) => {
      if (Array.isArray(v)) out[v[0]] = v[1];
      else if (v && typeof v === "object") out[v.card ?? v.key ?? v.id ?? keyOf(i)] = v.name ?? v.text;
      else out[keyOf(i)] = v;
    });
  } else if (typeof x === "object") Object.assign(out, x);
  return out;
}

/** Load the texts of `code`; they are kept (localStorage) for a page started offline, which
 * uses the kept texts of its language, else English. */
export async function loadLang(code) {
  if (!CODES.includes(code)) code = "en";
  let data = null;
  const kept = `getaway.strings.${code}`; // the last texts fetched, for a page started offline
  try {
    const r = await fetch(`/api/strings/${code}`);
    if (r.ok) data = await r.json();
    if (data) try { localStorage.setItem(kept, JSON.stringify(data)); } catch (e) { /* storage full or off */ }
  } catch (e) { /* offline: the kept texts */ }
  if (!data) try { data = JSON.parse(localStorage.getItem(kept) || "null"); } catch (e) { /* corrupted: English */ }
  data = data && typeof data === "object" ? data : {};
  const table = data.strings ?? data.texts ?? data.messages ?? data.ui ?? null;
  texts = table && typeof table === "object" && !Array.isArray(table) ? table : {};
  if (!table) for (const [k, v] of Object.entries(data)) if (typeof v === "string") texts[k] = v;
  const rankKeys = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
  const suitKeys = ["♠", "♥", "♦", "♣"];
  cardNames = asMap(data.cards ?? data.card_names, () => "");
  rankNames = asMap(data.ranks ?? data.rank_names, (i) => rankKeys[i]);
  suitNames = asMap(data.suits_of ?? data.suit_names ?? data.suits, (i) => suitKeys[i]);
  suitPlurals = asMap(data.suit_plurals ?? data.suits_plural ?? data.suits, (i) => suitKeys[i]);
  for (const m of [rankNames, suitNames, suitPlurals]) normalizeSuitKeys(m);
  chatTexts = data.chat && typeof data.chat === "object" ? data.chat : {};
  lang = code;
  document.documentElement.lang = code;
  document.documentElement.dir = RTL.includes(code) ? "rtl" : "ltr";
}

function normalizeSuitKeys(m) {
  // Suit maps may be keyed by symbol, letter or English name: key them by symbol too.
  const alias = { s: "♠", h: "♥", d: "♦", c: "♣", S: "♠", H: "♥", D: "♦", C: "♣",
    spades: "♠", hearts: "♥", diamonds: "♦", clubs: "♣", 0: "♠", 1: "♥", 2: "♦", 3: "♣" };
  for (const [k, v] of Object.entries(m)) if (alias[k] && !(alias[k] in m)) m[alias[k]] = v;
}

/** Split "10♥" into ["10", "♥"]; the Joker is ["Jk", null]. */
export function splitCard(card) {
  const suit = card.slice(-1);
  if (suit in SUITS) return [card.slice(0, -1), suit];
  return [card, null];
}

export const suitIndex = (card) => SUITS[splitCard(card)[1]] ?? 4;
export const isRed = (card) => { const s = splitCard(card)[1]; return s === "♥" || s === "♦"; };
const RANK_VALUE = { J: 11, Q: 12, K: 13, A: 14 };
export const rankValue = (card) => { const r = splitCard(card)[0]; return RANK_VALUE[r] ?? (Number(r) || 0); };

/** The full name of a card in the page's language: "queen of spades". */
export function cardName(card) {
  if (cardNames[card]) return cardNames[card];
  const [rank, suit] = splitCard(card);
  if (!suit) return "joker";
  const r = rankNames[rank] ?? EN_RANKS[rank] ?? rank;
  const s = suitNames[suit] ?? EN_SUITS[SUITS[suit]];
  return t("{rank} of {suit}", { rank: r, suit: s });
}

/** The quick chat's phrase keys, in the palette's order (from GET /api/strings). */
export function chatKeys() { return Object.keys(chatTexts); }

/** A quick-chat phrase's text in the page's language (its key if unknown). */
export function chatText(key) { return chatTexts[key] ?? key; }

/** A suit as in "no hearts". */
export function suitPlural(suit) {
  return suitPlurals[suit] ?? EN_SUITS[SUITS[suit]] ?? suit;
}
