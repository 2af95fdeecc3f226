"""Shared test helpers: build deals from explicit positions, and soak sizes."""

from __future__ import annotations

import os

import pytest

from getaway import Deal, Position, Rules, parse_cards

#: Scale of the soak tests (marker ``soak``): CI runs 1, a long local run e.g. GETAWAY_SOAK=20.
SOAK = max(1, int(os.environ.get("GETAWAY_SOAK", "1")))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--train",
        action="store_true",
        help="run the tests marked `train` (the train extra: torch, SB3, sb3-contrib); python3 dev.py test --train",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``train`` are out of the default run: they skip unless ``--train`` is given."""
    if config.getoption("--train"):
        return
    skip = pytest.mark.skip(reason="a `train` test: run with `python3 dev.py test --train` (installs the train extra)")
    for item in items:
        if "train" in item.keywords:
            item.add_marker(skip)


def make_deal(
    hands: list[list[str]] | list[str],
    *,
    profile: str = "punjab",
    waste: list[str] | str = (),
    leader: int = 0,
    first_trick_done: bool = True,
    seed: int = 0,
    **options: object,
) -> Deal:
    """A deal from an explicit position; hands as lists of card names or space-separated strings."""
    hands = [h.split() if isinstance(h, str) else list(h) for h in hands]
    if isinstance(waste, str):
        waste = waste.split()
    options.setdefault("takes", "off")
    rules = Rules.profile(profile, players=len(hands), **options)
    position = Position.from_cards(hands, waste=list(waste), leader=leader, first_trick_done=first_trick_done)
    return Deal(rules, dealer=0, seed=seed, position=position)


@pytest.fixture
def deal_from():
    """The :func:`make_deal` helper as a fixture."""
    return make_deal


def play_all(deal: Deal, cards: str, seat: int | None = None) -> list:
    """Play space-separated ``cards`` one after another, each by the seat on turn (or ``seat``),
    and return every event they caused."""
    events = []
    for card in cards.split():
        events.extend(deal.play(card, seat))
    return events


def kinds(events) -> list[str]:
    """The kinds of ``events``, in order."""
    return [e.kind for e in events]


def names(cards) -> list[str]:
    """Card names of ``cards`` (as the engine prints them)."""
    return [str(c) for c in cards]


def card_set(text: str) -> set:
    """The set of cards named in ``text`` (space-separated), to compare hands and piles."""
    return set(parse_cards(text))


def play_out(deal: Deal, rng, limit: int = 20_000) -> Deal:
    """Play random legal actions of the seat on turn until the deal ends; returns ``deal``."""
    for _ in range(limit):
        if deal.is_over:
            return deal
        deal.apply(rng.choice(deal.legal_actions()))
    raise AssertionError(f"the deal did not end within {limit} actions")


@pytest.fixture(autouse=True)
def _english_after_each_test():
    """The language is process-wide (getaway.text.i18n.use): a test that switches it must not leak
    its language into the next test."""
    yield
    from getaway.text import i18n

    i18n.use("en")
