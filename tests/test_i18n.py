"""Languages of the command line: complete catalogs, compiled files up to date, no message
left untranslated in the rules or in a whole scripted deal, card names translated."""

from __future__ import annotations

import functools
import gettext
import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir, extract_python
from babel.messages.pofile import read_po
from click.testing import CliRunner
from rich.console import Console

import getaway
from getaway import Rules, player_view
from getaway.core.cards import Card
from getaway.core.match import Match
from getaway.text import i18n
from getaway.text.cli import cli
from getaway.text.terminal import TerminalGame

LOCALE = i18n.LOCALE_DIR
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != "en"]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}


def _po(lang: str):
    with open(LOCALE / lang / "LC_MESSAGES" / "getaway.po", "rb") as fh:
        return read_po(fh, locale=lang)


def _key(message) -> tuple[str | None, str]:
    ident = message.id[0] if isinstance(message.id, tuple) else message.id
    return message.context, ident


def test_every_message_in_the_code_is_in_the_catalogs():
    src = Path(getaway.__file__).parent
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(
        str(src), method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        ident = message[0] if isinstance(message, tuple) else message
        found.add((context, ident))
    with open(LOCALE / "getaway.pot", "rb") as fh:
        template = {_key(m) for m in read_po(fh) if m.id}
    assert found - template == set(), "run pybabel extract/update (docs/cli.md, Languages)"
    for lang in TRANSLATED:
        catalog = {_key(m) for m in _po(lang) if m.id}
        assert found - catalog == set(), f"{lang}: run pybabel update (docs/cli.md, Languages)"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_msgid_has_a_translation_with_the_same_placeholders(lang):
    for message in _po(lang):
        if not message.id:
            continue
        assert "fuzzy" not in message.flags, message.id
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(s.strip() for s in strings), f"{lang}: untranslated {ids[0]!r}"
        want = set(re.findall(r"\{[^}]*\}", ids[-1]))
        for s in strings:
            assert set(re.findall(r"\{[^}]*\}", s)) == want, f"{lang}: placeholders of {ids[0]!r}"


def _plural_forms_header(path: Path) -> str:
    """The ``Plural-Forms`` line of a catalog's header, as written in the file."""
    found = re.search(r'^"Plural-Forms: ([^"\\]*)\\n"$', path.read_text(encoding="utf-8"), re.MULTILINE)
    assert found, f"{path}: no Plural-Forms header"
    return found.group(1).strip()


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("domain", [i18n.DOMAIN, i18n.CLICK_DOMAIN])
def test_plural_forms_are_cldrs(lang, domain):
    """Each catalog's ``Plural-Forms`` is Babel's, made from CLDR's rule for the language, and it
    picks the singular form exactly for the counts CLDR calls ``one`` (Hindi and Punjabi: 0 and 1)."""
    import babel
    from babel.messages.plurals import get_plural

    header = _plural_forms_header(LOCALE / lang / "LC_MESSAGES" / f"{domain}.po")
    assert header == get_plural(lang).plural_forms, f"{lang}: {domain}.po's Plural-Forms is not CLDR's"
    expression = header.split("plural=", 1)[1].rstrip(";")
    pick = gettext.c2py(expression)
    rule = babel.Locale.parse(lang).plural_form
    for n in range(2001):
        assert (pick(n) == 0) == (rule(n) == "one"), (lang, domain, n)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalogs_match_the_po_files(lang):
    with open(LOCALE / lang / "LC_MESSAGES" / "getaway.mo", "rb") as fh:
        compiled = gettext.GNUTranslations(fh)
    for message in _po(lang):
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            for n, want in ((1, message.string[0]), (2, message.string[-1])):
                got = (
                    compiled.npgettext(message.context, *message.id, n)
                    if message.context
                    else compiled.ngettext(*message.id, n)
                )
                assert got == want, f"{lang}: stale .mo, run pybabel compile (docs/cli.md)"
        else:
            got = compiled.pgettext(message.context, message.id) if message.context else compiled.gettext(message.id)
            assert got == message.string, f"{lang}: stale .mo for {message.id!r}: run pybabel compile"


def test_card_and_suit_names_are_translated():
    try:
        assert i18n.use("fr") == "fr"
        assert i18n.card_name(Card.parse("qh")) == "dame de cœur"
        i18n.use("es")
        assert i18n.card_name(Card.parse("as")) == "as de picas"
        i18n.use("it")
        assert i18n.card_name(Card.parse("jc")) == "fante di fiori"
        i18n.use("pt")
        assert i18n.card_name(Card.parse("kd")) == "rei de ouros"
        i18n.use("hi")
        assert i18n.card_name(Card.parse("qh")) == "पान बेगम"
        assert i18n.card_name(Card.parse("as")) == "हुकुम इक्का"
        i18n.use("pa")
        assert i18n.card_name(Card.parse("10d")) == "ਇੱਟ ਦਹਿਲਾ"
        assert i18n.card_name(Card.parse("jc")) == "ਚਿੜੀ ਗੁਲਾਮ"
    finally:
        i18n.use("en")
    assert i18n.card_name(Card.parse("10s")) == "ten of spades"


def test_language_from_the_locale():
    assert i18n.detect({"LC_ALL": "es_ES.UTF-8"}) == "es"
    # the locales of North India, Punjab, Pakistan and Bangladesh (issue 25, item 4)
    assert i18n.detect({"LANG": "hi_IN.UTF-8"}) == "hi"
    assert i18n.detect({"LC_ALL": "pa_IN"}) == "pa"
    assert i18n.detect({"LANG": "ur_PK.UTF-8"}) == "ur"
    assert i18n.detect({"LANGUAGE": "bn_BD:en", "LANG": "en_US.UTF-8"}) == "bn"
    assert i18n.detect({"LANGUAGE": "pa_PK@shahmukhi", "LANG": "hi_IN.UTF-8"}) == "pa"
    assert i18n.detect({"LANGUAGE": "it", "LANG": "fr_FR.UTF-8"}) == "it"
    assert i18n.detect({"LANG": "C.UTF-8"}) == "en"
    assert i18n.detect({"LANG": "de_DE.UTF-8"}) == "en"
    with pytest.raises(ValueError):
        i18n.use("xx")


class Recorder(gettext.NullTranslations):
    """Wraps a catalog and records every lookup that it does not contain."""

    def __init__(self, inner: gettext.GNUTranslations) -> None:
        super().__init__()
        self.inner = inner
        self.missing: set[str] = set()
        self.seen = 0

    def _has(self, key) -> bool:
        self.seen += 1
        return key in self.inner._catalog  # type: ignore[attr-defined]

    def gettext(self, message):
        if not self._has(message):
            self.missing.add(message)
        return self.inner.gettext(message)

    def ngettext(self, singular, plural, n):
        if not self._has((singular, 0)):
            self.missing.add(singular)
        return self.inner.ngettext(singular, plural, n)

    def pgettext(self, context, message):
        if not self._has(f"{context}\x04{message}"):
            self.missing.add(f"{context}|{message}")
        return self.inner.pgettext(context, message)


def _recording(lang: str) -> Recorder:
    i18n.use(lang)
    recorder = Recorder(i18n.translations())  # type: ignore[arg-type]
    i18n.set_translations(recorder)
    return recorder


def _scripted_game(console: Console, deals: int = 1) -> TerminalGame:
    """A seeded match where the person always plays their last legal card and passes on takes,
    and asks for a hint, the rules, the history and help once each."""
    match = Match(Rules.profile("punjab", deals=deals), ["A", "B", "C", "D"], 11)
    extra = ["hint", "history", "rules", "help", "zz", "99"]
    game: TerminalGame

    def ask(prompt: str) -> str:
        console.print(prompt)
        view = player_view(game.match.deal, 0)
        if view.finished:
            return ""
        if extra:
            return extra.pop(0)
        return "" if view.decision == "take" else str(view.legal_actions[-1])

    game = TerminalGame(console, match, 0, ["human", "easy", "easy", "easy"], 11, ask=ask)
    return game


@pytest.mark.parametrize("lang", TRANSLATED)
def test_rules_and_a_whole_deal_use_only_translated_messages(lang):
    try:
        recorder = _recording(lang)
        console = Console(width=80, no_color=True, record=True, file=io.StringIO())
        from getaway.text.rules_text import print_rules

        print_rules(console, "punjab")
        print_rules(console, "classic")
        # every variant's paragraph (two games: nopickup/kicker and beggar/progressive clash)
        print_rules(console, "punjab", Rules.profile("punjab", trump="spades", nopickup=True, dehla=True, joker=True))
        print_rules(console, "classic", Rules.profile("classic", kicker=True, beggar=True))
        print_rules(console, "classic", Rules.profile("classic", progressive=True, takes="leader", uneven="strip"))
        print_rules(console, "punjab", Rules.profile("punjab", takes="off", uneven="loaded"))
        print_rules(console, "classic", Rules.profile("classic", takes="any"))
        game = _scripted_game(console, deals=2)
        assert game.run() == 0
        assert game.match.finished
        text = console.export_text()
    finally:
        i18n.use("en")
    assert recorder.seen > 50
    assert recorder.missing == set()
    assert "tochoo" in text


@pytest.mark.parametrize("lang", TRANSLATED)
def test_help_in_each_language(lang):
    english = CliRunner().invoke(cli, ["play", "--lang", "en", "--help"]).output
    out = CliRunner().invoke(cli, ["play", "--lang", lang, "--help"]).output
    assert "--bots" in out and "Play against bots in the terminal" in english
    assert "Play against bots in the terminal" not in out and "Number of seats." not in out
    i18n.use("en")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_rules_command_in_each_language(lang):
    english = CliRunner().invoke(cli, ["rules", "--lang", "en"]).output
    out = CliRunner().invoke(cli, ["rules", "--lang", lang, "--profile", "classic"])
    assert out.exit_code == 0
    assert "Getaway" in out.output
    assert not set(english.splitlines()[1:4]) & set(out.output.splitlines())
    i18n.use("en")


@functools.cache
def _bot_reasons() -> tuple[str, ...]:
    """Every reason the bots give over a few seeded deals of each profile (heuristic at every
    decision, with and without takes; the expert now and then)."""
    import random

    from getaway import Deal
    from getaway.bots import ExpertBot, HeuristicBot

    reasons: list[str] = []
    bots = [HeuristicBot(), HeuristicBot(takes=True)]
    expert = ExpertBot(iterations=24)
    for profile in ("punjab", "classic"):
        for seed in range(6):
            deal = Deal(Rules.profile(profile), dealer=0, seed=seed)
            step = 0
            while not deal.is_over:
                view = player_view(deal, deal.to_act)
                legal = view.legal_actions
                for bot in bots:
                    reasons.append(bot.hint(view, legal, random.Random(seed))[1])
                if step % 9 == 0:
                    reasons.append(expert.hint(view, legal, random.Random(seed))[1])
                deal.apply(bots[seed % 2].act(view, legal, random.Random(seed)))
                step += 1
    return tuple(reasons)


def test_bot_reasons_are_marked_for_translation():
    reasons = _bot_reasons()
    assert len({r.template for r in reasons}) > 8  # type: ignore[attr-defined]
    assert all(isinstance(r, i18n.Reason) for r in reasons), "wrap a bot's reason in Reason(N_(...))"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_bot_reasons_in_each_language(lang):
    reasons = _bot_reasons()
    try:
        recorder = _recording(lang)
        shown = [i18n.localize(r) for r in reasons]
    finally:
        i18n.use("en")
    assert recorder.missing == set()
    assert not set(shown) & set(reasons)


def test_every_bot_reason_template_is_translated():
    """All ``N_`` templates of the bots (also those the seeded deals above never reach)."""
    src = Path(getaway.__file__).parent / "bots"
    marked = {
        message
        for _file, _line, message, _comments, _context in extract_from_dir(
            str(src), method_map=[("**.py", "python")], keywords={"N_": None}
        )
    }
    assert len(marked) > 25
    for lang in TRANSLATED:
        catalog = {m.id: m.string for m in _po(lang) if m.id}
        assert {m for m in marked if not catalog.get(m)} == set(), lang


# ---------------------------------------------------------------------------------- Click's own words


def _click_po(lang: str):
    with open(LOCALE / lang / "LC_MESSAGES" / "click.po", "rb") as fh:
        return read_po(fh, locale=lang)


def test_every_message_of_the_installed_click_is_in_the_click_catalogs():
    import click

    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(Path(click.__file__).parent),
        method_map=[("_winconsole.py", "ignore"), ("**.py", "python")],
        keywords={"_": None, "ngettext": (1, 2)},
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    assert len(found) > 40
    for lang in TRANSLATED:
        catalog = {m.id[0] if isinstance(m.id, tuple) else m.id for m in _click_po(lang) if m.id}
        assert found - catalog == set(), f"{lang}: extract Click's messages again (docs/cli.md, Languages)"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_click_catalogs_are_translated_and_compiled(lang):
    with open(LOCALE / lang / "LC_MESSAGES" / "click.mo", "rb") as fh:
        compiled = gettext.GNUTranslations(fh)
    for message in _click_po(lang):
        if not message.id:
            continue
        assert "fuzzy" not in message.flags, message.id
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(s.strip() for s in strings), f"{lang}: untranslated {ids[0]!r}"
        for i, s in enumerate(strings):
            want = set(re.findall(r"\{[^}]*\}|%\(\w+\)s", ids[min(i, len(ids) - 1)]))
            assert set(re.findall(r"\{[^}]*\}|%\(\w+\)s", s)) == want, f"{lang}: placeholders of {ids[0]!r}"
        if len(ids) == 2:
            assert compiled.ngettext(*ids, 1) == strings[0] and compiled.ngettext(*ids, 5) == strings[-1]
        else:
            assert compiled.gettext(ids[0]) == strings[0], f"{lang}: stale click.mo, run pybabel compile"


ENGLISH_CLICK = ("Usage:", "Options:", "Show this message and exit.", "[default:", "Show the version")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_click_help_and_errors_in_each_language(lang):
    try:
        runner = CliRunner()
        for args in (["play", "--lang", lang, "--help"], ["--help"], ["rules", "--help"]):
            out = runner.invoke(cli, args, env={"LANGUAGE": lang}).output
            assert "--help" in out
            assert not [w for w in ENGLISH_CLICK if w in out and not (lang == "fr" and w == "Options:")], (args, out)
        english = runner.invoke(cli, ["play", "--help"], env={"LANGUAGE": "en"}).output
        assert "Usage:" in english and "Show this message and exit." in english
        # errors raised before --lang is read follow the locale; after it, --lang
        for args, env in (
            (["play", "--bogus"], {"LANGUAGE": lang}),
            (["nosuch"], {"LANGUAGE": lang}),
            (["play", "--lang", lang, "--players", "x"], {"LANGUAGE": "en"}),
            (["play", "--players", "x"], {"LANGUAGE": lang}),
        ):
            result = runner.invoke(cli, args, env=env)
            assert result.exit_code == 2, (args, result.output)
            assert result.output.strip()
            for english_words in ("No such option", "No such command", "Invalid value for", "is not a valid"):
                assert english_words not in result.output, (args, result.output)
        out = runner.invoke(cli, ["play", "--bogus"], env={"LANGUAGE": "en"}).output
        assert "No such option" in out
    finally:
        i18n.use("en")


def test_click_messages_follow_use():
    import click.core

    try:
        i18n.use("es")
        assert click.core._("Show this message and exit.") == "Mostrar este mensaje y salir."
        i18n.use("en")
        assert click.core._("Show this message and exit.") == "Show this message and exit."
    finally:
        i18n.use("en")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_tournament_command_speaks_every_language(lang: str) -> None:
    from click.testing import CliRunner

    from getaway.text.cli import cli

    res = CliRunner().invoke(cli, ["tournament", "--deals", "4", "-q", "--bots", "random", "--lang", lang])
    assert res.exit_code == 0, res.output
    header = res.output.splitlines()[1]
    assert "seats" not in header and "players" not in res.output.splitlines()[0]
    help_text = CliRunner().invoke(cli, ["tournament", "--lang", lang, "--help"]).output
    assert "duplicate deals" not in help_text and "Processes." not in help_text


# ---------------------------------------------------------------------------------- the core's errors

CORE_MODULES = (
    "messages",
    "cards",
    "rules",
    "position",
    "events",
    "deal",
    "knowledge",
    "view",
    "worlds",
    "record",
    "match",
)
ENGINE_ERRORS = {
    "RulesError",
    "PositionError",
    "RecordError",
    "MatchError",
    "InvalidCardError",
    "IllegalActionError",
    "InvalidActionError",
    "ValueError",
}


def _core_templates() -> set[str]:
    """Every message the core marks with ``getaway.core.messages.N_``."""
    src = Path(getaway.__file__).parent / "core"
    marked: set[str] = set()
    for name in CORE_MODULES:
        with open(src / f"{name}.py", "rb") as fh:
            for _line, _func, message, _comments in extract_python(fh, {"N_": None}, [], {}):
                marked.add(message)
    return marked


def test_every_template_of_the_core_is_translated_in_every_catalog():
    marked = _core_templates()
    assert len(marked) > 80
    for lang in TRANSLATED:
        catalog = {m.id: m for m in _po(lang) if m.id and not m.context}
        for template in marked:
            message = catalog.get(template)
            assert message is not None, f"{lang}: {template!r} missing: run pybabel extract/update"
            assert message.string.strip() and "fuzzy" not in message.flags, f"{lang}: {template!r}"
            fields = set(re.findall(r"\{[^}]*\}", template))
            assert set(re.findall(r"\{[^}]*\}", message.string)) == fields, f"{lang}: fields of {template!r}"


def test_the_core_raises_its_errors_with_translatable_messages():
    """No f-string or bare English text in the core's ``raise SomeError(...)``: each message is
    a ``Text`` (or ``at(...)``), so that the command line can translate it."""
    import ast

    src = Path(getaway.__file__).parent / "core"
    found = 0
    for name in CORE_MODULES:
        tree = ast.parse((src / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            func = node.exc.func
            if not (isinstance(func, ast.Name) and func.id in ENGINE_ERRORS):
                continue
            found += 1
            for arg in node.exc.args:
                bare = isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
                if func.id in ("RulesError", "IllegalActionError") and arg is node.exc.args[0]:
                    continue  # the option's name / the reason's code: shown as they are
                assert not bare, f"{name}.py line {node.lineno}: wrap the message in Text(N_(...))"
    assert found > 60


@pytest.mark.parametrize("lang", TRANSLATED)
def test_engine_errors_localize_in_each_language(lang):
    """A few errors of each kind, all of whose templates the catalog has (none left English)."""
    from getaway import Deal, Position
    from getaway.core.record import deal_from_record

    def error(make) -> BaseException:
        try:
            make()
        except ValueError as exc:
            return exc
        raise AssertionError("no error")

    errors = [
        error(lambda: Rules.profile("classic", players=9)),
        error(lambda: Rules.options_from_text(["bogus=1"])),
        error(lambda: Card.parse("1z")),
        error(lambda: Position.from_cards([["A♠", "A♠"]])),
        error(lambda: Deal(Rules.profile("punjab"), dealer=0, seed=1).play("2h")),
        error(lambda: deal_from_record({"format": "getaway/1", "players": ["A", "B", "C"], "actions": 3})),
        error(lambda: Match(Rules.profile("punjab"), ["A"], 1)),
    ]
    try:
        recorder = _recording(lang)
        shown = [i18n.localize(exc) for exc in errors]
    finally:
        i18n.use("en")
    assert recorder.missing == set()
    assert recorder.seen >= 2 * len(errors)
    for exc, text in zip(errors, shown, strict=True):
        assert text != str(exc), text
    assert [i18n.localize(exc) for exc in errors] == [str(exc) for exc in errors]


# ---------------------------------------------------------------------------------- Click's type names

METAVARS = {  # what --help shows for INTEGER, TEXT, NAME=VALUE, a FILE argument, [OPTIONS]
    "fr": ("ENTIER", "TEXTE", "NOM=VALEUR", "FICHIER", "[OPTIONS]"),
    "it": ("INTERO", "TESTO", "NOME=VALORE", "FILE", "[OPZIONI]"),
    "pt": ("INTEIRO", "TEXTO", "NOME=VALOR", "FICHEIRO", "[OPÇÕES]"),
    "es": ("ENTERO", "TEXTO", "NOMBRE=VALOR", "ARCHIVO", "[OPCIONES]"),
    "hi": ("पूर्णांक", "टेक्स्ट", "नाम=मान", "फ़ाइल", "[विकल्प]"),
    "pa": ("ਪੂਰਨਅੰਕ", "ਟੈਕਸਟ", "ਨਾਂ=ਮੁੱਲ", "ਫ਼ਾਈਲ", "[ਵਿਕਲਪ]"),
    "ur": ("عدد", "متن", "نام=قدر", "فائل", "[آپشنز]"),
    "bn": ("পূর্ণসংখ্যা", "লেখা", "নাম=মান", "ফাইল", "[অপশন]"),
}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_metavars_and_type_names_are_translated(lang):
    integer, text, pair, file, options = METAVARS[lang]
    runner = CliRunner()
    try:
        for command in ("play", "demo", "simulate", "tournament", "replay", "rules"):
            out = runner.invoke(cli, [command, "--lang", lang, "--help"]).output
            assert options in out, (command, out)
            for english in ("INTEGER", "TEXT", "NAME=VALUE", "FLOAT", "RANGE", "PATH"):
                assert not re.search(rf"\b{english}\b", out), (command, english, out)
        play = runner.invoke(cli, ["play", "--lang", lang, "--help"]).output
        assert f"--players {integer}" in play and f"--seat {text}" in play and f"--option {pair}" in play
        assert f"replay {options} {file}" in runner.invoke(cli, ["replay", "--lang", lang, "--help"]).output
        group = runner.invoke(cli, ["--help"], env={"LANGUAGE": lang}).output
        assert "COMMAND [ARGS]" not in group and options in group
        # the type in Click's own errors, and a missing argument's name
        error = runner.invoke(cli, ["play", "--lang", lang, "--players", "x"]).output
        assert f"({integer.lower()})" in error, error
        missing = runner.invoke(cli, ["replay", "--lang", lang]).output
        assert file in missing and "FILE" not in missing.replace(file, ""), missing
    finally:
        i18n.use("en")


def test_metavars_stay_english_in_english():
    out = CliRunner().invoke(cli, ["play", "--lang", "en", "--help"]).output
    assert "--players INTEGER" in out and "--seat TEXT" in out and "--option NAME=VALUE" in out
    assert "Usage: cli play [OPTIONS]" in out
    assert "replay [OPTIONS] FILE" in CliRunner().invoke(cli, ["replay", "--lang", "en", "--help"]).output
    error = CliRunner().invoke(cli, ["play", "--lang", "en", "--players", "x"]).output
    assert "'x' is not a valid integer" in error


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_terminal_hint_gives_its_reason_in_the_language(lang):
    """``hint`` in the terminal: the bot's reason reaches the screen translated (best_hint
    keeps it a Reason), in the language's own hint line."""
    from getaway.bots.hints import best_hint

    match = Match(Rules.profile("punjab", players=4), ["A", "B", "C", "D"], 5)
    view = player_view(match.deal, match.deal.to_act)
    _, reason, _ = best_hint(view, __import__("random").Random(0))
    assert isinstance(reason, i18n.Reason)
    console = Console(width=200, no_color=True, record=True, file=io.StringIO())
    try:
        i18n.use(lang)
        game = TerminalGame(console, match, match.deal.to_act, ["human", "easy", "easy", "easy"], 11, ask=lambda _: "")
        game._hint(view)  # noqa: SLF001
        shown = console.export_text()
        translated = i18n.localize(reason)
    finally:
        i18n.use("en")
    assert translated != str(reason) and translated in shown, shown


@pytest.mark.parametrize(
    ("lang", "typed", "command"),
    [
        ("hi", "सुझाव", "hint"),
        ("hi", "छो\u095cें", "quit"),  # ड़ typed as one code point, the catalog's as ड + nukta
        ("hi", "छोड़ें", "quit"),
        ("hi", "लें", "take"),
        ("hi", "take", "take"),
        ("pa", "ਚੁੱਕੋ", "pickup"),
        ("pa", "ਸੰਭਾਲੋ", "save"),
        ("pa", "pass", "pass"),
        ("ur", "اشارہ", "hint"),
        ("ur", "اٹھائیں", "pickup"),
        ("bn", "ইঙ্গিত", "hint"),
        ("bn", "তুলুন", "pickup"),
        ("bn", "take", "take"),
    ],
)
def test_the_terminals_command_words_in_the_new_languages(lang: str, typed: str, command: str) -> None:
    """The command words of docs/glossary/<lang>.md are understood as typed (any Unicode
    normalization), and the English ones too; yes and no by word or first letter."""
    from getaway.text.terminal import _command_of, _yes_or_no

    try:
        i18n.use(lang)
        assert _command_of(typed) == command
        assert _yes_or_no({"hi": "हाँ", "pa": "ਹਾਂ", "ur": "ہاں", "bn": "হ্যাঁ"}[lang]) is True
        assert _yes_or_no({"hi": "न", "pa": "ਨ", "ur": "نہیں", "bn": "না"}[lang]) is False
        assert _yes_or_no("y") is True
    finally:
        i18n.use("en")


@pytest.mark.parametrize(
    ("env", "title"),
    [
        ({"LANG": "hi_IN.UTF-8"}, "Getaway: नियम (प्रोफ़ाइल classic)"),
        ({"LANG": "C.UTF-8", "LANGUAGE": "pa_IN:en"}, "Getaway: ਨਿਯਮ (ਪ੍ਰੋਫ਼ਾਈਲ classic)"),
        ({"LANG": "hi_IN.UTF-8", "LC_ALL": "en_GB.UTF-8"}, "Getaway: the rules (profile classic)"),
    ],
)
def test_the_command_line_follows_the_locale_without_lang(env: dict[str, str], title: str) -> None:
    """Issue 25, item 4: with no --lang, a command speaks the language the locale names
    (LANGUAGE, then LC_ALL, LC_MESSAGES, LANG)."""
    base = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": ""}
    try:
        out = CliRunner().invoke(cli, ["rules", "--profile", "classic"], env={**base, **env}).output
    finally:
        i18n.use("en")
    assert title in out.splitlines()[0], out[:200]
