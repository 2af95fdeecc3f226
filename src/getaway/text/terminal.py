"""The terminal game: a person plays a match against bots (``getaway play``).

Satellite of the core. Everything shown about a deal comes from ``player_view(deal, human)``
(the player's view, R-INFO): the hand, the trick, hand sizes, who got away, the waste size
and the history of events with hidden cards removed. Bots are given their own seat's view.
Rendering uses Rich, which wraps to the terminal's width, drops colour under ``NO_COLOR``
or when the output is not a terminal; playable cards are also marked with ``*`` so that
nothing depends on colour.
"""

from __future__ import annotations

import json
import random
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..bots import LEVEL_HELP, LEVELS, Bot, make_bot
from ..bots.hints import best_hint
from ..core.cards import SUIT_SYMBOLS, Card, InvalidCardError
from ..core.deal import Deal
from ..core.events import PASS, PICKUP, TAKE, Action, IllegalActionError
from ..core.match import Match
from ..core.messages import addressed
from ..core.record import dumps, record_of
from ..core.view import PlayerView, player_view
from .chat import PHRASES, phrase_text
from .i18n import _, card_name, command_word, localize, ngettext
from .narrate import Narrator

__all__ = ["TerminalGame", "explain", "standings_table", "without_rule_ids"]


def bot_label(name: str) -> str:
    """A bot's name as shown: a level in the current language (``medium`` → ``moyen``), any
    other bot (``expert:iterations=60``, ``random``) as written."""
    return _(name) if name in LEVELS else name


_RULE_ID = re.compile(r"\s*\((?:R|V)-[A-Z0-9-]+\)")


def without_rule_ids(text: str) -> str:
    """``text`` without its rule ids (`` (R-ACE)``, `` (V-JOKER)`` …): a player's message names
    the rule in words; docs/rules.md and ``--verbose`` keep the ids.

    >>> without_rule_ids("the first trick must be led with the A♠ (R-ACE)")
    'the first trick must be led with the A♠'
    """
    return _RULE_ID.sub("", text)


def explain(deal: Deal, seat: int, action: Action, names: Sequence[str] | None = None, *, verbose: bool = False) -> str:
    """Why ``action`` is not legal for ``seat`` now, in the current language, as the player at
    ``seat`` reads it: the engine's own reason (:meth:`~getaway.core.deal.Deal.why_illegal`,
    read from that seat's hand and the public trick only) in its second-person form
    (:func:`getaway.core.messages.addressed`: "You hold a ♠: you must follow suit"), without rule
    ids; ``verbose``: the engine's text as it is ("seat A holds ♠ and must follow suit, not play
    3♥", rule ids kept). Seats are called by ``names``; ``""`` if the action is legal."""
    why = deal.why_illegal(action, seat)
    if why is None:
        return ""
    if verbose:
        return localize(why.params["message"], names)
    return without_rule_ids(localize(addressed(why.params["message"], seat), names))


def _command_of(text: str) -> str | None:
    # NFC both sides: a Hindi keyboard may send छोड़ें's ड़ as one code point (U+095C) or as ड + nukta
    key = unicodedata.normalize("NFC", text.strip().lower())
    for word in ("hint", "rules", "history", "save", "quit", "help", "take", "pass", "pickup", "say"):
        if key in (word, unicodedata.normalize("NFC", command_word(word).lower())):
            return word
    if key in ("?",):
        return "help"
    if key in ("exit", "q"):
        return "quit"
    return None


def standings_table(match: Match, title: str | None = None) -> Table:
    """The match standings as a Rich table (place, player, losses, penalty points …)."""
    rules = match.rules
    table = Table(title=title, show_edge=False, pad_edge=False)
    table.add_column(_("place"), justify="right")
    table.add_column(_("player"))
    table.add_column(_("losses"), justify="right")
    table.add_column(_("penalty points"), justify="right")
    if rules.dehla:
        table.add_column(_("tens"), justify="right")
    if rules.ante or rules.beggar:
        table.add_column(_("chips"), justify="right")
    for row in match.standings():
        cells = [str(row.place), row.name, str(row.losses), str(row.points)]
        if rules.dehla:
            cells.append(str(row.tens))
        if rules.ante or rules.beggar:
            cells.append(f"{row.chips:+d}")
        table.add_row(*cells)
    return table


class QuitGame(Exception):
    """The player quit."""


class TerminalGame:
    """A match in the terminal: one human seat, bots in the others.

    Args:
        console: where to print.
        match: the match (new, or resumed from a save).
        human: the person's seat.
        bots: a level or bot kind per seat (ignored for ``human``).
        seed: seeds the bots' generator and the hints' generator.
        ask: reads one line after printing a prompt (default: ``console.input``); raises
            ``EOFError`` at the end of input.
        save_path: default file for ``save``.
        rules_text: renders the rules (the ``rules`` command).
        record_path: where to write the record at the end of each deal (``play --record``): a
            one-deal match as a deal record (``getaway/1``), a longer one as the match so far
            (``getaway-match/1``, the save's format); ``getaway replay`` reads both.
    """

    def __init__(
        self,
        console: Console,
        match: Match,
        human: int,
        bots: Sequence[str],
        seed: int,
        *,
        ask: Callable[[str], str] | None = None,
        save_path: str = "getaway-save.json",
        rules_text: Callable[[Console], None] | None = None,
        record_path: str | None = None,
        verbose: bool = False,
    ) -> None:
        self.console = console
        #: show the engine's texts as they are (third person, rule ids kept) rather than to the player
        self.verbose = verbose
        #: the take key was pressed: the player takes the left hand at the next take poll
        self._take_armed = False
        self.match = match
        self.human = human
        self.bot_names = list(bots)
        self.bots: list[Bot | None] = [None if s == human else make_bot(bots[s]) for s in range(len(bots))]
        actions = sum(len(d.actions) for d in match.deals)
        self.rng = random.Random(seed * 1_000_003 + actions)
        self.hint_rng = random.Random(seed * 7 + 1)
        #: the bots' quick chat (:meth:`_bots_chat`): its own generator, so that their moves are the same
        self.chat_rng = random.Random(seed * 1_000_033 + actions + 1)
        self.ask = ask or self._input
        self.save_path = save_path
        self.rules_text = rules_text
        self.record_path = record_path
        self.names = list(match.names)
        self._seen = 0
        self._narrator = Narrator(self.names)
        self._last_screen: tuple[int, int] | None = None  # what the last status block showed
        self._last_marked = False

    def _input(self, prompt: str) -> str:
        line = self.console.input(Text(prompt))
        if not sys.stdin.isatty():  # a script or a pipe: show what was read, as a terminal would
            self.console.print(Text(line), highlight=False)
        return line

    # ------------------------------------------------------------------ the match

    def run(self) -> int:
        """Play until the match is over or the player quits; returns an exit code (0)."""
        try:
            self._run()
        except QuitGame:
            return 0
        except KeyboardInterrupt:  # Ctrl-C: like quit, with the offer to save
            self.console.print()
            try:
                self._quit()
            except (QuitGame, KeyboardInterrupt, EOFError):
                return 0
        return 0

    def _run(self) -> None:
        match = self.match
        for level in dict.fromkeys(n for n in self.bot_names if n in LEVEL_HELP):
            self.console.print(Text(_(LEVEL_HELP[level]), style="dim"), highlight=False)  # what each level is
        while True:
            self._play_deal()
            if match.finished:
                break
            self._between_deals()
            match.next_deal()
        if match.rules.deals > 1:
            self.console.print()
            self.console.print(standings_table(match, _("Final standings")))
            winners = [s.name for s in match.standings() if s.place == 1]
            self.console.print(_("Winner of the match: {names}").format(names=", ".join(winners)))

    def _between_deals(self) -> None:
        self.console.print(standings_table(self.match, _("Standings")))
        while True:
            try:
                line = self.ask(_("Press Enter for the next deal (or save, quit): "))
            except EOFError:  # Ctrl-D: like quit, with the offer to save
                self._end_of_input()
            command = _command_of(line) if line.strip() else None
            if not line.strip():
                return
            if command == "save":
                self._save(line)
            elif command == "quit":
                self._quit()
            elif command == "rules":
                self._rules()
            else:
                return

    def _play_deal(self) -> None:
        match = self.match
        deal = match.deal
        number = len(match.deals)
        self._narrator = Narrator(self.names, special_first=match.rules.special_first_trick)
        self._seen = 0
        head = _("Deal {k} of {n}").format(k=number, n=match.rules.deals)
        dealer = _("dealer {name}").format(name=self.names[player_view(deal, self.human).dealer])
        self.console.rule(Text(f"{head} · {dealer} · " + _("you are {name}").format(name=self.names[self.human])))
        self._last_screen, self._last_marked = None, False
        while not deal.is_over:
            self._narrate()
            seat = deal.to_act
            assert seat is not None
            if seat == self.human:
                self._human_turn()
            else:
                bot = self.bots[seat]
                assert bot is not None
                bview = player_view(deal, seat)
                action = bot.act(bview, bview.legal_actions, self.rng)
                deal.apply(action, seat)
        self._narrate()
        self._deal_over()

    def _deal_over(self) -> None:
        view = player_view(self.match.deal, self.human)
        outcome = view.outcome
        assert outcome is not None
        order = " → ".join(", ".join(self.names[s] for s in group) for group in outcome.out_order)  # shared: commas
        self.console.print(Text(_("Order of getting away: {order}").format(order=order or "-"), style="bold"))
        if outcome.loser is None:
            self.console.print(Text(_("Loser: none (drawn deal)"), style="bold"))
        else:
            loser = self.names[outcome.loser]
            if outcome.loser == self.human:
                line = _("Loser: {name} (you)").format(name=loser)
            else:
                line = _("Loser: {name}").format(name=loser)
            self.console.print(Text(line, style="bold red" if outcome.loser == self.human else "bold"))
        if self.record_path:
            self._write_record(self.record_path)

    def _write_record(self, path: str) -> None:
        """The record of the deal just finished (one deal) or of the match so far (more)."""
        match = self.match
        data = record_of(match.deal, self.names) if match.rules.deals == 1 else self.save_data()
        try:
            Path(path).write_text(dumps(data) + "\n", encoding="utf-8")
        except OSError as exc:
            message = _("Cannot write the record to {path}: {error}")
            self.console.print(Text(message.format(path=path, error=exc.strerror)))
            return
        if match.rules.deals == 1:
            line = _("Record written to {path}; replay it with: getaway replay {path}").format(path=path)
        else:
            line = _("Record written to {path}; replay deal {k} with: getaway replay {path} --deal {k}").format(
                path=path, k=len(match.deals)
            )
        self.console.print(Text(line, style="green"))

    # ------------------------------------------------------------------ narration and screen

    def _narrate(self) -> None:
        history = player_view(self.match.deal, self.human).history
        new = history[self._seen :]
        self._seen = len(history)
        for line in self._narrator.feed(new):
            self.console.print(Text("  " + line))
        self._bots_chat(new)

    def _bots_chat(self, events: Sequence[Any]) -> None:
        """Now and then a bot says a quick-chat phrase about ``events`` (drawn from
        :attr:`chat_rng`: the same under the same seed): "Nice take!" after a take, "Well
        played!" when someone gets away, "Good game!" at the end of the deal."""
        for event in events:
            key, chance = {"take": ("nice_take", 0.3), "out": ("well_played", 0.3), "over": ("good_game", 0.5)}.get(
                event.kind, (None, 0.0)
            )
            if key is None or self.chat_rng.random() >= chance:
                continue
            speakers = [s for s, bot in enumerate(self.bots) if bot is not None and s != event.seat]
            if speakers:
                self._chat_line(self.chat_rng.choice(speakers), key)

    def _chat_line(self, seat: int, key: str) -> None:
        """Seat ``seat`` says quick-chat phrase ``key``: ``A: Well played!``."""
        line = _("{name}: {phrase}").format(name=self.names[seat], phrase=phrase_text(key))
        self.console.print(Text("  " + line, style="cyan"), highlight=False)

    def _say(self, text: str) -> None:
        """``say N``: the player says phrase ``N`` of the quick chat (``say`` alone lists them)."""
        parts = text.split(maxsplit=1)
        choice = parts[1].strip() if len(parts) > 1 else ""
        if choice.isdigit() and 1 <= int(choice) <= len(PHRASES):
            self._chat_line(self.human, PHRASES[int(choice) - 1])
            return
        if choice in PHRASES:
            self._chat_line(self.human, choice)
            return
        say = command_word("say")
        head = _("Quick chat: type {say} and a number, e.g. {say} 3:").format(say=say)
        listed = "  ".join(f"{k}: {phrase_text(key)}" for k, key in enumerate(PHRASES, 1))
        self.console.print(Text(head + "\n  " + listed), highlight=False)

    def _hand_line(self, view: PlayerView, mark: bool = True) -> Text:
        hand = view.hand or ()
        legal = set(a for a in view.legal_actions if isinstance(a, Card)) if mark else set()
        text = Text()
        head = ngettext("Your hand ({n} card)", "Your hand ({n} cards)", len(hand)).format(n=len(hand))
        text.append(head, style="bold")
        if mark and legal:
            text.append("   " + _("* = playable"), style="dim")
        number = 0
        groups: dict[int, list[Card]] = {}
        for card in hand:
            groups.setdefault(4 if card.is_joker else card.suit or 0, []).append(card)
        for suit in sorted(groups):
            text.append("\n  ")
            text.append(SUIT_SYMBOLS[suit] if suit < 4 else "🃏", style="red" if suit in (1, 2) else "")
            for card in groups[suit]:
                number += 1
                playable = card in legal
                text.append(f"  {number}:", style="dim")
                colour = "red" if card.suit in (1, 2) else ""
                text.append(str(card), style=("bold " + (colour or "green")) if playable else (colour + " dim").strip())
                text.append("*" if playable else " ")
        return text

    def _table_lines(self, view: PlayerView) -> Text:
        text = Text()
        parts = []
        for seat in range(view.players):
            if seat == self.human:
                continue
            name = self.names[seat]
            if view.got_away[seat]:
                place = next((i + 1 for i, g in enumerate(view.out_order) if seat in g), 0)
                status = _("got away ({place})").format(place=place)
            else:
                status = ngettext("{n} card", "{n} cards", view.hand_sizes[seat]).format(n=view.hand_sizes[seat])
            marker = " ◀" if view.to_act == seat else ""
            parts.append(f"{name} ({bot_label(self.bot_names[seat])}): {status}{marker}")
        text.append("  " + " · ".join(parts))
        trick = "  ".join(f"{self.names[s]} {c}" for s, c in view.trick) or "-"
        text.append("\n  " + _("Table: {cards}").format(cards=trick))
        waste = ngettext("waste pile: {n} card", "waste pile: {n} cards", view.waste_size)
        text.append("   " + waste.format(n=view.waste_size), style="dim")
        return text

    def _screen(self, view: PlayerView, marks: bool = True) -> None:
        """The status block; only the marked hand again if nothing happened since the last one."""
        key = (view.tricks_played, sum(1 for e in view.history if e.kind != "pass"))
        if key == self._last_screen:
            if marks and not self._last_marked:
                self.console.print(self._hand_line(view))
                self._last_marked = True
            return
        self._last_screen, self._last_marked = key, marks
        trick_no = view.tricks_played + 1
        title = _("Trick {k}").format(k=trick_no)
        if view.to_act is not None and view.decision == "take":
            title += " · " + _("{name} to take or pass").format(name=self.names[view.to_act])
        elif view.to_act is not None:
            title += " · " + _("{name} to play").format(name=self.names[view.to_act])
        self.console.rule(Text(title))
        self.console.print(self._table_lines(view))
        self.console.print(self._hand_line(view, mark=marks))

    # ------------------------------------------------------------------ the person's decisions

    def _human_turn(self) -> None:
        deal = self.match.deal
        view = player_view(deal, self.human)
        if view.decision == "take":
            self._poll(view)
            return
        self._screen(view)
        if not view.trick:
            say = _("You lead. Card (name or number), or hint, rules, history, save, quit:")
        else:
            say = _("Your turn. Card (name or number), or hint, rules, history, save, quit:")
        self.console.print(Text(say, style="bold"))
        self._take_footer(view)
        while True:
            line = self._line("> ")
            if self._arms_take(line, view):
                continue
            action = self._read(line, view)
            if action is None or not self._legal(action, view):
                continue
            try:
                deal.apply(action, self.human)
            except IllegalActionError as exc:  # the view said legal; should not happen
                said = localize(exc)
                self.console.print(Text(said if self.verbose else without_rule_ids(said), style="yellow"))
                continue
            return

    def _poll(self, view: PlayerView) -> None:
        """The take poll asks the player (R-P-TAKE): no question; a take armed with the take key
        (:meth:`_arms_take`) is made now if it is legal, else the player passes."""
        armed, self._take_armed = self._take_armed, False
        self.match.deal.apply(TAKE if armed and TAKE in view.legal_actions else PASS, self.human)

    def _takes_by_key(self) -> bool:
        """Whether takes are offered by the take key (``t``) between tricks: a poll with takes on."""
        rules = self.match.rules
        return rules.takes != "off" and rules.take_protocol == "poll"

    def _take_footer(self, view: PlayerView) -> None:
        """The footer of the player's prompt: the take key and whose hand it would take before
        the next trick (or that a take is armed)."""
        target = view.left_active()
        if not self._takes_by_key() or target is None:
            return
        name, size = self.names[target], view.hand_sizes[target]
        if self._take_armed:
            line = _("Take armed: you take {name}'s hand before the next trick (t again cancels).").format(name=name)
        else:
            line = ngettext(
                "t = take {name}'s hand before the next trick ({n} card)",
                "t = take {name}'s hand before the next trick ({n} cards)",
                size,
            ).format(name=name, n=size)
        self.console.print(Text(line, style="dim"), highlight=False)

    def _arms_take(self, line: str, view: PlayerView) -> bool:
        """Whether ``line`` is the take key (``t`` or the take word) offered between tricks: it arms
        the take (or cancels an armed one), said in the footer; a take that is legal now is made
        as before (:meth:`_read`)."""
        key = line.strip().lower()
        if not self._takes_by_key() or TAKE in view.legal_actions:
            return False
        if key != "t" and _command_of(key) != "take":
            return False
        self._take_armed = not self._take_armed
        if not self._take_armed:
            self.console.print(Text(_("Take cancelled."), style="dim"))
        self._take_footer(view)
        return True

    def _line(self, prompt: str) -> str:
        """The line the player types at ``prompt``; Ctrl-D (end of input) is as ``quit``, with
        the offer to save."""
        try:
            return self.ask(prompt)
        except EOFError:
            self._end_of_input()
            raise  # not reached: quitting ends the game

    def _legal(self, action: Action, view: PlayerView) -> bool:
        """Whether ``action`` is legal for the player now; if not, the engine's reason is shown."""
        if action in view.legal_actions:
            return True
        why = explain(self.match.deal, self.human, action, self.names, verbose=self.verbose)
        self.console.print(Text(why, style="yellow"))
        return False

    def _read(self, line: str, view: PlayerView) -> Action | None:
        """The action typed on ``line``, or ``None`` after handling a command or an error."""
        text = line.strip()
        if not text:
            return None
        command = _command_of(text.split()[0])
        calls = {"take": TAKE, "pass": PASS, "pickup": PICKUP}
        if command in calls:
            return calls[command]
        handlers = {
            "hint": lambda: self._hint(view),
            "rules": self._rules,
            "history": self._history,
            "save": lambda: self._save(text),
            "quit": self._quit,
            "help": self._help,
            "say": lambda: self._say(text),
        }
        if command in handlers:
            handlers[command]()
            return None
        hand = view.hand or ()
        if text.isdigit():
            index = int(text)
            if 1 <= index <= len(hand):
                return hand[index - 1]
            self.console.print(
                Text(_("There is no card number {k}: your cards are numbered 1 to {n}.").format(k=index, n=len(hand)))
            )
            return None
        try:
            return Card.parse(text)
        except InvalidCardError:
            self.console.print(
                Text(
                    _("'{text}' is not a card or a command. Type a card (10h, qs, 10♥) or its number, or help.").format(
                        text=text
                    ),
                    style="yellow",
                )
            )
            return None

    def _hint(self, view: PlayerView) -> None:
        action, reason, level = best_hint(view, self.hint_rng)
        if isinstance(action, Card):
            what = _("play {card} ({name})").format(card=str(action), name=card_name(action))
        else:
            what = command_word(str(action))
        if reason:
            line = _("Hint ({level} bot): {what}: {reason}").format(
                level=bot_label(level), what=what, reason=localize(reason)
            )
        else:
            line = _("Hint ({level} bot): {what}").format(level=bot_label(level), what=what)
        self.console.print(Text(line, style="cyan"))

    def _history(self) -> None:
        history = player_view(self.match.deal, self.human).history
        self.console.rule(Text(_("History of this deal")))
        deal = self.match.deal
        narrator = Narrator(self.names, special_first=deal.rules.special_first_trick and deal.start is None)
        for line in narrator.feed(history):
            self.console.print(Text("  " + line))
        self.console.rule()

    def _rules(self) -> None:
        if self.rules_text is not None:
            self.rules_text(self.console)

    def _help(self) -> None:
        self.console.print(
            Text(
                _(
                    "Type a card by name (10h, qs, 10♥, joker) or by its number in your hand. "
                    "Commands: hint (what the best bot would play), rules, history (this deal so far), "
                    "save [FILE], quit; before a trick: take or pass."
                )
            )
        )
        say = command_word("say")
        self.console.print(Text(_("Quick chat: {say} lists the phrases, {say} N says one.").format(say=say)))

    def save_data(self) -> dict[str, Any]:
        """The save: the match (``Match.to_dict``) plus who plays which seat."""
        data = self.match.to_dict()
        data["play"] = {"human": self.human, "bots": self.bot_names}
        return data

    def _save(self, text: str) -> None:
        parts = text.split(maxsplit=1)
        path = parts[1].strip() if len(parts) > 1 else self.save_path
        try:
            Path(path).write_text(json.dumps(self.save_data(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            self.console.print(Text(_("Cannot save to {path}: {error}").format(path=path, error=exc.strerror)))
            return
        self.console.print(
            Text(_("Saved to {path}; resume with: getaway play --load {path}").format(path=path), style="green")
        )
        finished = sum(1 for deal in self.match.deals if deal.is_over)
        if finished:
            line = _("Replay its deals (1 to {n}) with: getaway replay {path} --deal K")
            self.console.print(Text(line.format(path=path, n=finished), style="green"))

    def _end_of_input(self) -> None:
        """Ctrl-D (end of input) at a prompt: a new line, then as ``quit`` (offer to save)."""
        self.console.print()
        self._quit()

    def _quit(self) -> None:
        yes, no = command_word("yes").lower(), command_word("no").lower()
        question = _("Save the game before quitting? [{yes}/{no}] ").format(yes=yes, no=no)
        while True:
            try:
                answer = _yes_or_no(self.ask(question))
            except EOFError:  # no more input: nobody can answer
                self.console.print()
                answer = False
            if answer is not None:
                break
            self.console.print(Text(_("Please answer {yes} or {no}.").format(yes=yes, no=no), style="yellow"))
        if answer:
            self._save("save")
        self.console.print(Text(_("Goodbye.")))
        raise QuitGame


def _plain(text: str) -> str:
    """Lower case without accents: ``Sì`` → ``si``, ``Não`` → ``nao``."""
    decomposed = unicodedata.normalize("NFD", text.strip().lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _yes_or_no(text: str) -> bool | None:
    """``True`` for yes, ``False`` for no (the word or its first letter, in the current
    language or in English), ``None`` for anything else."""
    answer = _plain(text)
    for word, value in (("yes", True), ("no", False)):
        for form in (_plain(command_word(word)), word):
            if answer and answer in (form, form[:1]):
                return value
    return None
