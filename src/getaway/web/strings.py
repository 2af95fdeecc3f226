"""The page's own texts (msgids, English): ``GET /api/strings/{lang}`` returns them translated
with the same gettext catalogs as the command line (``N_`` marks them for extraction).

The page (static/*.js) shows every text through ``t(msgid, args)``, with ``{name}``
placeholders filled in the browser; add each new msgid here. Card, rank and suit names come
from the catalogs' own entries (``/api/strings`` returns them separately).
"""

from __future__ import annotations

from ..bots import LEVEL_HELP
from ..core.rules import Rules
from ..text.i18n import N_


def schema_texts() -> tuple[str, ...]:
    """The msgids of the option schema that the lobby shows (:meth:`Rules.schema`: each
    option's label, hint and choice labels), in schema order, each once."""
    texts: list[str] = []
    for spec in Rules.schema()["options"].values():
        texts += [spec["label"], *([spec["hint"]] if spec["hint"] else []), *spec.get("choice_labels", [])]
    return tuple(dict.fromkeys(texts))


_PAGE: tuple[str, ...] = (
    N_("Move"),
    N_("Whose cards"),
    N_("Link to this move"),
    N_("Review"),
    N_("First move"),
    N_("Back"),
    N_("Forward"),
    N_("Last move"),
    N_("Drop a game record (.json) here to replay it, or choose the file:"),
    N_("Replay"),
    N_("This file is not a game record: it is not JSON."),
    N_("All hands"),
    N_("Move {k} of {n}"),
    N_("no cards"),
    N_("The expert is reviewing this deal (this takes a few seconds)…"),
    N_("Your losing chance over the deal, by the expert"),
    N_("Move {k}: {played} ({mark})"),
    N_("not searched"),
    N_("Review of seat {n}"),
    N_("{decisions} decisions, {mistakes} mistake(s), {blunders} blunder(s)"),
    N_("move"),
    N_("played"),
    N_("loses"),
    N_("best"),
    N_("mark"),
    N_("why"),
    N_("blunder"),
    N_("mistake"),
    N_("Learn to play"),
    N_("done"),
    N_("All lessons"),
    N_("Try again"),
    N_("Next lesson"),
    N_("Replay a game record"),
    N_("Replay and review"),
    N_("Language"),
    N_("Getaway"),
    N_("Room {code}"),
    N_("Rules"),
    N_("Skip to the game"),
    N_("Loading…"),
    N_("Close the rules"),
    N_("The rules could not be loaded."),
    N_("There is no room with this code."),
    N_("Back to the lobby"),
    N_("first free seat"),
    N_("Seat {n}"),
    N_("Please enter your name."),
    N_("Your name"),
    N_("Seat"),
    N_("No seat is free: you can watch."),
    N_("Take a seat"),
    N_("Watch as a spectator"),
    N_("{profile} · players: {players} · deals: {n}"),
    N_("Bot level"),
    N_("Seats"),
    N_("empty (a bot if nobody sits)"),
    N_("bot"),
    N_("host"),
    N_("you"),
    N_("away"),
    N_("Connecting…"),
    N_("Connection lost: reconnecting…"),
    N_("Retry now"),
    N_("Deal {k} of {n}"),
    N_("The room is closed."),
    N_("Not connected: try again in a moment."),
    N_("Invite your friends with this link"),
    N_("Copied."),
    N_("Copy"),
    N_("You are watching."),
    N_("Start when everyone is seated: empty seats are played by bots."),
    N_("Waiting for the host to start."),
    N_("Start the match"),
    N_("Close the room"),
    N_("Close this room for everyone? It cannot be opened again."),
    N_("{rank} of {suit}"),
    N_("profile default"),
    N_("Join a room"),
    N_("Room code"),
    N_("Go to the room"),
    N_("New game"),
    N_("Variants and options"),
    N_("Variants"),
    N_("Play alone against bots"),
    # offline play against bots (static/offline.js)
    N_("Offline: this deal is played in your browser, by the same rules and bots."),
    N_("Starting the offline game (the first start takes some seconds)…"),
    N_("Offline play is not available: open this page once while online, then try again."),
    N_("The server cannot be reached: you can play alone against bots in this page."),
    N_("Download the record"),
    N_("Create a room for friends"),
    N_("Empty seats are played by bots. In a room for friends, share the link and start when everyone is seated."),
    N_("The South Asian shedding card game (Bhabhi): empty your hand, and do not be the last one holding cards."),
    N_("random"),
    N_("easy"),
    N_("medium"),
    N_("hard"),
    N_("expert"),
    N_("Bot {n}"),
    N_("Cards on the table"),
    N_("Narration"),
    N_("Standings"),
    N_("a bot plays for them"),
    N_("Dealer"),
    N_("dealer"),
    N_("got away ({place})"),
    N_("to take or pass"),
    N_("to play"),
    N_("Cards: {n}"),
    N_("You"),
    N_("tochoo"),
    N_("ruff"),
    N_("irregular"),
    N_("cannot follow"),
    N_("You pick up the trick (cards: {n})."),
    N_("{who} picks up the trick (cards: {n})."),
    N_("To the waste pile; you lead."),
    N_("To the waste pile; {who} leads."),
    N_("waste pile: {n}"),
    N_("Loser: none (drawn deal)"),
    N_("Loser: {name} (you)"),
    N_("Loser: {name}"),
    N_("Order of getting away: {order}"),
    N_("The match is over."),
    N_("Winner of the match: {names}"),
    N_("Next deal"),
    N_("Waiting for the host to start the next deal."),
    N_("Take {name}'s hand"),
    N_("Take left hand"),
    N_("Pass"),
    N_("Pick up"),
    N_("Your hand"),
    N_("drawn blind"),
    N_("You drew {card} blind: you must lead it."),
    N_("The deal is over."),
    N_("Take {name}'s hand, or pass?"),
    N_("Your turn: lead a card."),
    N_("Your turn: play a card."),
    N_("You cannot follow suit."),
    N_("{name} to take or pass"),
    N_("{name} to play"),
    N_("Place"),
    N_("Player"),
    N_("Points"),
    N_("Losses"),
    N_("Tens"),
    N_("Chips"),
    N_("no loser"),
    N_("Record of deal {k}"),
    N_("away: a bot plays in {s} s"),
    # the table's motion and cues, the phone layout (issue 15)
    N_("Sound when it is your turn"),
    N_("Sound on: click to mute"),
    N_("Sound off: click to turn it on"),
    N_("Back to the table"),
    # the hint (web/hints.py)
    N_("Hint"),
    N_("Hints allowed"),
    # the lobby: public rooms, quick play, rematch (issue 15 item 8)
    N_("Public room: listed in the lobby, anyone may join"),
    N_("Public rooms"),
    N_("Quick play"),
    N_(
        "Quick play seats you in a public room that is waiting for players, or opens one: "
        "empty seats are played by bots."
    ),
    N_("{n} players"),
    N_("Free seats: {n}"),
    N_("no variants"),
    N_("Join"),
    N_("Join {names}"),
    N_("No public room is waiting for players."),
    N_("Rematch"),
    N_("A new room with the same players and options: everyone here comes along."),
    # takes between tricks, the turn timer, finishing a deal (issue 15; docs/web.md)
    N_("Their cards join yours and they get away: take only when it helps you."),
    N_("{name} holds the last other hand: take it and the deal ends, with you the loser."),
    N_("Take at the next chance"),
    N_("Take armed: cancel"),
    # the take window, an armed take, the pace and the last trick (issue 24; docs/web.md)
    N_("Take armed"),
    N_("Cancel the armed take"),
    N_("Your armed take fired: you took {name}'s hand."),
    N_("{s} s"),
    N_("Last trick"),
    # the review one click away (issue 24 item 6)
    N_("Review this deal"),
    N_("Choose a seat to review"),
    N_("Speed"),
    N_("Relaxed"),
    N_("Normal pace"),
    N_("Fast"),
    N_(
        "Take window: between tricks, while you may take, a bot's lead waits {s} s "
        "(the countdown on the take control); your own lead ends it."
    ),
    N_("I'm back"),
    N_("Finish the deal"),
    N_("You were away: a bot plays for you."),
    N_("{s} s left: then a bot plays for you"),
    # quick chat at the table (issue 23 item 8; its phrases: getaway.text.chat)
    N_("Quick chat"),
    N_("Mute"),
    N_("Mute {name}"),
)

#: Every msgid the page shows: its own texts, then the option schema's.
#: The bot levels' one-line descriptions (:data:`getaway.bots.LEVEL_HELP`, each starting
#: ``"<level>: "``: the lobby finds the chosen level's line by that start).
LEVEL_LINES: tuple[str, ...] = tuple(LEVEL_HELP.values())

UI_STRINGS: tuple[str, ...] = _PAGE + tuple(dict.fromkeys(m for m in (*schema_texts(), *LEVEL_LINES) if m not in _PAGE))
