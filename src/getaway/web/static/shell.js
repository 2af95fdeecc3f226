// The page's shell around app.js (docs/web.md "Fonts, install, offline"): the bots' mark drawn as
// an SVG icon, and the service worker (/sw.js) that keeps the app shell for offline visits.
// Loaded by index.html as its own module: nothing here is needed for a game, and each part
// fails quietly (no worker: the page works online as before).

import { svg } from "./dom.js";
import { t } from "./i18n.js";
// The bots' mark in texts (the server's seat names too: "🤖 Bot 2"); no emoji font is needed:
// the page draws it as botIcon().
import { BOT_MARK } from "./table.js";

/** The bots' mark as an inline SVG icon (`role="img"`, named "bot" in the page's language for
 * screen readers, `data-testid="bot-mark"`), sized to the text around it (1em). */
export function botIcon() {
  const label = t("bot");
  const icon = svg("svg", { class: "bot-mark", viewBox: "0 0 24 24", width: "1em", height: "1em", role: "img",
    "aria-label": label, focusable: "false", "data-testid": "bot-mark" },
  svg("title", {}, label),
  svg("path", { d: "M12 2.5v3", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round", fill: "none" }),
  svg("circle", { cx: "12", cy: "2.5", r: "1.6", fill: "currentColor" }),
  svg("rect", { x: "3.5", y: "6.5", width: "17", height: "13", rx: "3.5", fill: "none", stroke: "currentColor", "stroke-width": "2" }),
  svg("circle", { cx: "9", cy: "12", r: "1.9", fill: "currentColor" }),
  svg("circle", { cx: "15", cy: "12", r: "1.9", fill: "currentColor" }),
  svg("path", { d: "M9 16.2h6M1.5 11v4M22.5 11v4", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round", fill: "none" }));
  icon.style.verticalAlign = "-0.125em";
  return icon;
}

const NO_ICON = new Set(["OPTION", "TITLE", "TEXTAREA", "SCRIPT", "STYLE"]);

function markText(node) {
  // A text node with the mark: the mark becomes the icon (in an <option>, where no element can
  // be, it is left out: "Bot 2" says it).
  const parent = node.parentNode;
  if (!parent || !node.data.includes(BOT_MARK) || parent.closest?.("svg")) return;
  if (NO_ICON.has(parent.nodeName)) {
    node.data = node.data.replaceAll(`${BOT_MARK} `, "").replaceAll(BOT_MARK, "");
    return;
  }
  const parts = node.data.split(BOT_MARK);
  const pieces = [];
  parts.forEach((text, i) => {
    if (i > 0) pieces.push(botIcon());
    if (text) pieces.push(document.createTextNode(text));
  });
  node.replaceWith(...pieces);
}

const NAMED = ["title", "aria-label"];

function markAttributes(el) {
  // A tooltip or an accessible name with the mark: the word instead ("bot Bot 2").
  for (const name of NAMED) {
    const value = el.getAttribute(name);
    if (value && value.includes(BOT_MARK)) el.setAttribute(name, value.replaceAll(BOT_MARK, t("bot")));
  }
}

function markIn(root) {
  if (root.nodeType === Node.TEXT_NODE) { markText(root); return; }
  if (root.nodeType !== Node.ELEMENT_NODE && root.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
  if (root.nodeType === Node.ELEMENT_NODE) markAttributes(root);
  root.querySelectorAll(NAMED.map((n) => `[${n}*="${BOT_MARK}"]`).join(",")).forEach(markAttributes);
  if (!root.textContent.includes(BOT_MARK)) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found = [];
  while (walker.nextNode()) if (walker.currentNode.data.includes(BOT_MARK)) found.push(walker.currentNode);
  found.forEach(markText);
}

/** Draw every bots' mark under `root` as botIcon(), now and whenever the page changes (a
 * MutationObserver: its changes are made before the next paint, so no empty box shows); in a
 * `title` or an `aria-label`, the mark becomes the word "bot". */
export function watchBotMarks(root = document.body) {
  markIn(root);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "characterData") markIn(r.target);
      else if (r.type === "attributes") markAttributes(r.target);
      else r.addedNodes.forEach(markIn);
    }
  }).observe(root, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: NAMED });
}

/** Register the service worker; once it controls the page, ask it for the fonts this page
 * has loaded already (the script faces are cached when first used, not at install). */
export async function startWorker() {
  if (!("serviceWorker" in navigator)) return;
  try {
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((done) => navigator.serviceWorker.addEventListener("controllerchange", done, { once: true }));
    }
    const fonts = performance.getEntriesByType("resource").map((e) => new URL(e.name))
      .filter((u) => u.origin === location.origin && u.pathname.startsWith("/static/fonts/")).map((u) => u.pathname);
    await Promise.allSettled([...new Set(fonts)].map((path) => fetch(path)));
  } catch (e) { /* no worker (a private window, an old browser): the page works online */ }
}

watchBotMarks(document.body);
startWorker();
