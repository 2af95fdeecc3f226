"""Knowledge derives at least every true fact that the three old readers derive
(bots.tracking.Tracker, envs.encoding.Tracker, bots.model.PublicFacts): known cards and
"holds no card of this suit", each checked against the real hands first. Goes with them."""

from __future__ import annotations

import os
from collections import Counter

from _old_readers import EncTracker, PublicFacts
from _old_readers import Tracker as BotTracker
from getaway import Knowledge, player_view
from getaway.core.cards import SUIT_MASKS
from test_knowledge import _trial
from test_properties import RandomPlayers, play_move

DEALS = int(os.environ.get("GETAWAY_READERS_DEALS", "40"))


def compare(trial, stats: Counter) -> None:
    deal = trial.new_deal()
    players = RandomPlayers(trial.rules, trial.policy_seed)
    if trial.rules.takes != "off":
        players.take_rate = 0.08
    n = deal.players
    enc = [EncTracker(n) for _ in range(n)]
    public = Knowledge.of(deal, None)
    step = 0
    while not deal.is_over and step < 5000:
        play_move(deal, players)
        step += 1
        public.follow(deal)
        hands = [deal.hand_mask(s) for s in range(n)]
        for me in range(n):
            view = player_view(deal, me)
            k = view.knowledge
            readers = {}
            t = BotTracker(view)
            readers["tracking"] = (t.known, lambda s, suit, t=t: t.is_void(s, suit), k)
            readers["tracking.public"] = (
                t.public_known,
                lambda s, suit, t=t: bool(t.public_voids[s] >> suit & 1) and not t.public_known[s] & SUIT_MASKS[suit],
                public,
            )
            e = enc[me].update(view)
            readers["encoding"] = (e.known, lambda s, suit, e=e: bool(e.voids[s] >> suit & 1), k)
            if me == 0:
                f = PublicFacts.from_events(n, view.history)
                readers["model"] = (
                    f.known,
                    lambda s, suit, f=f: bool(f.voids[s] >> suit & 1) and not f.known[s] & SUIT_MASKS[suit],
                    public,
                )
            for name, (known, void, ref) in readers.items():
                for s in range(n):
                    # the viewer knows at least what the public knows; of its own hand, what the
                    # others know is the public knowledge
                    if s == me and ref is k:
                        continue
                    mine = public if s == me else k
                    true_known = known[s] & hands[s]
                    stats[f"{name} known false"] += (known[s] & ~hands[s]).bit_count()
                    missing = true_known & ~mine.known[s]
                    stats[f"{name} known missed"] += missing.bit_count()
                    stats[f"{name} known checked"] += true_known.bit_count()
                    for suit in range(4):
                        if void(s, suit):
                            if hands[s] & SUIT_MASKS[suit]:
                                stats[f"{name} void false"] += 1
                                continue
                            stats[f"{name} void checked"] += 1
                            if not mine.is_void(s, suit):
                                if mine is public and name == "tracking.public" and s == me:
                                    # true by luck: the old tracker's "public" entry for the viewer
                                    # itself keeps what only the viewer saw (its own blind draw, the
                                    # hand it took): others cannot deduce it
                                    stats[f"{name} void unjustified (viewer's private information)"] += 1
                                else:
                                    stats[f"{name} void missed"] += 1
                        elif mine.is_void(s, suit):
                            stats[f"{name} void more (Knowledge only)"] += 1
            stats["views"] += 1


def test_knowledge_derives_every_true_fact_of_the_old_readers() -> None:
    stats: Counter = Counter()
    for i in range(DEALS):
        compare(_trial(i), stats)
    print(dict(sorted(stats.items())))
    missed = {k: v for k, v in stats.items() if k.endswith("missed") and v}
    assert not missed, (missed, dict(stats))
