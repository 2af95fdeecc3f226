// Quick chat at the table (docs/web.md, "Quick chat"): a button opens a palette of the preset
// phrases and emotes (their keys and texts from GET /api/strings: no free text); a phrase said
// shows as a bubble by its sender's seat for a few seconds (the player's own by their name line,
// never over the hand). Each player may mute a seat's bubbles (kept in localStorage, per room).
// Spectators see the bubbles and have no button.

import { h, fill } from "./dom.js";
import { t, chatKeys, chatText } from "./i18n.js";

/** How long a bubble shows (ms). */
const SHOWN = 4000;
/** localStorage key: the muted seats of each room, {code: [seat, …]}. */
const MUTED = "getaway-chat-muted";

function mutedAll() {
  try { return JSON.parse(localStorage.getItem(MUTED) || "{}") || {}; } catch (e) { return {}; }
}

export class ChatView {
  /** `say(phrase)`: sends a chat; `nameOf(room, seat)`: a seat's name as the table shows it. */
  constructor(say, nameOf) {
    this.say = say;
    this.nameOf = nameOf;
    this.bubbles = new Map();  // seat -> {phrase, timer}
    this.S = null;
    this.palette = h("div", { class: "chat-palette", id: "chat-palette", "data-testid": "chat-palette", hidden: true });
    this.button = h("button", { type: "button", class: "chat-button", "data-testid": "chat-button", "aria-controls": "chat-palette",
      "aria-expanded": "false", onclick: () => this.toggle() }, t("Quick chat"));
    this.el = h("div", { class: "chat", "data-testid": "chat" }, this.button, this.palette);
    this.el.addEventListener("keydown", (e) => { if (e.key === "Escape" && !this.palette.hidden) { this.toggle(false); this.button.focus(); } });
  }

  /** The room and seat shown (a spectator has no button); the bubbles placed on the seats just rendered. */
  update(S, seatsEl, meEl) {
    this.S = S;
    this.seatsEl = seatsEl;
    this.meEl = meEl;
    const seated = S.seat !== null && S.seat !== undefined;
    // no chat where no socket can carry it (a replay, a lesson: their tables have no `chat` action)
    this.el.hidden = !seated || !chatKeys().length || typeof this.say !== "function";
    if (this.el.hidden) this.toggle(false);
    this.place();
  }

  toggle(open = this.palette.hidden) {
    this.palette.hidden = !open;
    this.button.setAttribute("aria-expanded", String(open));
    if (open) this.renderPalette();
  }

  renderPalette() {
    const phrases = chatKeys().map((key) => h("button", { type: "button", class: "chat-phrase", "data-testid": `chat-${key}`,
      onclick: () => { this.say(key); this.toggle(false); this.button.focus(); } }, chatText(key)));
    const room = this.S && this.S.room;
    const others = room ? room.seats.filter((s) => s.kind === "human" && s.seat !== this.S.seat) : [];
    const mutes = others.map((s) => h("button", { type: "button", class: "chat-mute", "data-testid": `chat-mute-${s.seat}`,
      "aria-pressed": String(this.muted(s.seat)), "aria-label": t("Mute {name}", { name: this.nameOf(room, s.seat) }),
      onclick: () => { this.setMuted(s.seat, !this.muted(s.seat)); this.renderPalette(); } }, this.nameOf(room, s.seat)));
    fill(this.palette, h("div", { class: "chat-phrases" }, phrases),
      mutes.length ? h("div", { class: "chat-mutes" }, h("span", {}, t("Mute")), mutes) : null);
    const first = this.palette.querySelector("button");
    if (first) first.focus();
  }

  muted(seat) {
    const code = this.S && this.S.room && this.S.room.code;
    return (mutedAll()[code] || []).includes(seat);
  }

  setMuted(seat, on) {
    const code = this.S && this.S.room && this.S.room.code;
    if (!code) return;
    const all = mutedAll();
    const seats = new Set(all[code] || []);
    if (on) seats.add(seat); else seats.delete(seat);
    all[code] = [...seats];
    localStorage.setItem(MUTED, JSON.stringify(all));
    if (on) this.drop(seat);
  }

  /** A `chat` frame: `{seat, phrase}`, shown unless its seat is muted here. */
  heard(msg) {
    if (this.muted(msg.seat)) return;
    this.drop(msg.seat);
    const timer = setTimeout(() => this.drop(msg.seat), SHOWN);
    this.bubbles.set(msg.seat, { phrase: msg.phrase, timer });
    this.place();
  }

  drop(seat) {
    const b = this.bubbles.get(seat);
    if (!b) return;
    clearTimeout(b.timer);
    this.bubbles.delete(seat);
    this.place();
  }

  /** Each bubble by its seat's box (the player's own after their name line, above the hand). */
  place() {
    if (!this.S || !this.seatsEl) return;
    for (const old of [...this.seatsEl.querySelectorAll(".chat-bubble"), ...this.meEl.querySelectorAll(".chat-bubble")]) old.remove();
    for (const [seat, b] of this.bubbles) {
      const mine = seat === this.S.seat;
      const where = mine ? this.meEl : this.seatsEl.querySelector(`[data-seat="${seat}"]`);
      if (!where) continue;
      const name = mine ? t("You") : this.nameOf(this.S.room, seat);
      where.append(h("span", { class: `chat-bubble${mine ? " mine" : ""}`, "data-testid": `chat-bubble-${seat}`, role: "status",
        "aria-label": `${name}: ${chatText(b.phrase)}` }, chatText(b.phrase)));
    }
  }

  destroy() { for (const seat of [...this.bubbles.keys()]) this.drop(seat); }
}
