// Motion and cues (issue 15, item 3), with the Web Animations API only. The page is always in its
// new state before anything moves: an animation only shows where a card came from (a played card
// slides in from the hand or the seat, a finished trick slides to the waste pile or into the
// picker's place, a taken hand moves to the taker); it never holds back the state nor the input,
// and flying copies live in a layer that takes no pointer events and is hidden from screen
// readers. Under prefers-reduced-motion nothing moves. Your turn is cued by a pulse (motion) and
// a short tone (not motion), which the header's sound button mutes; the choice is remembered.

import { h, svg } from "./dom.js";
import { t } from "./i18n.js";
import { cardBack } from "./cards.js";

export const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// The player's pace (issue 24): relaxed, normal or fast, kept in this browser. It scales how
// long a finished trick lingers on the table and the animations; the page tells the server too
// (hello's `speed`, the `speed` message), whose room holds the next lead for the linger and
// paces its bots at its slowest socket's speed (docs/web.md "Pace"; web/rooms/timers.py PACES).
const SPEED_KEY = "getaway.speed";
export const SPEEDS = { relaxed: 1.6, normal: 1, fast: 0.6 };

/** The player's speed: "relaxed", "normal" (the default) or "fast". */
export function speedName() {
  const v = localStorage.getItem(SPEED_KEY);
  return Object.hasOwn(SPEEDS, v) ? v : "normal";
}

/** The factor the player's speed puts on the page's times (1.6, 1 or 0.6). */
export const pace = () => SPEEDS[speedName()];

/** The header's speed control (a select), remembered in localStorage; `onChange(name)` is
 * called with the new speed (the page tells the room's socket). */
export function speedSelect(onChange = null) {
  const names = { relaxed: t("Relaxed"), normal: t("Normal pace"), fast: t("Fast") };
  const sel = h("select", { class: "speed", "data-testid": "speed", "aria-label": t("Speed"), title: t("Speed") },
    Object.keys(SPEEDS).map((k) => h("option", { value: k }, names[k])));
  sel.value = speedName();
  sel.addEventListener("change", () => {
    localStorage.setItem(SPEED_KEY, sel.value);
    if (onChange) onChange(sel.value);
  });
  return sel;
}

const EASE = "cubic-bezier(.2, .7, .3, 1)";
let layer = null;

function flyLayer() {
  if (!layer || !layer.isConnected) {
    layer = h("div", { class: "fly-layer", "aria-hidden": "true" });
    document.body.append(layer);
  }
  return layer;
}

const centre = (r) => [r.left + r.width / 2, r.top + r.height / 2];

/** Slide `el` (already in its place) in from the rectangle `from` (a DOMRect: the hand card it
 * was, the seat box of its player). Returns the Animation, or null (reduced motion, no rect). */
export function slideIn(el, from, { duration = 340, delay = 0 } = {}) {
  if (reducedMotion() || !from || !el.isConnected) return null;
  const to = el.getBoundingClientRect();
  if (!to.width || !from.width) return null;
  const [fx, fy] = centre(from);
  const [tx, ty] = centre(to);
  const scale = Math.max(0.5, Math.min(1.5, from.width / to.width));
  const k = pace();
  return el.animate(
    [{ transform: `translate(${fx - tx}px, ${fy - ty}px) scale(${scale})`, opacity: 0.7 }, { transform: "none", opacity: 1 }],
    { duration: duration * k, delay: delay * k, easing: EASE, fill: "backwards" });
}

/** Fly copies of `els` (cards on the table) to the rectangle `to` (the waste pile, a seat box, the
 * hand), shrinking and fading; the originals are hidden meanwhile (`onStart`). The copies are
 * removed when they land. Returns the animations ([] under reduced motion). */
export function flyAway(els, to, { delay = 0, duration = 480, onStart } = {}) {
  if (reducedMotion() || !to || !els.length) return [];
  const [tx, ty] = centre(to);
  const anims = [];
  const k = pace();
  els.forEach((el, i) => {
    const r = el.getBoundingClientRect();
    if (!r.width) return;
    const copy = el.cloneNode(true);
    copy.removeAttribute("id");
    copy.classList.add("flying");
    Object.assign(copy.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
    flyLayer().append(copy);
    const [fx, fy] = centre(r);
    const a = copy.animate(
      [{ transform: "none", opacity: 1 }, { transform: `translate(${tx - fx}px, ${ty - fy}px) scale(.45)`, opacity: 0.15 }],
      { duration: duration * k, delay: (delay + i * 40) * k, easing: "ease-in", fill: "both" });
    a.finished.catch(() => {}).finally(() => copy.remove());
    anims.push(a);
  });
  if (onStart) onStart();
  return anims;
}

/** A few card backs moving from `from` to `to` (a taken hand going to the taker). */
export function moveBacks(from, to, count, { size } = {}) {
  if (reducedMotion() || !from || !to) return [];
  const [fx, fy] = centre(from);
  const [tx, ty] = centre(to);
  const anims = [];
  const k = pace();
  for (let i = 0; i < Math.min(6, Math.max(1, count)); i++) {
    const back = cardBack({ class: "face back flying" });
    const w = size ? size.width : 40;
    const hgt = size ? size.height : 56;
    Object.assign(back.style, { left: `${fx - w / 2}px`, top: `${fy - hgt / 2}px`, width: `${w}px`, height: `${hgt}px` });
    flyLayer().append(back);
    const a = back.animate(
      [{ transform: "none", opacity: 0.9 }, { transform: `translate(${tx - fx}px, ${ty - fy}px) rotate(${(i - 2) * 6}deg)`, opacity: 1 }],
      { duration: 560 * k, delay: i * 60 * k, easing: EASE, fill: "both" });
    a.finished.catch(() => {}).finally(() => back.remove());
    anims.push(a);
  }
  return anims;
}

/** Your turn: a pulse on `els` (unless motion is reduced) and a short tone (unless muted). */
export function turnCue(els) {
  if (!reducedMotion()) {
    for (const el of els) {
      if (!el || !el.isConnected) continue;
      el.animate(
        [{ boxShadow: "0 0 0 0 rgba(242, 193, 78, .95)" }, { boxShadow: "0 0 0 12px rgba(242, 193, 78, 0)" }],
        { duration: 850, iterations: 2, easing: "ease-out" });
    }
  }
  if (soundOn()) tone();
}

// ---------- the turn sound ----------

const SOUND_KEY = "getaway.sound";
let audio = null;

export const soundOn = () => localStorage.getItem(SOUND_KEY) !== "off";

function tone() {
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.setValueAtTime(660, now);
    osc.frequency.setValueAtTime(880, now + 0.09);
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.12, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.28);
    osc.connect(gain).connect(audio.destination);
    osc.start(now);
    osc.stop(now + 0.3);
  } catch (e) { /* no audio on this device: the pulse and the status line remain */ }
}

function speaker(on) {
  // A loudspeaker, with sound waves (on) or a cross (muted); drawn here: no icon font needed.
  const path = (d, fill) => svg("path", { d, fill: fill ? "currentColor" : "none", stroke: "currentColor",
    "stroke-width": "2", "stroke-linecap": "round" });
  const waves = on ? [path("M15.5 9a4 4 0 0 1 0 6"), path("M18 6.5a7.5 7.5 0 0 1 0 11")] : [path("M16 9.5l5 5m0-5l-5 5")];
  return svg("svg", { viewBox: "0 0 24 24", width: "22", height: "22", "aria-hidden": "true", focusable: "false" },
    path("M3 9.5v5h4l5 4.5v-14l-5 4.5z", true), waves);
}

/** The header's button that mutes or unmutes the turn sound (aria-pressed: sound on). */
export function soundButton() {
  const b = h("button", { type: "button", class: "ghost sound", "data-testid": "sound" });
  const show = () => {
    const on = soundOn();
    b.setAttribute("aria-pressed", String(on));
    b.setAttribute("aria-label", t("Sound when it is your turn"));
    b.title = on ? t("Sound on: click to mute") : t("Sound off: click to turn it on");
    b.replaceChildren(speaker(on));
  };
  b.addEventListener("click", () => {
    localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
    show();
  });
  show();
  return b;
}
