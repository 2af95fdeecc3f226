// The table seen from the player's seat: opponents around, the trick in the middle, the
// player's hand (buttons, roving focus with the arrow keys), the action buttons, the
// narration log, the standings and the finished deals' records.

import { h, fill } from "./dom.js";
import { t, cardName, suitIndex, rankValue } from "./i18n.js";
import { tableFromHistory } from "./trick.js";
import { cardFace, cardBack } from "./cards.js";
import { reducedMotion, slideIn, flyAway, moveBacks, turnCue, pace } from "./motion.js";
import { ChatView } from "./chat.js";

export { cardFace };
// Hand order: suits alternate in colour (♠ ♥ ♣ ♦), low to high within a suit.
const HAND_SUIT_ORDER = [0, 1, 3, 2, 4];
// Room above the hand's first row for a playable card's lift (style.css .card.my-turn.legal, 8px):
// a lifted card never covers the name line nor the buttons above the hand.
const LIFT = 10;

/** Slide the hand card `el` from `dx`, `dy` px away (its place before a re-lay) to its place: the
 * individual `translate` property, animated (it adds to the lift's `transform`, and a transform
 * is no layout shift), in 0.2 s at the normal speed (motion.js `pace`). A slide still running
 * is replaced, from where the card is seen now. Under reduced motion it is not called. */
function slideHandCard(el, dx, dy) {
  if (el.slide) {
    const seen = getComputedStyle(el).translate.split(" ").map((v) => parseFloat(v) || 0); // "none", "3px" or "3px 4px"
    dx += seen[0] || 0;
    dy += seen[1] || 0;
    el.slide.cancel();
  }
  el.slide = el.animate([{ translate: `${dx}px ${dy}px` }, { translate: "0px 0px" }], { duration: 200 * pace(), easing: "ease" });
  el.slide.finished.then(() => { el.slide = null; }, () => {});
}

// The mark of a bot seat wherever its name is shown (the server refuses it in human names, so
// a human called "Bot 3" never looks like one); the narration's names carry it too.
export const BOT_MARK = "\u{1F916}";
/** localStorage key: the take control's explanation was seen (it shows until the first take). */
const TAKE_EXPLAINED = "getaway-take-explained";
/** The turn timer's countdown shows in its last seconds. */
const COUNTDOWN = 10;
/** How long a finished trick stays on the table before it is swept away (ms, at the normal
 * speed; the player's speed scales it: motion.js `pace`). */
export const LINGER = 1300;

export function seatName(room, seat) {
  const s = room && room.seats && room.seats[seat];
  if (s && s.kind === "bot") return `${BOT_MARK} ${t("Bot {n}", { n: seat + 1 })}`;
  if (s && s.name) return s.name;
  return t("Seat {n}", { n: seat + 1 });
}

// A card in a text ("Eve plays 7♠", "10♥", "Jk"): a rank and a suit symbol, or the Joker.
const CARD_TOKEN = /(?<![\p{L}\p{N}])(?:(?:10|[2-9JQKA])[♠♥♦♣]|Jk(?![\p{L}\p{N}]))/gu;

/** `text` with each card shown by its symbol (hidden from screen readers) and named for them
 * ("seven of spades", visually hidden): for the narration and the status line. */
export function cardText(text) {
  text = String(text ?? "");
  const out = [];
  let at = 0;
  for (const m of text.matchAll(CARD_TOKEN)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    out.push(h("span", { class: "card-token" }, h("span", { "aria-hidden": "true" }, m[0]), h("span", { class: "sr-only" }, cardName(m[0]))));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** `text` with its cards named ("seven of spades"), for a live region read as plain text. */
export function cardSpeech(text) {
  return String(text ?? "").replace(CARD_TOKEN, (c) => cardName(c));
}

export class TableView {
  /** `actions`: {act(action), next(), hint(), chat(phrase), notice(text)} */
  constructor(root, actions) {
    this.actions = actions;
    this.seen = new Set();        // trick items already shown (no second animation)
    this.focusCard = null;        // the hand card with tabindex=0
    this.logCount = 0;
    this.logDeal = null;
    this.wasMyTurn = false;
    this.status = h("p", { class: "status", "data-testid": "status", id: "status" });
    this.announce = h("p", { class: "sr-only", "aria-live": "assertive", "data-testid": "announce" });
    this.seats = h("ol", { class: "seats", "aria-label": t("Players") });
    this.trick = h("div", { class: "trick", "data-testid": "trick", role: "list", "aria-label": t("Cards on the table") });
    this.caption = h("p", { class: "trick-caption", "data-testid": "trick-caption" });
    this.pile = h("p", { class: "pile", "data-testid": "waste" });
    this.outcome = h("div", { class: "outcome", "data-testid": "outcome", hidden: true });
    this.felt = h("div", { class: "felt", "data-testid": "table" },
      this.seats, h("div", { class: "center" }, this.trick), this.caption, this.pile, this.outcome);
    this.me = h("p", { class: "me", "data-testid": "me" });
    this.buttons = h("div", { class: "actions", "data-testid": "actions" });
    this.hintLine = h("p", { class: "hint-text", id: "hint-text", "data-testid": "hint-text", "aria-live": "polite", hidden: true });
    this.hand = h("div", { class: "hand", role: "group", "data-testid": "hand", "aria-labelledby": "hand-title" });
    this.hand.addEventListener("keydown", (e) => this.onHandKey(e));
    this.handTitle = h("h2", { id: "hand-title", class: "sr-only" });
    // Why the card just tapped is refused, said to the player: over the table just above the hand
    // (absolutely placed, so the hand does not move), until the player's next legal move.
    this.refusal = h("p", { class: "refusal", role: "alert", "data-testid": "refusal", hidden: true });
    // The take control's explanation (shown until the first take), in the same place.
    this.explain = h("p", { class: "hint take-explain", id: "take-explain", "data-testid": "take-explain", hidden: true });
    // The lines that come and go (a refusal, the take's explanation, a hint) lie over the table
    // just above the hand, out of the flow; the action buttons have a row of fixed height: when
    // controls come and go the hand does not move (issue 24 item 3, tests/test_web_layout_e2e.py).
    this.notes = h("div", { class: "hand-notes" }, this.refusal, this.explain, this.hintLine);
    this.handWrap = h("section", { class: "hand-wrap" }, this.notes, this.handTitle, this.me, this.buttons, this.hand);
    // The narration: a live region (role=log) holding a list of lines (a role=log list would no
    // longer be a list for its items).
    this.logList = h("ol", { class: "log-lines" });
    this.log = h("div", { class: "log", role: "log", "aria-live": "polite", "data-testid": "log", tabindex: 0, "aria-labelledby": "log-title" },
      this.logList);
    this.standings = h("div", { "data-testid": "standings" });
    this.records = h("div", { "data-testid": "deals" });
    // On a phone (the side panel below the board): the last line of the narration under the table,
    // a tap opens the whole narration (and the standings) over the table.
    this.lastLine = h("span", { class: "line" });
    this.lastAction = h("button", { type: "button", class: "last-action", "data-testid": "last-action", "aria-controls": "side",
      "aria-expanded": "false", onclick: () => this.toggleSide() }, this.lastLine, h("span", { class: "more" }, t("Narration")));
    this.closeSide = h("button", { type: "button", class: "ghost close-side", "data-testid": "close-narration",
      "aria-label": t("Back to the table"), onclick: () => this.toggleSide(false) }, "✕");
    this.side = h("aside", { class: "side", id: "side" }, this.closeSide,
      h("section", { class: "panel" }, h("h2", { id: "log-title" }, t("Narration")), this.log),
      h("section", { class: "panel" }, h("h2", {}, t("Standings")), this.standings, this.records));
    this.chat = new ChatView(actions.chat, seatName);  // quick chat (chat.js): its button, palette and bubbles
    this.el = h("div", { class: "game" },
      h("div", { class: "board" }, this.status, this.felt, this.chat.el, this.lastAction, this.handWrap), this.side, this.announce);
    this.el.addEventListener("keydown", (e) => { if (e.key === "Escape" && this.el.classList.contains("side-open")) this.toggleSide(false); });
    this.motion = { fresh: [], sweep: null };  // what the update being rendered will animate (runMotion)
    this.swept = null;                         // the settled trick already swept away
    this.histSeen = { deal: null, n: 0 };      // history events already animated
    fill(root, this.el);
    this.resize = new ResizeObserver(() => { this.layoutHand(); this.layoutFelt(); });
    this.resize.observe(this.hand);
    this.resize.observe(this.felt);
    this.narrow = window.matchMedia("(max-width: 699px)");
    this.onNarrow = () => this.layoutFelt();
    this.narrow.addEventListener("change", this.onNarrow);
  }

  destroy() { this.chat.destroy(); this.resize.disconnect(); this.narrow.removeEventListener("change", this.onNarrow); clearTimeout(this.sweepTimer); }

  /** Show a hint the server sent (`{action, text, version}`) if it is for the position shown. */
  showHint(msg) {
    if (!this.S || msg.version !== this.S.version) return;
    this.hint = msg;
    this.renderHand(this.S);
  }

  /** Open (or close) the narration and standings over the table (phones). */
  toggleSide(open = !this.el.classList.contains("side-open")) {
    this.el.classList.toggle("side-open", open);
    this.lastAction.setAttribute("aria-expanded", String(open));
    if (open) { this.log.scrollTop = this.log.scrollHeight; this.log.focus({ preventScroll: true }); } else this.lastAction.focus();
  }

  update(S) {
    this.S = S;
    this.turnStarted = false;
    if (this.hint && this.hint.version !== S.version) this.hint = null; // a hint holds for the decision it was asked for
    const { room, view } = S;
    const n = view ? view.players : room.seats.length;
    this.n = n;
    this.mySeat = S.seat;
    this.renderSeats(S, n);
    this.renderTrick(S);
    this.renderOutcome(S);
    this.renderActions(S);
    this.renderHand(S);
    this.renderStatus(S);
    this.renderLog(S);
    this.renderStandings(S);
    this.chat.update(S, this.seats, this.me);
    this.layoutFelt();
    // The events new since the last update (none on a page load or a reconnect), for the motion.
    const deal = room.deal_index ?? 0;
    const history = (view && view.history) || [];
    if (this.histSeen.deal !== deal || history.length < this.histSeen.n) this.histSeen = { deal, n: 0 };
    const events = S.settled ? [] : history.slice(this.histSeen.n);
    this.histSeen.n = history.length;
    this.runMotion(S, events);
    if (this.turnStarted && !S.settled) turnCue([this.status, this.me]);
  }

  /** The table's layout: the oval (seats around, the trick in the middle, towards its players),
   * or rows ("rows": the seats in rows at the top, the trick in a band below them, in the order
   * played): on narrow screens, and at the end of a deal when the outcome in the middle of the
   * oval would cover a seat box (many players on a narrow oval). Nothing covers a seat box. */
  layoutFelt() {
    const narrow = this.narrow.matches;
    const over = !this.outcome.hidden;
    const others = this.seats.children.length;
    const perRow = Math.max(1, Math.min(narrow ? 4 : 8, Math.floor((this.felt.clientWidth - 12) / 88)));
    this.seats.style.setProperty("--per-row", String(others ? Math.ceil(others / Math.ceil(others / perRow)) : 1));
    let rows = narrow;
    if (over && !narrow) {
      this.felt.classList.remove("rows");
      const o = this.outcome.getBoundingClientRect();
      rows = [...this.seats.children].some((b) => {
        const r = b.getBoundingClientRect();
        return r.left < o.right && r.right > o.left && r.top < o.bottom && r.bottom > o.top;
      });
    }
    if (!rows) {
      // On a low oval (a small window) a whole trick in lines, the oval's last resort, may still
      // cover a seat box: then rows (the trick in a band of its own below the seats). Weighed
      // for a whole trick (a card of every player), so it holds for the deal.
      this.felt.classList.remove("rows");
      const { cw, ch } = this.trickCardSize();
      rows = this.coversSeat(this.linePlaces(this.n || 1, cw, ch), cw + 4, ch);
    }
    this.felt.classList.toggle("rows", rows);
    this.placeTrick();
  }

  /** The size of a trick card's face (px): the first card's, or the felt's `--tw` and `--th`. */
  trickCardSize() {
    const face = this.trick.querySelector(".played .face");
    const css = getComputedStyle(this.felt);
    return { cw: (face && face.offsetWidth) || parseFloat(css.getPropertyValue("--tw")) || 44,
      ch: (face && face.offsetHeight) || parseFloat(css.getPropertyValue("--th")) || 62 };
  }

  /** Angle (degrees, screen coordinates) of a seat: the player at the bottom, clockwise = to the left. */
  angle(seat) {
    // A spectator has no place at the bottom: the seats turn half a step, so that none sits there.
    const watching = this.mySeat === null || this.mySeat === undefined;
    const k = (seat - (watching ? 0 : this.mySeat) + this.n) % this.n + (watching ? 0.5 : 0);
    return 90 + (k * 360) / this.n;
  }

  renderSeats(S, n) {
    const { room, view } = S;
    const items = [];
    for (let seat = 0; seat < n; seat++) {
      if (seat === S.seat) continue;
      const info = room.seats[seat] || {};
      const a = (this.angle(seat) * Math.PI) / 180;
      const out = view && view.got_away[seat];
      const toAct = view && !view.outcome && view.to_act === seat;
      const size = view ? view.hand_sizes[seat] : null;
      const badges = [];
      if (info.kind === "bot") badges.push(h("span", { class: "badge bot" }, t("bot")));
      if (info.bot_playing) badges.push(h("span", { class: "badge bot" }, t("a bot plays for them")));
      if (view && view.dealer === seat) badges.push(h("span", { class: "badge", title: t("Dealer") }, t("dealer")));
      if (info.host) badges.push(h("span", { class: "badge" }, t("host")));
      let state = null;
      if (out) state = t("got away ({place})", { place: placeOf(view, seat) });
      else if (toAct) state = view.decision === "take" ? t("to take or pass") : t("to play");
      const deadline = S.absent[seat];
      const absent = info.kind === "human" && (info.connected === false || !!deadline);
      const li = h("li", {
        class: `seat-box${toAct ? " to-act" : ""}${out ? " out" : ""}${absent ? " absent" : ""}`,
        "data-testid": `seat-${seat}`, "data-seat": seat, "aria-current": toAct ? "true" : null,
        // order: in rows (layoutFelt), clockwise from the player's left, as around the oval
        style: { left: `calc(50% + ${Math.cos(a).toFixed(4)} * var(--rx))`, top: `calc(50% + ${Math.sin(a).toFixed(4)} * var(--ry))`,
          order: String(Math.floor((this.angle(seat) - 90) / (360 / n) + 1e-6)) },
      },
      // a long name is cut with an ellipsis (style.css); the whole of it on hover, and in the text read aloud
      h("span", { class: "name", title: seatName(room, seat) }, seatName(room, seat)),
      size === null ? null : h("span", { class: "count", "data-testid": `hand-size-${seat}` },
        h("span", { class: "backs", "aria-hidden": "true" }, size ? cardBack({ class: "face back mini" }) : null), t("Cards: {n}", { n: size })),
      badges.length ? h("span", { class: "badges" }, badges) : null,
      // always there (empty when there is nothing to say): in rows its line is kept, so a seat's
      // "to play" coming and going does not move the rows below
      h("span", { class: "state" }, state || ""),
      absent && !info.bot_playing ? h("span", { class: "state away", "data-testid": `absent-${seat}`, "data-deadline": deadline || "" },
        awayText(deadline)) : null);
      items.push(li);
    }
    fill(this.seats, items);
  }

  /** The trick in the middle: cards placed towards their players (elements kept across updates,
   * by key, so that a card slides in once); a settled trick stays until it is swept away. */
  renderTrick(S) {
    const { view, room } = S;
    if (!view) { fill(this.trick); this.caption.textContent = ""; fill(this.pile); return; }
    const { current, last } = tableFromHistory(view.history);
    const settled = !current.length && last;
    const items = current.length ? current : last ? last.items : [];
    const deal = room.deal_index ?? 0;
    const trickNo = view.tricks_played - (settled ? 1 : 0);
    const settledKey = settled ? `${deal}:${trickNo}:${last.kind}:${last.seat}` : "";
    // A settled trick about to be replaced (the next lead) that has not been swept yet: sweep it now.
    if (this.trick.dataset.skey && this.trick.dataset.skey !== settledKey && !S.settled) this.sweep();
    const old = new Map([...this.trick.children].map((el) => [el.dataset.key, el]));
    const fresh = [];
    const els = items.map((it, i) => {
      const key = `${deal}:${trickNo}:${i}:${it.seat}:${it.card}`;
      const who = it.seat === null ? "" : it.seat === S.seat ? t("You") : seatName(room, it.seat);
      const mark = it.mark === "tochoo" ? t("tochoo") : it.mark === "ruff" ? t("ruff")
        : it.mark === "irregularity" ? t("irregular") : it.mark === "void" ? t("cannot follow") : "";
      const label = it.card ? `${who}: ${cardName(it.card)}${mark ? ` (${mark})` : ""}` : `${who}: ${mark}`;
      let el = old.get(key);
      if (!el || el.getAttribute("aria-label") !== label) {
        el = h("div", { class: `played${it.mark ? ` mark-${it.mark}` : ""}`, role: "listitem", "aria-label": label,
          "data-seat": it.seat ?? "", "data-card": it.card || "", "data-mark": it.mark || null, "data-key": key,
          "data-testid": "trick-card", style: { zIndex: i + 1 } },
        it.card ? cardFace(it.card) : h("span", { class: "face void", "aria-hidden": "true" }, "✕"),
        h("span", { class: "who", "aria-hidden": "true" }, who),
        mark ? h("span", { class: "mark", "aria-hidden": "true" }, mark) : null);
      }
      if (!this.seen.has(key) && !S.settled) fresh.push({ el, from: this.sourceRect(S, it) });
      this.seen.add(key);
      return el;
    });
    this.trick.replaceChildren(...els);
    this.motion.fresh.push(...fresh);
    this.trick.classList.toggle("settled", !!settled);
    this.trick.classList.toggle("picked", !!settled && last.kind === "pickup");
    this.trick.classList.toggle("swept", !!settled && this.swept === settledKey);
    if (settled) {
      const who = seatName(room, last.seat);
      const mine = last.seat === S.seat;
      if (last.kind === "pickup") {
        this.caption.textContent = mine ? t("You pick up the trick (cards: {n}).", { n: last.n })
          : t("{who} picks up the trick (cards: {n}).", { who, n: last.n });
      } else {
        this.caption.textContent = mine ? t("To the waste pile; you lead.") : t("To the waste pile; {who} leads.", { who });
      }
      this.trick.dataset.settled = last.kind;
      this.trick.dataset.skey = settledKey;
      this.trick.dataset.to = last.kind === "pickup" ? String(last.seat) : "waste";
      if (!S.settled && this.swept !== settledKey) this.motion.sweep = settledKey;
    } else {
      this.caption.textContent = "";
      delete this.trick.dataset.settled;
      delete this.trick.dataset.skey;
    }
    // The last trick settled, looked at again: who played what (the pile's "Last trick" button).
    const lastTrick = last && last.items.some((it) => it.card) ? last : null;
    if (!lastTrick) this.showLast = false;
    const peek = lastTrick ? h("button", { type: "button", class: "ghost last-trick", "data-testid": "last-trick",
      "aria-expanded": String(!!this.showLast), "aria-controls": "last-trick-view", onclick: (e) => {
        this.showLast = !this.showLast;
        e.currentTarget.setAttribute("aria-expanded", String(this.showLast));
        const v = this.pile.querySelector(".last-trick-view");
        if (v) v.hidden = !this.showLast;
      } }, t("Last trick")) : null;
    const shown = lastTrick ? h("ul", { class: "last-trick-view", id: "last-trick-view", "data-testid": "last-trick-view", hidden: !this.showLast },
      lastTrick.items.filter((it) => it.card).map((it) => h("li", { "data-seat": it.seat ?? "" },
        h("span", { class: "who" }, it.seat === null || it.seat === undefined ? "" : seatName(room, it.seat)), cardText(it.card)))) : null;
    fill(this.pile, view.waste_size ? cardBack({ class: "face back mini", "data-testid": "waste-back" }) : null,
      h("span", {}, t("waste pile: {n}", { n: view.waste_size })), peek, shown);
  }

  /** Where a card just played comes from: the player's hand card (still shown: the hand is
   * rendered after the trick) or the player's seat box. */
  sourceRect(S, it) {
    if (it.seat === null || it.seat === undefined) return null;
    const el = it.seat === S.seat ? this.hand.querySelector(`[data-card="${it.card}"]`) : this.seats.querySelector(`[data-seat="${it.seat}"]`);
    return el ? el.getBoundingClientRect() : null;
  }

  /** The place of a seat on the screen: its box, or the hand for the player's own seat. */
  placeOf(seat) {
    if (seat === this.mySeat && !this.handWrap.hidden) return this.hand.getBoundingClientRect();
    const box = this.seats.querySelector(`[data-seat="${seat}"]`);
    return box ? box.getBoundingClientRect() : null;
  }

  /** Sweep the settled trick shown: its cards fly to the waste pile or into the picker's place. */
  sweep() {
    const key = this.trick.dataset.skey;
    if (!key || this.swept === key) return;
    const to = this.trick.dataset.to === "waste" ? (this.pile.firstChild || this.pile).getBoundingClientRect() : this.placeOf(Number(this.trick.dataset.to));
    flyAway([...this.trick.querySelectorAll(".played .face")], to, {
      onStart: () => { this.swept = key; this.trick.classList.add("swept"); },
    });
  }

  /** After an update has been laid out: the animations it calls for (none on a page load or a
   * reconnect, none under reduced motion: motion.js). */
  runMotion(S, events) {
    const m = this.motion;
    this.motion = { fresh: [], sweep: null };
    if (S.settled) return;
    m.fresh.forEach(({ el, from }, i) => { const face = el.querySelector(".face"); if (face) slideIn(face, from, { delay: i * 60 }); });
    if (m.sweep) {
      clearTimeout(this.sweepTimer);
      const key = m.sweep;
      this.sweepTimer = setTimeout(() => { if (this.trick.dataset.skey === key) this.sweep(); }, LINGER * pace() + m.fresh.length * 60);
    }
    const size = this.hand.firstChild ? this.hand.firstChild.getBoundingClientRect() : null;
    for (const e of events) {
      if (e.kind === "take" && e.seat !== undefined && e.other !== undefined) {
        moveBacks(this.placeOf(e.other), this.placeOf(e.seat), e.hidden || (e.cards || []).length || 4, { size });
      }
    }
  }

  /** Position the trick's cards: towards their players around the oval; in lines, in the order
   * played, in the rows layout or when the oval places would overlap (6–8 players on a small
   * oval). No two cards of a trick overlap, nor their players' names. */
  placeTrick() {
    const cards = [...this.trick.children];
    if (!cards.length) {
      // an empty table in rows: the band keeps a whole trick's lines (cards of --tw, 6 px apart)
      const tw = parseFloat(getComputedStyle(this.felt).getPropertyValue("--tw")) || 44;
      const perLine = Math.max(1, Math.floor((this.trick.clientWidth + 6) / (tw + 6)));
      this.felt.style.setProperty("--lines", String(Math.ceil((this.n || 1) / perLine)));
      return;
    }
    const { cw, ch } = this.trickCardSize();
    const lineH = ch + 22; // the card, its player's name below, its mark above
    const gap = 6;
    if (!this.felt.classList.contains("rows")) {
      const w = this.felt.clientWidth;
      const hgt = this.felt.clientHeight;
      const place = (seat) => {
        const a = seat === null || !this.n ? Math.PI / 2 : (this.angle(seat) * Math.PI) / 180;
        return [Math.cos(a) * w * 0.15, Math.sin(a) * hgt * 0.16];
      };
      const pos = cards.map((el) => place(el.dataset.seat === "" ? null : Number(el.dataset.seat)));
      // Every player's place is weighed, not only the cards shown: the choice holds for the
      // whole trick (no card jumps when the next one comes). Towards their players when no two
      // places overlap and none covers a seat box (a low oval: a small window), else in lines.
      const all = [...Array(this.n || 1).keys()].map(place);
      const apart = all.every(([x, y], i) => all.every(([u, v], k) => k <= i || Math.abs(x - u) >= Math.max(cw, 80) + 2 || Math.abs(y - v) >= lineH))
        && !this.coversSeat(all, Math.max(cw, 80), ch);
      if (apart) {
        cards.forEach((el, i) => { el.style.left = `calc(50% + ${pos[i][0]}px)`; el.style.top = `calc(50% + ${pos[i][1]}px)`; });
        this.felt.style.setProperty("--lines", "1");
        this.trick.style.setProperty("--step", "80px");
        return;
      }
    }
    const perLine = Math.max(1, Math.floor((this.trick.clientWidth + gap) / (cw + gap)));
    // the band's height is kept for a whole trick (one card per player): it never grows mid-trick
    this.felt.style.setProperty("--lines", String(Math.max(Math.ceil(cards.length / perLine), Math.ceil((this.n || 1) / perLine))));
    this.trick.style.setProperty("--step", `${cw + gap}px`);
    const at = this.linePlaces(cards.length, cw, ch);
    cards.forEach((el, i) => {
      el.style.left = `calc(50% + ${at[i][0]}px)`;
      el.style.top = `calc(50% + ${at[i][1]}px)`;
    });
  }

  /** The places of `count` trick cards in lines, in the order played (px from the trick's
   * centre, each `[x, y]`): as many a line as the trick's width holds (cards `cw` px wide, 6 px
   * apart), the lines `ch` + 22 px apart (the card, its player's name below, its mark above). */
  linePlaces(count, cw, ch) {
    const gap = 6;
    const perLine = Math.max(1, Math.floor((this.trick.clientWidth + gap) / (cw + gap)));
    const lines = Math.ceil(count / perLine);
    const per = Math.ceil(count / lines);
    return [...Array(count).keys()].map((i) => {
      const r = Math.floor(i / per);
      const inLine = Math.min(per, count - r * per);
      return [((i % per) - (inLine - 1) / 2) * (cw + gap), (r - (lines - 1) / 2) * (ch + 22)];
    });
  }

  /** Whether a trick card placed at one of `places` (px from the trick's centre, each `[x, y]`)
   * would overlap a seat box: a card `w` px wide (its face or its player's name) and `ch` px
   * high, its name's line below (14 px) and its mark above (10 px), as style.css `.played` lays
   * them. Reads the layout (bounding boxes of the trick and of the seat boxes). */
  coversSeat(places, w, ch) {
    const t0 = this.trick.getBoundingClientRect();
    const cx = t0.left + t0.width / 2;
    const cy = t0.top + t0.height / 2;
    const boxes = [...this.seats.children].map((b) => b.getBoundingClientRect());
    return places.some(([x, y]) => {
      const r = { left: cx + x - w / 2, right: cx + x + w / 2, top: cy + y - (ch + 14) / 2 - 10, bottom: cy + y + (ch + 14) / 2 };
      return boxes.some((b) => r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom);
    });
  }

  renderOutcome(S) {
    const { view, room } = S;
    const o = view && view.outcome;
    this.outcome.hidden = !o;
    this.felt.classList.toggle("over", !!o); // the outcome takes the trick's place (style.css, layoutFelt)
    if (!o) return;
    const loser = o.loser === null || o.loser === undefined ? t("Loser: none (drawn deal)")
      : o.loser === S.seat ? t("Loser: {name} (you)", { name: seatName(room, o.loser) }) : t("Loser: {name}", { name: seatName(room, o.loser) });
    // As the command line writes it: places in order, players sharing a place with commas.
    const order = (o.out_order || []).map((g) => g.map((s) => seatName(room, s)).join(", ")).join(" → ");
    const parts = [
      h("h2", {}, t("Deal {k} of {n}", { k: (room.deal_index ?? 0) + 1, n: room.deals ?? (room.config && room.config.deals) ?? 1 })),
      h("p", { class: "loser", "data-testid": "loser" }, loser),
      order ? h("p", {}, t("Order of getting away: {order}", { order })) : null,
    ];
    // The review of the deal just played, one click away: the replay with this seat chosen and its review begun.
    const seated = S.seat !== null && S.seat !== undefined;
    const review = seated && room.code ? h("a", { class: "button", "data-testid": "review-deal",
      href: `/replay?room=${encodeURIComponent(room.code)}&deal=${room.deal_index ?? 0}&seat=${S.seat}&review=1` }, t("Review this deal")) : null;
    if (room.status === "finished") {
      parts.push(h("p", { class: "match-over", "data-testid": "match-over" }, t("The match is over.")));
      const winners = (room.standings || []).filter((s) => s.place === 1).map((s) => seatName(room, s.seat));
      if (winners.length) parts.push(h("p", { class: "winner" }, t("Winner of the match: {names}", { names: winners.join(", ") })));
      // At the end of the match a player (or the host) may ask for a rematch: a new room with the
      // same players and options; the server moves every connected player there ("rematch").
      const rematch = S.seat !== null && S.seat !== undefined || S.isHost;
      parts.push(h("div", { class: "buttons" },
        rematch ? h("button", { type: "button", class: "primary", "data-testid": "rematch", disabled: !!S.rematchAsked,
          "aria-describedby": "rematch-hint", onclick: () => this.actions.rematch() }, t("Rematch")) : null,
        review, h("a", { href: "/", class: "button", "data-testid": "new-game" }, t("New game"))));
      if (rematch) parts.push(h("p", { class: "hint", id: "rematch-hint" }, t("A new room with the same players and options: everyone here comes along.")));
    } else if (room.status === "between_deals") {
      if (S.isHost) parts.push(h("div", { class: "buttons" }, h("button", { class: "primary", "data-testid": "next-deal", onclick: () => this.actions.next() }, t("Next deal")), review));
      else parts.push(h("p", {}, t("Waiting for the host to start the next deal.")), review ? h("div", { class: "buttons" }, review) : null);
    }
    fill(this.outcome, parts);
  }

  renderActions(S) {
    const { view, room } = S;
    const legal = new Set(view ? view.legal_actions : []);
    const btns = [];
    let explain = false;
    const target = leftActive(view, S.seat);
    const who = target === null ? "?" : seatName(room, target);
    const seated = S.seat !== null && S.seat !== undefined;
    const live = view && !view.outcome && seated;
    const interject = live && view.rules && view.rules.take_protocol === "interject" && !view.got_away[S.seat];
    // R-P-TAKE: a take that leaves a single active player ends the deal, and the taker loses: said
    // every time, not only until the first take.
    const lastOther = live && target !== null && view.got_away.filter((out) => !out).length === 2;
    if (legal.has("take") && view.decision === "take") {
      // The take poll of rooms made before interject (docs/web.md "Takes"): never the main button.
      btns.push(h("button", { "data-testid": "take", "aria-describedby": "status take-explain",
        title: t("Take {name}'s hand", { name: who }), onclick: () => this.act("take") }, t("Take left hand")));
      explain = lastOther;
    } else if (interject && legal.has("take")) {
      // Between tricks: a secondary control (docs/web.md "Takes"), explained once.
      btns.push(h("button", { type: "button", class: "secondary take-hand", "data-testid": "take-hand", "aria-describedby": "take-explain",
        onclick: () => { localStorage.setItem(TAKE_EXPLAINED, "1"); this.act("take"); } }, t("Take {name}'s hand", { name: who }),
      // the window a bot's lead waits for (take_ends_in): its countdown, a bar and seconds
      S.takeEnds ? h("span", { class: "take-countdown", "data-testid": "take-countdown", "aria-hidden": "true" },
        h("span", { class: "take-bar" }), h("span", { class: "take-left" })) : null));
      explain = lastOther || !localStorage.getItem(TAKE_EXPLAINED);
    } else if (interject && view.trick.length && S.armedTake) {
      // An armed take: a standing badge with its cancel, until it fires.
      btns.push(h("span", { class: "badge armed-take", "data-testid": "armed-take", role: "status" }, t("Take armed"), " ",
        h("button", { type: "button", class: "ghost cancel-take", "data-testid": "cancel-take", title: t("Cancel the armed take"),
          "aria-label": t("Cancel the armed take"), onclick: () => this.actions.armTake(false) }, "✕")));
    }
    if (interject && view.trick.length) {
      // During a trick: arm a take for the next chance (after this trick, before the lead).
      btns.push(h("button", { type: "button", class: `secondary arm-take${S.armedTake ? " armed" : ""}`, "data-testid": "arm-take", "aria-describedby": "take-explain",
        "aria-pressed": String(!!S.armedTake), onclick: () => this.actions.armTake(!S.armedTake) },
      S.armedTake ? t("Take armed: cancel") : t("Take at the next chance")));
      explain = explain || lastOther;
    }
    if (seated && room.status !== "finished" && room.seats[S.seat] && room.seats[S.seat].bot_playing) {
      btns.push(h("button", { type: "button", class: "primary", "data-testid": "back", onclick: () => this.actions.back() }, t("I'm back")));
    }
    if (live && noHumanToAct(room, view)) {  // you got away (or are away) and only bots are left to act
      btns.push(h("button", { type: "button", class: "primary", "data-testid": "finish", onclick: () => this.actions.finish() }, t("Finish the deal")));
    }
    if (legal.has("pass")) btns.push(h("button", { "data-testid": "pass", onclick: () => this.act("pass") }, t("Pass")));
    if (legal.has("pickup")) btns.push(h("button", { "data-testid": "pickup", onclick: () => this.act("pickup") }, t("Pick up")));
    // The hint (web/hints.py): on your own decision, unless the host switched hints off.
    const mine = view && !view.outcome && view.to_act === S.seat && S.seat !== null && S.seat !== undefined;
    if (mine && !(room.config && room.config.hints === false)) {
      btns.push(h("button", { type: "button", class: "ghost hint-button", "data-testid": "hint", "aria-describedby": "hint-text",
        onclick: () => this.actions.hint() }, t("Hint")));
    }
    for (const b of btns) if (S.pending && b.tagName === "BUTTON") b.disabled = true;

    // Keep keyboard focus on the same button across updates.
    const focused = document.activeElement && this.buttons.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
    fill(this.buttons, btns);
    this.explain.hidden = !explain;
    if (explain) {
      this.explain.textContent = lastOther
        ? t("{name} holds the last other hand: take it and the deal ends, with you the loser.", { name: who })
        : t("Their cards join yours and they get away: take only when it helps you.");
    }
    if (focused) { const b = this.buttons.querySelector(`[data-testid="${focused}"]`); if (b) b.focus(); }
    if (S.takeEnds !== this.takeEnds) {
      this.takeEnds = S.takeEnds;
      this.takeTotal = S.takeEnds ? Math.max(0.1, S.takeEnds - performance.now() / 1000) : null;
    }
    this.tickTake();
  }

  renderHand(S) {
    const { view, room } = S;
    this.handWrap.hidden = S.seat === null || S.seat === undefined;
    if (this.handWrap.hidden || !view) return;
    const hand = [...(view.hand || [])].sort((a, b) => HAND_SUIT_ORDER.indexOf(suitIndex(a)) - HAND_SUIT_ORDER.indexOf(suitIndex(b)) || rankValue(a) - rankValue(b));
    const legal = new Set(view.legal_actions);
    const myTurn = !view.outcome && view.to_act === S.seat;
    const choosing = myTurn && hand.some((c) => legal.has(c)); // dim the others only when a card is to be chosen
    this.handTitle.textContent = t("Your hand");
    const bits = [h("strong", { class: "pname", title: seatName(room, S.seat) }, seatName(room, S.seat)), " · ", t("Cards: {n}", { n: hand.length })];
    if (view.dealer === S.seat) bits.push(" · ", t("dealer"));
    if (view.got_away[S.seat]) bits.push(" · ", h("span", { class: "got-away" }, t("got away ({place})", { place: placeOf(view, S.seat) })));
    fill(this.me, bits);
    this.me.classList.toggle("to-act", myTurn);
    const hadFocus = this.hand.contains(document.activeElement);
    const oldIndex = hadFocus ? [...this.hand.children].indexOf(document.activeElement) : -1;
    const byCard = new Map([...this.hand.children].map((el) => [el.dataset.card, el]));
    const els = hand.map((card) => {
      let el = byCard.get(card);
      if (!el) {
        el = h("button", { type: "button", class: "card", "data-card": card, "data-testid": "hand-card" }, cardFace(card));
        el.addEventListener("click", () => this.play(card));
        el.addEventListener("focus", () => { this.focusCard = card; this.rove(); });
      }
      const ok = legal.has(card);
      el.dataset.legal = ok ? "true" : "false";
      el.setAttribute("aria-disabled", ok && !S.pending ? "false" : "true");
      el.setAttribute("aria-label", cardName(card) + (view.must_lead === card ? ` (${t("drawn blind")})` : ""));
      el.classList.toggle("legal", ok);
      el.classList.toggle("hinted", !!this.hint && this.hint.action === card);
      el.classList.toggle("my-turn", choosing);
      if (ok || !this.whyNot(card)) el.removeAttribute("title");
      else el.title = this.whyNot(card);
      return el;
    });
    this.hand.replaceChildren(...els);
    this.hintLine.hidden = !this.hint;
    fill(this.hintLine, this.hint ? [h("strong", {}, t("Hint")), " · ", cardText(this.hint.text)] : null);
    this.hand.setAttribute("aria-label", t("Your hand") + " · " + t("Cards: {n}", { n: hand.length }));
    if (!hand.includes(this.focusCard)) {
      const firstLegal = hand.find((c) => legal.has(c));
      this.focusCard = hadFocus && oldIndex >= 0 && hand.length ? hand[Math.min(oldIndex, hand.length - 1)] : firstLegal ?? hand[0] ?? null;
    }
    // Your turn starts: bring the focus to a playable card unless the user is busy elsewhere.
    const turnStarts = myTurn && !this.wasMyTurn;
    this.wasMyTurn = myTurn;
    this.turnStarted = turnStarts;
    if (turnStarts && view.decision === "play") {
      const firstLegal = hand.find((c) => legal.has(c));
      if (firstLegal && (!this.hand.contains(document.activeElement) || !legal.has(this.focusCard))) this.focusCard = firstLegal;
    }
    this.rove();
    const active = document.activeElement;
    if (hadFocus && !this.hand.contains(active)) this.focusCurrent();
    else if (turnStarts && (active === document.body || active === null)) this.focusCurrent();
    this.layoutHand();
  }

  rove() {
    for (const el of this.hand.children) el.tabIndex = el.dataset.card === this.focusCard ? 0 : -1;
  }

  focusCurrent() {
    const el = [...this.hand.children].find((e) => e.dataset.card === this.focusCard);
    if (el) el.focus({ preventScroll: true });
  }

  onHandKey(e) {
    const cards = [...this.hand.children];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    let j = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") j = Math.min(cards.length - 1, i + 1);
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = Math.max(0, i - 1);
    else if (e.key === "Home") j = 0;
    else if (e.key === "End") j = cards.length - 1;
    else if (e.key === "PageDown" || e.key === "PageUp") {
      // Jump to the next / previous legal card.
      const step = e.key === "PageDown" ? 1 : -1;
      for (let k = i + step; k >= 0 && k < cards.length; k += step) if (cards[k].dataset.legal === "true") { j = k; break; }
    }
    if (j === null) return;
    e.preventDefault();
    this.focusCard = cards[j].dataset.card;
    this.rove();
    cards[j].focus();
  }

  play(card) {
    const view = this.S && this.S.view;
    if (!view || this.S.pending) return;
    if (!view.legal_actions.includes(card)) {
      this.refuse(this.whyNot(card));
      return;
    }
    this.act(card);
  }

  /** Play or say `action` (a legal move): the refusal shown, if any, goes. */
  act(action) {
    this.refuse("");
    this.actions.act(action);
  }

  /** Show `text` (a refusal in the player's words) next to the hand; `""` hides it. */
  refuse(text) {
    this.refusal.textContent = text;
    this.refusal.hidden = !text;
  }

  /** Why `card` may not be played now: the engine's reason, sent by the server for this seat only. */
  whyNot(card) {
    const why = (this.S.illegal || []).find((w) => w.card === card);
    return why ? why.text : "";
  }

  /** Place the hand's cards: one row, overlapping as needed; more rows when they would overlap too much. */
  layoutHand() {
    const cards = [...this.hand.children];
    const n = cards.length;
    if (!n) { this.hand.style.height = "0px"; return; }
    const W = this.hand.clientWidth;
    const cw = cards[0].offsetWidth || 60;
    const ch = cards[0].offsetHeight || 84;
    const maxStep = cw + 6;
    // Below this step a card shows too thin a strip to tap: use another row instead (rows
    // overlap vertically, each card keeps its full width and its top with rank and suit).
    const minStep = cw * 0.75;
    let perRow = n;
    let step = n > 1 ? Math.min(maxStep, (W - cw) / (n - 1)) : 0;
    if (n > 1 && step < minStep) {
      const fit = Math.max(1, Math.floor((W - cw) / minStep) + 1);
      const rows = Math.ceil(n / fit);
      perRow = Math.ceil(n / rows);
      step = perRow > 1 ? Math.min(maxStep, (W - cw) / (perRow - 1)) : 0;
    }
    const rows = Math.ceil(n / perRow);
    // each row shows the whole rank corner of the row above (its index, and 2 px)
    const corner = cards[0].querySelector(".index");
    const rowStep = Math.max(ch * (rows > 3 ? 0.5 : 0.6), ((corner && corner.offsetHeight) || 0) + 2);
    const motion = !reducedMotion();
    cards.forEach((el, i) => {
      const r = Math.floor(i / perRow);
      const c = i % perRow;
      const inRow = Math.min(perRow, n - r * perRow);
      const width = cw + step * (inRow - 1);
      const left = (W - width) / 2 + c * step;
      const top = LIFT + r * rowStep;
      // A card already in the hand slides to its new place. It is put there at once and moved
      // back by a transform animated to none (FLIP): it is seen where it was, then slides, and
      // no frame of the slide is a layout shift (transitions of top/left were one at every
      // frame, more of them on a busy machine: tests/test_web_layout_e2e.py).
      const was = el.style.left ? [parseFloat(el.style.left), parseFloat(el.style.top)] : null;
      el.style.left = `${left}px`;
      el.style.top = `${top}px`;
      el.style.zIndex = String(i + 1);
      if (motion && was && (Math.abs(was[0] - left) > 0.5 || Math.abs(was[1] - top) > 0.5)) slideHandCard(el, was[0] - left, was[1] - top);
    });
    this.hand.style.height = `${LIFT + ch + rowStep * (rows - 1) + 8}px`;
    this.hand.classList.toggle("stacked", rows > 1);
  }

  renderStatus(S) {
    const { view, room } = S;
    let text = "";
    let mine = false;
    // At the end of the match the outcome box says "The match is over." (once on the page).
    if (room.status === "finished") text = t("The deal is over.");
    else if (!view) text = "";
    else if (view.outcome) text = room.status === "between_deals" && !S.isHost ? t("Waiting for the host to start the next deal.") : t("The deal is over.");
    else if (S.seat !== null && S.seat !== undefined && view.to_act === S.seat) {
      mine = true;
      if (view.decision === "take") {
        const target = leftActive(view, S.seat);
        text = t("Take {name}'s hand, or pass?", { name: target === null ? "?" : seatName(room, target) });
      } else if (view.must_lead) text = t("You drew {card} blind: you must lead it.", { card: view.must_lead });
      else if (!view.trick.length) text = t("Your turn: lead a card.");
      else if (view.legal_actions.some((a) => a !== "pass" && a !== "pickup" && a !== "take")) text = t("Your turn: play a card.");
      else text = t("You cannot follow suit.");
    } else if (view.to_act !== null && view.to_act !== undefined) {
      const name = seatName(room, view.to_act);
      text = view.decision === "take" ? t("{name} to take or pass", { name }) : t("{name} to play", { name });
    }
    if (S.seat === null || S.seat === undefined) text = `${t("You are watching.")} ${text}`;
    else if (view && !view.outcome && room.seats[S.seat] && room.seats[S.seat].bot_playing) text = t("You were away: a bot plays for you.");
    fill(this.status, cardText(text), h("span", { class: "countdown", "data-testid": "turn-countdown", hidden: true }));
    this.countdown = this.status.lastChild;
    this.countdownFor = mine ? S.turnEnds : null;
    this.tickCountdown();
    this.status.classList.toggle("mine", mine);
    if (mine && !this.announcedVersion) this.announce.textContent = cardSpeech(text);
    this.announcedVersion = mine;
    if (!mine) this.announce.textContent = "";
  }

  renderLog(S) {
    if (S.logReset) {
      this.logList.replaceChildren();
      this.logCount = 0;
      S.logReset = false;
    }
    for (; this.logCount < S.log.length; this.logCount++) {
      const line = S.log[this.logCount];
      this.logList.append(h("li", { class: line.heading ? "heading" : "" }, cardText(line.text)));
    }
    const lastLine = [...S.log].reverse().find((l) => !l.heading);
    fill(this.lastLine, lastLine ? cardText(lastLine.text) : "");
    this.log.scrollTop = this.log.scrollHeight;
  }

  renderStandings(S) {
    const { room, view } = S;
    const rows = room.standings || [];
    const dehla = view && view.rules && view.rules.dehla;
    const chips = view && view.rules && view.rules.ante > 0;
    if (!rows.length) fill(this.standings);
    else {
      fill(this.standings, h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Place")), h("th", { scope: "col" }, t("Player")),
          h("th", { scope: "col" }, t("Points")), h("th", { scope: "col" }, t("Losses")),
          dehla ? h("th", { scope: "col" }, t("Tens")) : null, chips ? h("th", { scope: "col" }, t("Chips")) : null)),
        h("tbody", {}, rows.map((r) => h("tr", { class: r.seat === S.seat ? "mine" : "", "data-testid": `standing-${r.seat}` },
          h("td", {}, r.place ?? ""), h("th", { scope: "row" }, h("span", { class: "pname", title: seatName(room, r.seat) }, seatName(room, r.seat))), h("td", {}, r.points ?? ""),
          h("td", {}, r.losses ?? ""), dehla ? h("td", {}, r.tens ?? 0) : null, chips ? h("td", {}, r.chips ?? 0) : null)))));
    }
    const done = (room.deal_index ?? 0) + (view && view.outcome ? 1 : 0);
    const total = room.deals ?? (room.config && room.config.deals) ?? 1;
    const items = [];
    for (let i = 0; i < done; i++) {
      const d = S.history && (S.history.find((x) => x.index === i) || (S.history[i] && S.history[i].index === undefined ? S.history[i] : null));
      const loser = d ? (d.loser === null || d.loser === undefined ? t("no loser") : seatName(room, d.loser)) : null;
      items.push(h("li", {}, h("a", { href: `/api/rooms/${encodeURIComponent(room.code)}/deals/${i}/record`, download: `getaway-${room.code}-deal-${i + 1}.json`,
        "data-testid": `record-${i}` }, t("Record of deal {k}", { k: i + 1 })), loser ? ` · ${t("Loser: {name}", { name: loser })}` : "",
        " · ", h("a", { href: `/replay?room=${encodeURIComponent(room.code)}&deal=${i}${S.seat !== null && S.seat !== undefined ? `&seat=${S.seat}` : ""}`,
          "data-testid": `replay-${i}` }, t("Replay and review"))));
    }
    fill(this.records, h("p", { class: "deal-no" }, t("Deal {k} of {n}", { k: Math.min(total, (room.deal_index ?? 0) + 1), n: total })),
      items.length ? h("ul", { class: "records" }, items) : null);
  }

  /** Refresh the absence countdowns (called every second). */
  tick() {
    for (const el of this.seats.querySelectorAll("[data-deadline]")) el.textContent = awayText(Number(el.dataset.deadline) || null);
    this.tickCountdown();
  }

  /** The take window's countdown on the take control (docs/web.md "Takes"): a bar that shrinks
   * and the seconds left, redrawn every 100 ms until the window ends. */
  tickTake() {
    const el = this.buttons.querySelector('[data-testid="take-countdown"]');
    clearTimeout(this.takeTimer);
    if (!el || !this.takeEnds) return;
    const left = Math.max(0, this.takeEnds - performance.now() / 1000);
    el.dataset.left = left.toFixed(1);
    el.querySelector(".take-bar").style.width = `${Math.min(100, (100 * left) / this.takeTotal).toFixed(1)}%`;
    el.querySelector(".take-left").textContent = t("{s} s", { s: left.toFixed(1) });
    if (left > 0) this.takeTimer = setTimeout(() => this.tickTake(), 100);
  }

  /** The turn timer's countdown, shown in its last 10 s (docs/web.md "Turn timer"). */
  tickCountdown() {
    if (!this.countdown) return;
    const left = this.countdownFor ? Math.ceil(this.countdownFor - Date.now() / 1000) : null;
    const show = left !== null && left <= COUNTDOWN;
    this.countdown.hidden = !show;
    this.countdown.textContent = show ? ` ${t("{s} s left: then a bot plays for you", { s: Math.max(0, left) })}` : "";
  }
}

function awayText(deadline) {
  if (!deadline) return t("away");
  const s = Math.max(0, Math.ceil(deadline - Date.now() / 1000));
  return s > 0 ? t("away: a bot plays in {s} s", { s }) : t("a bot plays for them");
}

function placeOf(view, seat) {
  const order = view.out_order || [];
  let place = 1;
  for (const group of order) {
    if (group.includes(seat)) return place;
    place += group.length;
  }
  return "?";
}

/** Whether no human is left to act in the deal: every active seat is a bot's or an away human's. */
export function noHumanToAct(room, view) {
  return room.seats.every((s) => view.got_away[s.seat] || s.kind !== "human" || s.bot_playing);
}

/** The nearest active player on `seat`'s left (the hand a take would take). */
export function leftActive(view, seat) {
  if (!view || seat === null || seat === undefined) return null;
  for (let k = 1; k < view.players; k++) {
    const s = (seat + k) % view.players;
    if (!view.got_away[s]) return s;
  }
  return null;
}
