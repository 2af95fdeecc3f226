// What lies on the table, worked out from the view's history (PlayerView.to_dict()["history"]):
// the current trick (with tochoo / ruff / void marks) and the trick settled last (picked up
// or sent to the waste), so a settled trick stays visible until the next card is led.

/**
 * @returns {{current: Array, last: null | {items: Array, kind: "pickup"|"waste", seat: number, n: number}}}
 * Items are {seat, card, mark} where mark is "", "tochoo", "ruff", "irregularity" or "void"
 * (a void item has no card).
 */
export function tableFromHistory(history) {
  let current = [];
  let last = null;
  for (const e of history || []) {
    const card = e.cards && e.cards[0];
    switch (e.kind) {
      case "play":
        current.push({ seat: e.seat, card, mark: "" });
        break;
      case "tochoo":
      case "ruff": {
        const item = findItem(current, e.seat, card);
        if (item) item.mark = e.kind;
        else current.push({ seat: e.seat, card, mark: e.kind });
        break;
      }
      case "irregularity": {
        const item = findItem(current, e.seat, card);
        if (item) item.mark = "irregularity";
        else current.push({ seat: e.seat, card, mark: "irregularity" });
        break;
      }
      case "void":
        current.push({ seat: e.seat, card: null, mark: "void" });
        break;
      case "pickup":
        last = { items: current.length ? current : cardsAsItems(e), kind: "pickup", seat: e.seat, n: (e.cards || []).length };
        current = [];
        break;
      case "waste":
        if (!current.length && e.cards && e.cards.length === 1) {
          // A led Joker goes straight to the waste; the same player leads again.
          last = { items: [{ seat: e.seat, card: e.cards[0], mark: "" }], kind: "waste", seat: e.seat, n: 1 };
        } else {
          last = { items: current, kind: "waste", seat: e.seat, n: (e.cards || []).length };
        }
        current = [];
        break;
      default:
        break;
    }
  }
  return { current, last };
}

function findItem(items, seat, card) {
  for (let i = items.length - 1; i >= 0; i--) if (items[i].seat === seat && items[i].card === card) return items[i];
  return null;
}

function cardsAsItems(e) {
  return (e.cards || []).map((card) => ({ seat: null, card, mark: "" }));
}
