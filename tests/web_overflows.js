// The texts of the page that do not fit (tests/test_web_rtl_e2e.py _OVERFLOWS): a function
// returning a list of problems, empty when all is well.
() => {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  // checkVisibility: not inside a closed <details> (content-visibility), not display: none
  const shown = (el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: false }) && el.getClientRects().length > 0;
  const clips = (el) => { const cs = getComputedStyle(el); return cs.overflowX !== "visible" || cs.overflowY !== "visible"; };
  const label = (el) => (el.dataset.testid || el.className || el.tagName).toString().slice(0, 40) + ": " + el.textContent.trim().slice(0, 30);
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!/[\p{L}\p{N}]/u.test(n.data)) continue;
    const el = n.parentElement;
    if (!el || el.closest(".sr-only, select, [hidden], .fly-layer, svg, .skip:not(:focus), .last-action .line") || !shown(el)) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    // a line scrolled out of its scrolling box (the narration) is not seen: not measured
    const seen = rects.filter((r) => {
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        if (!clips(a)) continue;
        const b = a.getBoundingClientRect(), mid = (r.top + r.bottom) / 2;
        if (a.scrollHeight > a.clientHeight + 1 && (mid < b.top || mid > b.bottom)) return false;
      }
      return true;
    });
    if (seen.length) texts.push({ el, rects: seen, n });
  }
  for (const { el, rects } of texts) {
    for (const r of rects) {
      if (r.left < -1 || r.right > vw + 1) problems.push(`off screen: ${label(el)} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
      // every clipping ancestor (up to the page) holds the text's box; vertically its middle
      // (Nastaliq's glyph boxes are taller than its lines)
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        if (!clips(a) || a.matches(".log, .rules, .side, .outcome, .actions, .replay, html")) continue;
        const b = a.getBoundingClientRect();
        const mid = (r.top + r.bottom) / 2;
        if (r.left < b.left - 1 || r.right > b.right + 1 || mid < b.top || mid > b.bottom)
          problems.push(`clipped: ${label(el)} in ${label(a)} text [${Math.round(r.left)}, ${Math.round(r.right)}] box [${Math.round(b.left)}, ${Math.round(b.right)}]`);
      }
    }
  }
  // a clipping element's content wider than it (a text cut short), but the scrolling boxes
  for (const el of document.querySelectorAll("body *")) {
    if (!shown(el) || !clips(el) || el.closest(".sr-only, .fly-layer, svg, .last-action .line") || el.matches(".sr-only, .log, .rules, .side, .actions, .hand, .felt, .face, .art, .fly-layer, .take-hand, .outcome")) continue;
    if (!/[\p{L}\p{N}]/u.test(el.textContent)) continue;
    if (el.scrollWidth > el.clientWidth + 1) problems.push(`wider than its box: ${label(el)} ${el.scrollWidth} > ${el.clientWidth}`);
  }
  // no two texts overlap inside a seat box, the header, the status line, the outcome, a panel
  const groups = new Map();
  for (const t of texts) {
    const g = t.el.closest(".seat-box, .top, .status, .outcome, .panel, .card-panel, .me, .last-action");
    if (!g) continue;
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(t);
  }
  for (const list of groups.values()) {
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
      const A = list[i], B = list[j];
      if (A.el === B.el || A.el.contains(B.el) || B.el.contains(A.el)) continue;
      for (const a of A.rects) for (const b of B.rects) {
        const ay = [a.top + a.height / 4, a.bottom - a.height / 4], by = [b.top + b.height / 4, b.bottom - b.height / 4];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), hgt = Math.min(ay[1], by[1]) - Math.max(ay[0], by[0]);
        if (w > 1 && hgt > 1) problems.push(`overlap: ${label(A.el)} / ${label(B.el)}`);
      }
    }
  }
  return [...new Set(problems)];
}
