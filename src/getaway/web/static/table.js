// The table seen from the player's seat: opponents around, the trick in the middle, the
// player's hand (buttons, roving focus with the arrow keys), the action buttons, the
// narration log, the standings and the finished deals' records.

import { h, fill } from "./dom.js";
import { t, cardName, splitCard, isRed, suitIndex, rankValue } from "./i18n.js";
import { tableFromHistory } from "./trick.js";

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
// Hand order: suits alternate in colour (♠ ♥ ♣ ♦), low to high within a suit.
const HAND_SUIT_ORDER = [0, 1, 3, 2, 4];

// The mark of a bot seat wherever its name is shown (the server refuses it in human names, so
// a human called "Bot 3" never looks like one); the narration's names carry it too.
export const BOT_MARK = "\u{1F916}";

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

/** A face-up card (not interactive). */
export function cardFace(card, extra = {}) {
  const [rank, suit] = splitCard(card);
  return h("span", { class: `face ${isRed(card) ? "red" : "black"}${suit ? "" : " joker"}`, ...extra },
    h("span", { class: "rank", "aria-hidden": "true" }, suit ? rank : "★"),
    h("span", { class: "suit", "aria-hidden": "true" }, suit || "Jk"),
    h("span", { class: "pip", "aria-hidden": "true" }, suit || "★"));
}

export class TableView {
  /** `actions`: {act(action), next(), start()} */
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
    this.hand = h("div", { class: "hand", role: "group", "data-testid": "hand", "aria-labelledby": "hand-title" });
    this.hand.addEventListener("keydown", (e) => this.onHandKey(e));
    this.handTitle = h("h2", { id: "hand-title", class: "sr-only" });
    this.handWrap = h("section", { class: "hand-wrap" }, this.handTitle, this.me, this.buttons, this.hand);
    this.log = h("ol", { class: "log", role: "log", "aria-live": "polite", "data-testid": "log", tabindex: 0, "aria-labelledby": "log-title" });
    this.standings = h("div", { "data-testid": "standings" });
    this.records = h("div", { "data-testid": "deals" });
    this.side = h("aside", { class: "side" },
      h("section", { class: "panel" }, h("h2", { id: "log-title" }, t("Narration")), this.log),
      h("section", { class: "panel" }, h("h2", {}, t("Standings")), this.standings, this.records));
    this.el = h("div", { class: "game" },
      h("div", { class: "board" }, this.status, this.felt, this.handWrap), this.side, this.announce);
    fill(root, this.el);
    this.resize = new ResizeObserver(() => { this.layoutHand(); this.layoutFelt(); });
    this.resize.observe(this.hand);
    this.resize.observe(this.felt);
    this.narrow = window.matchMedia("(max-width: 699px)");
    this.onNarrow = () => this.layoutFelt();
    this.narrow.addEventListener("change", this.onNarrow);
  }

  destroy() { this.resize.disconnect(); this.narrow.removeEventListener("change", this.onNarrow); }

  update(S) {
    this.S = S;
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
    this.layoutFelt();
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
    this.felt.classList.toggle("rows", rows);
    this.placeTrick();
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
      h("span", { class: "name" }, seatName(room, seat)),
      size === null ? null : h("span", { class: "count", "data-testid": `hand-size-${seat}` },
        h("span", { class: "backs", "aria-hidden": "true" }, size ? "🂠" : ""), t("Cards: {n}", { n: size })),
      badges.length ? h("span", { class: "badges" }, badges) : null,
      state ? h("span", { class: "state" }, state) : null,
      absent && !info.bot_playing ? h("span", { class: "state away", "data-testid": `absent-${seat}`, "data-deadline": deadline || "" },
        awayText(deadline)) : null);
      items.push(li);
    }
    fill(this.seats, items);
  }

  /** The trick in the middle: cards placed towards their players, new ones slide in. */
  renderTrick(S) {
    const { view, room } = S;
    if (!view) { fill(this.trick); this.caption.textContent = ""; this.pile.textContent = ""; return; }
    const { current, last } = tableFromHistory(view.history);
    const settled = !current.length && last;
    const items = current.length ? current : last ? last.items : [];
    const deal = room.deal_index ?? 0;
    const els = items.map((it, i) => {
      const key = `${deal}:${view.tricks_played - (settled ? 1 : 0)}:${i}:${it.seat}:${it.card}`;
      const fresh = !this.seen.has(key) && !S.settled;
      this.seen.add(key);
      const who = it.seat === null ? "" : it.seat === S.seat ? t("You") : seatName(room, it.seat);
      const mark = it.mark === "tochoo" ? t("tochoo") : it.mark === "ruff" ? t("ruff")
        : it.mark === "irregularity" ? t("irregular") : it.mark === "void" ? t("cannot follow") : "";
      const label = it.card ? `${who}: ${cardName(it.card)}${mark ? ` (${mark})` : ""}` : `${who}: ${mark}`;
      const el = h("div", { class: `played${it.mark ? ` mark-${it.mark}` : ""}${fresh && !reducedMotion() ? " enter" : ""}`,
        role: "listitem", "aria-label": label, "data-seat": it.seat ?? "", "data-card": it.card || "", "data-mark": it.mark || null,
        "data-testid": "trick-card", style: { zIndex: i + 1 } },
      it.card ? cardFace(it.card) : h("span", { class: "face void", "aria-hidden": "true" }, "✕"),
      h("span", { class: "who", "aria-hidden": "true" }, who),
      mark ? h("span", { class: "mark", "aria-hidden": "true" }, mark) : null);
      return el;
    });
    fill(this.trick, els);
    this.trick.classList.toggle("settled", !!settled);
    this.trick.classList.toggle("picked", !!settled && last.kind === "pickup");
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
    } else {
      this.caption.textContent = "";
      delete this.trick.dataset.settled;
    }
    this.pile.textContent = t("waste pile: {n}", { n: view.waste_size });
  }

  /** Position the trick's cards towards their players (in the rows layout: in a row, in the
   * order they were played, below the seats), and where new ones slide in from. */
  placeTrick() {
    const w = this.felt.clientWidth;
    const hgt = this.felt.clientHeight;
    const row = this.felt.classList.contains("rows");
    const cards = [...this.trick.children];
    if (row) {
      const W = this.trick.clientWidth;
      const cw = (cards[0] && cards[0].firstChild && cards[0].firstChild.offsetWidth) || 44;
      const step = cards.length > 1 ? Math.min(cw + 10, (W - cw) / (cards.length - 1)) : 0;
      this.trick.style.setProperty("--step", `${cards.length > 1 ? step : cw + 10}px`);
      const mid = this.trick.getBoundingClientRect();
      const seatsBottom = this.seats.getBoundingClientRect().bottom;
      cards.forEach((el, i) => {
        const x = (i - (cards.length - 1) / 2) * step;
        el.style.left = `calc(50% + ${x}px)`;
        el.style.top = "50%";
        const box = el.dataset.seat === "" ? null : this.seats.querySelector(`[data-seat="${el.dataset.seat}"]`);
        const r = box && box.getBoundingClientRect();
        el.style.setProperty("--fx", r ? `${r.left + r.width / 2 - (mid.left + mid.width / 2 + x)}px` : "0px");
        // from just below the seats, under its player's box: the sliding card crosses no box either
        el.style.setProperty("--fy", r ? `${Math.min(0, seatsBottom + 2 - (mid.top + mid.height / 2 - el.offsetHeight / 2))}px` : "0px");
      });
      return;
    }
    for (const el of cards) {
      const seat = el.dataset.seat === "" ? null : Number(el.dataset.seat);
      if (seat === null || !this.n) continue;
      const a = (this.angle(seat) * Math.PI) / 180;
      const x = Math.cos(a) * w * 0.15;
      const y = Math.sin(a) * hgt * 0.16;
      el.style.left = `calc(50% + ${x}px)`;
      el.style.top = `calc(50% + ${y}px)`;
      // Slide in from the player's place on the table (relative to where the card lands).
      const box = this.seats.querySelector(`[data-seat="${seat}"]`);
      const fx = box ? box.offsetLeft - w / 2 : Math.cos(a) * w * 0.41;
      const fy = box ? box.offsetTop - hgt / 2 : Math.sin(a) * hgt * 0.45;
      el.style.setProperty("--fx", `${fx - x}px`);
      el.style.setProperty("--fy", `${fy - y}px`);
    }
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
    if (room.status === "finished") {
      parts.push(h("p", { class: "match-over", "data-testid": "match-over" }, t("The match is over.")));
      const winners = (room.standings || []).filter((s) => s.place === 1).map((s) => seatName(room, s.seat));
      if (winners.length) parts.push(h("p", { class: "winner" }, t("Winner of the match: {names}", { names: winners.join(", ") })));
      parts.push(h("a", { href: "/", class: "button", "data-testid": "new-game" }, t("New game")));
    } else if (room.status === "between_deals") {
      if (S.isHost) parts.push(h("button", { class: "primary", "data-testid": "next-deal", onclick: () => this.actions.next() }, t("Next deal")));
      else parts.push(h("p", {}, t("Waiting for the host to start the next deal.")));
    }
    fill(this.outcome, parts);
  }

  renderActions(S) {
    const { view, room } = S;
    const legal = new Set(view ? view.legal_actions : []);
    const btns = [];
    if (legal.has("take")) {
      const target = leftActive(view, S.seat);
      const who = target === null ? "" : seatName(room, target);
      btns.push(h("button", { class: "primary", "data-testid": "take", "aria-describedby": "status",
        title: who ? t("Take {name}'s hand", { name: who }) : null, onclick: () => this.actions.act("take") }, t("Take left hand")));
    }
    if (legal.has("pass")) btns.push(h("button", { "data-testid": "pass", onclick: () => this.actions.act("pass") }, t("Pass")));
    if (legal.has("pickup")) btns.push(h("button", { "data-testid": "pickup", onclick: () => this.actions.act("pickup") }, t("Pick up")));
    for (const b of btns) if (S.pending) b.disabled = true;
    // Keep keyboard focus on the same button across updates.
    const focused = document.activeElement && this.buttons.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
    fill(this.buttons, btns);
    if (focused) { const b = this.buttons.querySelector(`[data-testid="${focused}"]`); if (b) b.focus(); }
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
    const bits = [h("strong", {}, seatName(room, S.seat)), " · ", t("Cards: {n}", { n: hand.length })];
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
      el.classList.toggle("my-turn", choosing);
      if (ok || !this.whyNot(card)) el.removeAttribute("title");
      else el.title = this.whyNot(card);
      return el;
    });
    this.hand.replaceChildren(...els);
    this.hand.setAttribute("aria-label", t("Your hand") + " · " + t("Cards: {n}", { n: hand.length }));
    if (!hand.includes(this.focusCard)) {
      const firstLegal = hand.find((c) => legal.has(c));
      this.focusCard = hadFocus && oldIndex >= 0 && hand.length ? hand[Math.min(oldIndex, hand.length - 1)] : firstLegal ?? hand[0] ?? null;
    }
    // Your turn starts: bring the focus to a playable card unless the user is busy elsewhere.
    const turnStarts = myTurn && !this.wasMyTurn;
    this.wasMyTurn = myTurn;
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
      const why = this.whyNot(card);
      if (why) this.actions.notice(why);
      return;
    }
    this.actions.act(card);
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
    const rowStep = ch * (rows > 3 ? 0.5 : 0.6);
    cards.forEach((el, i) => {
      const r = Math.floor(i / perRow);
      const c = i % perRow;
      const inRow = Math.min(perRow, n - r * perRow);
      const width = cw + step * (inRow - 1);
      el.style.left = `${(W - width) / 2 + c * step}px`;
      el.style.top = `${r * rowStep}px`;
      el.style.zIndex = String(i + 1);
    });
    this.hand.style.height = `${ch + rowStep * (rows - 1) + 12}px`;
    this.hand.classList.toggle("stacked", rows > 1);
  }

  renderStatus(S) {
    const { view, room } = S;
    let text = "";
    let mine = false;
    if (room.status === "finished") text = t("The match is over.");
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
    fill(this.status, cardText(text));
    this.status.classList.toggle("mine", mine);
    if (mine && !this.announcedVersion) this.announce.textContent = cardSpeech(text);
    this.announcedVersion = mine;
    if (!mine) this.announce.textContent = "";
  }

  renderLog(S) {
    if (S.logReset) {
      this.log.replaceChildren();
      this.logCount = 0;
      S.logReset = false;
    }
    for (; this.logCount < S.log.length; this.logCount++) {
      const line = S.log[this.logCount];
      this.log.append(h("li", { class: line.heading ? "heading" : "" }, cardText(line.text)));
    }
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
          h("td", {}, r.place ?? ""), h("th", { scope: "row" }, seatName(room, r.seat)), h("td", {}, r.points ?? ""),
          h("td", {}, r.losses ?? ""), dehla ? h("td", {}, r.tens ?? 0) : null, chips ? h("td", {}, r.chips ?? 0) : null)))));
    }
    const done = (room.deal_index ?? 0) + (view && view.outcome ? 1 : 0);
    const total = room.deals ?? (room.config && room.config.deals) ?? 1;
    const items = [];
    for (let i = 0; i < done; i++) {
      const d = S.history && (S.history.find((x) => x.index === i) || (S.history[i] && S.history[i].index === undefined ? S.history[i] : null));
      const loser = d ? (d.loser === null || d.loser === undefined ? t("no loser") : seatName(room, d.loser)) : null;
      items.push(h("li", {}, h("a", { href: `/api/rooms/${encodeURIComponent(room.code)}/deals/${i}/record`, download: `getaway-${room.code}-deal-${i + 1}.json`,
        "data-testid": `record-${i}` }, t("Record of deal {k}", { k: i + 1 })), loser ? ` · ${t("Loser: {name}", { name: loser })}` : ""));
    }
    fill(this.records, h("p", { class: "deal-no" }, t("Deal {k} of {n}", { k: Math.min(total, (room.deal_index ?? 0) + 1), n: total })),
      items.length ? h("ul", { class: "records" }, items) : null);
  }

  /** Refresh the absence countdowns (called every second). */
  tick() {
    for (const el of this.seats.querySelectorAll("[data-deadline]")) el.textContent = awayText(Number(el.dataset.deadline) || null);
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

/** The nearest active player on `seat`'s left (the hand a take would take). */
export function leftActive(view, seat) {
  if (!view || seat === null || seat === undefined) return null;
  for (let k = 1; k < view.players; k++) {
    const s = (seat + k) % view.players;
    if (!view.got_away[s]) return s;
  }
  return null;
}
