"""Bots (heuristic, expert): always legal, deterministic with a seed, blind to hidden cards."""

from __future__ import annotations

import inspect
import random

import pytest

from conftest import SOAK, make_deal
from getaway import Deal, Rules, player_view
from getaway.bots import BOTS, LEVEL_HELP, LEVELS, ExpertBot, HeuristicBot, RandomBot, make_bot
from getaway.bots.expert import OPPONENT_NOISE
from getaway.core.events import PASS, TAKE

VARIANTS = [
    {},
    {"trump": "spades"},
    {"nopickup": True},
    {"kicker": True},
    {"dehla": True},
    {"joker": True},
    {"take_protocol": "interject"},
    {"takes": "leader"},
    {"trump": "spades", "nopickup": True},
]


def _rules(rng: random.Random) -> Rules:
    profile = rng.choice(["punjab", "classic"])
    players = rng.randint(3 if profile == "punjab" else 2, 8)
    options = dict(rng.choice(VARIANTS))
    if profile == "classic" and rng.random() < 0.5:
        options.setdefault("takes", "any")
    return Rules.profile(profile, players=players, **options)


def _play(deal: Deal, bots, rng: random.Random, log: list | None = None) -> Deal:
    for _ in range(5000):
        if deal.is_over:
            return deal
        seat = deal.to_act
        view = player_view(deal, seat)
        action = bots[seat].act(view, view.legal_actions, rng)
        assert action in view.legal_actions, f"{bots[seat].name} chose illegal {action}"
        if log is not None:
            log.append((seat, action))
        deal.apply(action, seat)
    raise AssertionError("deal did not end")


@pytest.mark.parametrize("kind", ["heuristic", "random"])
def test_bots_always_choose_a_legal_action(kind):
    rng = random.Random(4)
    for i in range(60):
        rules = _rules(rng)
        mix = [make_bot(kind) if s % 2 == 0 else RandomBot(take_probability=0.1) for s in range(rules.players)]
        _play(Deal(rules, i % rules.players, 100 + i), mix, random.Random(i))


def test_expert_always_chooses_a_legal_action():
    rng = random.Random(9)
    for i in range(6):
        rules = _rules(rng)
        bots = [ExpertBot(iterations=6) if s == 0 else HeuristicBot() for s in range(rules.players)]
        _play(Deal(rules, 0, 300 + i), bots, random.Random(i))


@pytest.mark.soak
def test_soak_bots_legal_everywhere():
    rng = random.Random(77)
    for i in range(30 * SOAK):
        rules = _rules(rng)
        bots = [ExpertBot(iterations=4) if s == 1 else HeuristicBot() for s in range(rules.players)]
        _play(Deal(rules, 0, 7000 + i), bots, random.Random(i))


@pytest.mark.parametrize("kind", ["heuristic", "expert"])
def test_same_seed_same_play(kind):
    rules = Rules.profile("punjab", players=4)
    logs = []
    for _ in range(2):
        bots = [make_bot(kind, iterations=8) if kind == "expert" else make_bot(kind) for _ in range(4)]
        log: list = []
        _play(Deal(rules, 1, 42), bots, random.Random(5), log)
        logs.append(log)
    assert logs[0] == logs[1]


def test_bots_get_only_the_view_legal_actions_and_rng():
    for cls in (RandomBot, HeuristicBot, ExpertBot):
        assert list(inspect.signature(cls.act).parameters) == ["self", "view", "legal", "rng"]


# Two deals that differ only in the hidden cards of seats 1 and 2 (same sizes, swapped cards):
# seat 0 sees exactly the same view, so every bot must decide the same way in both.
HANDS_A = ["ah 2h 9d 4c", "kh 5d 6c 2s", "3h qd 7c 9s", "8h 4d jc 5s"]
HANDS_B = ["ah 2h 9d 4c", "qd 7c 9s 3h", "5d 6c 2s kh", "8h 4d jc 5s"]


@pytest.mark.parametrize("kind", ["heuristic", "expert"])
def test_no_peeking_hidden_cards_do_not_change_the_decision(kind):
    for profile in ("punjab", "classic"):
        a = make_deal(HANDS_A, waste="as ks qs js", profile=profile)
        b = make_deal(HANDS_B, waste="as ks qs js", profile=profile)
        assert a.hand(1) != b.hand(1)
        va, vb = player_view(a, 0), player_view(b, 0)
        assert va == vb
        bot_a = make_bot(kind, iterations=30) if kind == "expert" else make_bot(kind)
        bot_b = make_bot(kind, iterations=30) if kind == "expert" else make_bot(kind)
        assert bot_a.act(va, va.legal_actions, random.Random(3)) == bot_b.act(vb, vb.legal_actions, random.Random(3))


@pytest.mark.parametrize("kind", ["heuristic", "expert"])
def test_no_peeking_mid_trick(kind):
    # Seats 2 and 3 swap hands; seat 1 answers the same lead with the same view.
    a = make_deal(["ah 2h 9d 4c", "kh 5d 6c 2s", "3h qd 7c 9s", "8h 4d jc 5s"], waste="as ks qs js")
    b = make_deal(["ah 2h 9d 4c", "kh 5d 6c 2s", "8h 4d jc 5s", "3h qd 7c 9s"], waste="as ks qs js")
    a.play("2h")
    b.play("2h")
    va, vb = player_view(a, 1), player_view(b, 1)
    assert va == vb and a.hand(2) != b.hand(2)
    decide = [make_bot(kind, iterations=30) if kind == "expert" else make_bot(kind) for _ in range(2)]
    assert decide[0].act(va, va.legal_actions, random.Random(3)) == decide[1].act(
        vb, vb.legal_actions, random.Random(3)
    )


@pytest.mark.parametrize("kind", ["heuristic", "expert"])
def test_hint_gives_a_legal_action_and_a_sentence(kind):
    deal = Deal(Rules.profile("punjab", players=4), 0, 8)
    bot = make_bot(kind, iterations=10) if kind == "expert" else make_bot(kind)
    rng = random.Random(1)
    seen = 0
    while not deal.is_over and seen < 12:
        view = player_view(deal, deal.to_act)
        action, why = bot.hint(view, view.legal_actions, rng)
        assert action in view.legal_actions
        assert isinstance(why, str) and why.endswith(".") and "\n" not in why and len(why) > 10
        deal.apply(action)
        seen += 1


def test_levels_map_to_kinds():
    assert set(BOTS) >= {"random", "heuristic", "expert"}
    easy, medium = make_bot("easy"), make_bot("medium")
    assert isinstance(easy, HeuristicBot) and isinstance(medium, HeuristicBot)
    assert 0 < medium.noise < easy.noise < 1  # easy plays at random more often
    hard, expert = make_bot("hard"), make_bot("expert")
    assert isinstance(hard, ExpertBot) and isinstance(expert, ExpertBot)
    assert hard.iterations < expert.iterations
    assert list(LEVELS) == ["random", "easy", "medium", "hard", "expert"]  # weakest first
    assert isinstance(make_bot("random"), RandomBot)


def test_every_level_has_one_line_starting_with_its_name():
    assert list(LEVEL_HELP) == list(LEVELS)
    for level, line in LEVEL_HELP.items():
        assert line.startswith(f"{level}: ") and "\n" not in line and len(line) < 100


def test_hard_is_unchanged_by_the_web_time_limit():
    # The web gives a searching level time_limit = SEARCH_SHARE × bot_delay; `hard` samples one
    # world per decision, which a time limit never cuts, so it plays the same under any limit.
    rules = Rules.profile("punjab", players=4)
    for seed in range(3):
        plays = []
        for limit in (None, 1e-9):
            deal = Deal(rules, 0, 40 + seed)
            bot = make_bot("hard") if limit is None else make_bot("hard", time_limit=limit)
            rng, actions = random.Random(seed), []
            while not deal.is_over:
                view = player_view(deal, deal.to_act)
                action = bot.act(view, view.legal_actions, rng)
                actions.append(action)
                deal.apply(action, deal.to_act)
            plays.append(actions)
        assert plays[0] == plays[1]


def test_bot_settings_in_the_name():
    bot = make_bot("expert:iterations=12+margin=0.1")
    assert bot.iterations == 12 and bot.margin == 0.1
    with pytest.raises(ValueError, match="has no setting 'colour'"):
        make_bot("expert:colour=blue")
    with pytest.raises(ValueError, match="bad setting value"):
        make_bot("expert:iterations=abc")
    for read_only_in_play in ("expert:margin=x", "expert:epsilon=x", "heuristic:noise=x"):
        with pytest.raises(ValueError, match=r"bad setting value .*expected a number"):
            make_bot(read_only_in_play)  # refused when made, not with a TypeError mid-deal
    with pytest.raises(ValueError, match=r"cannot make 'os:system' \(TypeError"):
        make_bot("os:system")  # a callable that is no bot's factory
    with pytest.raises(ValueError, match=r"'math:pi' is not a bot"):
        make_bot("math:pi")
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("grandmaster")


def test_heuristic_passes_big_takes_and_never_takes_with_two_left():
    deal = Deal(Rules.profile("punjab", players=4), 0, 3)
    view = player_view(deal, deal.to_act)
    assert view.decision == "take"
    assert HeuristicBot().act(view, view.legal_actions, random.Random(0)) is PASS
    assert TAKE in view.legal_actions


def test_heuristic_punjab_stays_under_the_winning_card():
    # Seat 0 leads 9♥; seat 1 holds K♥ and 2♥ and a later player is void in hearts: play 2♥.
    deal = make_deal(["9h 3c", "kh 2h 4d", "5c 6c 7c", "10h 8d"], waste="as ks qs js")
    deal.play("9h")
    view = player_view(deal, 1)
    assert str(HeuristicBot().act(view, view.legal_actions, random.Random(0))) == "2♥"


def test_expert_time_limit_and_bad_settings():
    deal = Deal(Rules.profile("punjab", takes="off"), 0, 21)
    while len(deal.legal_actions()) == 1:
        deal.apply(deal.legal_actions()[0])
    view = player_view(deal, deal.to_act)
    bot = ExpertBot(iterations=100_000, time_limit=0.05)
    assert bot.act(view, view.legal_actions, random.Random(0)) in view.legal_actions
    with pytest.raises(ValueError, match="iterations"):
        ExpertBot(iterations=0)
    with pytest.raises(ValueError, match="time_limit"):
        ExpertBot(time_limit=0)


def _first_choice(seed: int, profile: str = "punjab", players: int = 4):
    deal = Deal(Rules.profile(profile, players=players, takes="off"), 0, seed)
    while len(deal.legal_actions()) == 1:
        deal.apply(deal.legal_actions()[0])
    return player_view(deal, deal.to_act)


def test_expert_budget_caps_the_moves_simulated_and_stays_deterministic():
    view = _first_choice(21, "classic", 6)
    free = ExpertBot(iterations=400)
    capped = ExpertBot(iterations=400, budget=3000)
    _, free_worlds = free.estimate(view, view.legal_actions, random.Random(0))
    losses, worlds = capped.estimate(view, view.legal_actions, random.Random(0))
    assert 1 <= worlds < free_worlds  # the budget stopped the sampling early
    per_world = capped._moves / worlds
    assert capped._moves - per_world <= 3000  # it stops at the first world past the budget
    assert capped.estimate(view, view.legal_actions, random.Random(0)) == (losses, worlds)
    with pytest.raises(ValueError, match="budget"):
        ExpertBot(budget=0)


def test_expert_opponent_noise_is_the_profiles_default_and_only_in_the_rollouts():
    # R-P / R-C profiles: the exact heuristic model at punjab, a noisy one at classic (docs/bots.md).
    assert ExpertBot().noise_for(Rules.profile("punjab")) == 0.0
    assert ExpertBot().noise_for(Rules.profile("classic")) == OPPONENT_NOISE["classic"] > 0
    assert ExpertBot(opponent_noise=0.4).noise_for(Rules.profile("punjab")) == 0.4
    view = _first_choice(21, "classic", 4)
    legal = view.legal_actions

    def estimate(**settings):
        return ExpertBot(iterations=60, **settings).estimate(view, legal, random.Random(3))

    exact, noisy = estimate(opponent_noise=0), estimate()
    assert exact[1] == noisy[1] > 0  # the same worlds ...
    assert exact[0] != noisy[0]  # ... played out differently
    assert estimate() == noisy  # and still deterministic given the generator
    punjab = _first_choice(21)
    assert ExpertBot(iterations=60).estimate(punjab, punjab.legal_actions, random.Random(3)) == ExpertBot(
        iterations=60, opponent_noise=0
    ).estimate(punjab, punjab.legal_actions, random.Random(3))
    with pytest.raises(ValueError, match="opponent_noise: a chance from 0 to 1, not 1.5"):
        ExpertBot(opponent_noise=1.5)
    with pytest.raises(ValueError, match="expected a number"):
        make_bot("expert:opponent_noise=x")


@pytest.mark.parametrize(
    "losses, says",
    [
        ((0.60, 0.58), "the best alternative's 58% is too close to call, so the usual play is kept"),
        ((0.40, 0.58), "it loses 40% of the time, against 58% for the best alternative"),
    ],
)
def test_expert_hint_says_when_it_keeps_the_usual_play(monkeypatch, losses, says):
    deal = Deal(Rules.profile("punjab", takes="off"), dealer=0, seed=5)
    rng = random.Random(1)
    while len(deal.legal_actions()) < 2:  # a decision with a choice
        deal.apply(deal.legal_actions()[0])
    view, legal = player_view(deal, deal.to_act), deal.legal_actions()
    bot = ExpertBot(iterations=4)

    def search(_view, _legal, _rng):  # the search's result, fixed: the first action kept
        bot._last_losses = {legal[0]: losses[0], legal[1]: losses[1]}
        return legal[0], dict(bot._last_losses), 53

    monkeypatch.setattr(bot, "_search", search)
    action, reason = bot.hint(view, legal, rng)
    assert action == legal[0] and "53 sampled deals" in reason and says in reason


def test_heuristic_noise_plays_as_random_that_often():
    from getaway.bots.random import RandomBot as Random

    rules = Rules.profile("punjab", players=4, takes="off")
    deal = Deal(rules, 0, 3)
    deal.play("A♠")
    view = player_view(deal, deal.to_act)
    legal = view.legal_actions
    best = HeuristicBot().act(view, legal, random.Random(0))
    rng = random.Random(5)
    picks = [HeuristicBot(noise=0.7).act(view, legal, rng) for _ in range(400)]
    off = sum(p != best for p in picks) / len(picks)
    expected_off = 0.7 * (1 - 1 / len(legal))  # a random pick may hit the best move too
    assert len(legal) > 2 and abs(off - expected_off) < 0.08
    for k in range(20):  # noise 1: the random bot's move (after the one draw that decides)
        ahead = random.Random(k)
        ahead.random()
        assert HeuristicBot(noise=1.0).act(view, legal, random.Random(k)) == Random().act(view, legal, ahead)
    with pytest.raises(ValueError, match="noise"):
        HeuristicBot(noise=1.5)


def test_the_endgame_search_gives_up_a_line_deeper_than_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A max-n search (``rollout=light``) from a whole classic deal goes down lines longer than
    MAX_SEARCH_DEPTH (pickups put cards back): it gives the world to a rollout rather than
    recursing until Python's limit (a RecursionError in a classic tournament)."""
    import sys

    from getaway.bots import expert as expert_module

    monkeypatch.setattr(expert_module, "MAX_SEARCH_DEPTH", 20)
    deal = Deal(Rules.profile("classic", players=4), 0, 11)
    while len(deal.legal_actions()) == 1:
        deal.apply(deal.legal_actions()[0])
    view = player_view(deal, deal.to_act)
    bot = ExpertBot(rollout="light", iterations=2, exact_cards=60, exact_nodes_per_iteration=10**5)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 45)  # room for 20 levels, not for a whole deal's line
    try:
        action = bot.act(view, view.legal_actions, random.Random(0))
    finally:
        sys.setrecursionlimit(limit)
    assert action in view.legal_actions


# ---------------------------------------------------------------- each bot declares its settings


def _every_bot_name() -> list[str]:
    """Every registered kind and level (``style:ismcts`` only with OpenSpiel installed)."""
    names = [*BOTS, *LEVELS]
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        names.remove("style:ismcts")
    return names


@pytest.mark.parametrize("name", _every_bot_name())
def test_every_bot_declares_its_settings_as_its_constructor_takes_them(name):
    from getaway.bots.settings import settings_of, values_of

    bot = make_bot(name)
    declared = settings_of(type(bot))
    assert declared is not None, f"{name}: {type(bot).__name__} declares no SETTINGS"
    parameters = inspect.signature(type(bot)).parameters
    assert [s.name for s in declared] == list(parameters), name
    for setting in declared:
        default = parameters[setting.name].default
        assert setting.default == default, (name, setting.name)
        assert setting.optional or isinstance(setting.default, setting.type), (name, setting.name)
    # the settings it was made with rebuild the same bot
    values = values_of(bot)
    assert values is not None and values_of(type(bot)(**values)) == values
    kind, level_settings = LEVELS.get(name, (name, {}))
    for key, value in level_settings.items():
        assert key in values and values[key] == value, (name, key)


@pytest.mark.parametrize("name", _every_bot_name())
def test_a_declared_bound_is_one_the_constructor_enforces(name):
    from getaway.bots.settings import settings_of

    cls = type(make_bot(name))
    for s in settings_of(cls) or ():
        step = 1 if s.type is int else 0.01
        if s.low is not None:
            cls(**{s.name: s.type(s.low)})
            with pytest.raises(ValueError):
                cls(**{s.name: s.type(s.low - step)})
        if s.high is not None:
            cls(**{s.name: s.type(s.high)})
            with pytest.raises(ValueError):
                cls(**{s.name: s.type(s.high + step)})
        for choice in s.choices:
            cls(**{s.name: choice})
        if s.choices:
            with pytest.raises(ValueError):
                cls(**{s.name: "no-such-" + s.name})


def test_every_level_sets_only_declared_settings_of_its_kind():
    from getaway.bots.settings import settings_of

    for level, (kind, settings) in LEVELS.items():
        declared = {s.name: s for s in settings_of(BOTS[kind]) or ()}
        for key, value in settings.items():
            assert key in declared, (level, key)
            s = declared[key]
            assert isinstance(value, s.type) or (s.type is float and isinstance(value, int)), (level, key)
            assert (s.low is None or value >= s.low) and (s.high is None or value <= s.high), (level, key)


@pytest.mark.parametrize("protocol", ["poll", "interject"])
def test_no_levels_noise_applies_to_takes(protocol: str) -> None:
    """A level is weaker in its card play, not by random takes (R-P-TAKE): at every take poll (and
    every lead at which a take is offered), a noisy level takes exactly when the noiseless rules of
    thumb do, whatever its generator draws."""
    plain = HeuristicBot()
    polls = 0
    for seed in range(12):
        deal = Deal(Rules.profile("punjab", players=4, take_protocol=protocol), seed % 4, 500 + seed)
        rng = random.Random(seed)
        while not deal.is_over:
            seat = deal.to_act
            view = player_view(deal, seat)
            legal = view.legal_actions
            if TAKE in legal and len(legal) > 1:
                polls += 1
                takes = plain.act(view, legal, random.Random(0)) is TAKE
                for level in ("easy", "medium"):
                    bot = make_bot(level)
                    for k in range(10):
                        assert (bot.act(view, legal, random.Random(k)) is TAKE) == takes, (level, seed, k)
            deal.apply(plain.act(view, legal, rng), seat)
    assert polls > 100
