// Card faces and backs (issue 15, item 4): the art (pips, court figures, Jokers, the back) is
// SVG-cards 4.0.2 by David Bellot and Huub de Beer (npm `svg-cards`, LGPL-2.1, vendored unmodified
// in static/cards/ with its LICENSE and AUTHORS), referenced with <use>; over its corner we draw
// our own index (rank and suit, large), so that a card is readable at phone size even when only
// its left strip shows in a fanned hand. The art is decoration (aria-hidden): a card's name is
// its element's aria-label (set by the caller, e.g. "10♥" → "ten of hearts").

import { h, svg } from "./dom.js";
import { splitCard, isRed } from "./i18n.js";

const DECK = "/static/cards/svg-cards.svg";
const SUIT_IDS = { "♠": "spade", "♥": "heart", "♦": "diamond", "♣": "club" };
const RANK_IDS = { A: "1", J: "jack", Q: "queen", K: "king" };

/** The id of a card's drawing in the deck file: "10♥" → "heart_10", "Q♠" → "spade_queen",
 * the Joker → "joker_red". */
export function artId(card) {
  const [rank, suit] = splitCard(card);
  if (!suit) return "joker_red";
  return `${SUIT_IDS[suit]}_${RANK_IDS[rank] ?? rank}`;
}

function art(id) {
  return svg("svg", { class: "art", viewBox: "0 0 169.075 244.64", preserveAspectRatio: "none",
    "aria-hidden": "true", focusable: "false" }, svg("use", { href: `${DECK}#${id}` }));
}

/** A face-up card (not interactive): the deck's drawing with a large index in its corner. */
export function cardFace(card, extra = {}) {
  const [rank, suit] = splitCard(card);
  return h("span", { class: `face ${isRed(card) ? "red" : "black"}${suit ? "" : " joker"}`, ...extra },
    art(artId(card)),
    h("span", { class: "index", "aria-hidden": "true" },
      h("span", { class: "rank" }, suit ? rank : "★"), h("span", { class: "suit" }, suit || "Jk")));
}

/** A card seen from the back (hidden hands, the waste pile, cards flying face down). */
export function cardBack(extra = {}) {
  return h("span", { class: "face back", "aria-hidden": "true", ...extra }, art("back"));
}
