"""Entries and hands in plain words, for logs and messages (presentation only)."""

from __future__ import annotations

import hashlib
import unicodedata
from functools import lru_cache

from anyascii import anyascii
from markupsafe import Markup

from .i18n import gettext as _
from .i18n import pgettext
from .rules.base import Phrase


def alphabetical(key: str) -> tuple[str, str]:
    """The sort key, in the lists of players, of a name whose ``name_key`` is ``key``: its letters
    written in ASCII by anyascii ("Émile" among the E's, "Łukasz" among the L's, "Ørjan" among the
    O's: by code point they came after Z), then ``key`` itself, so that "Emile" and "Émile" keep
    one order."""
    return anyascii(key).casefold(), key


@lru_cache(maxsize=4096)
def name_in_text(name: str) -> str:
    """A player's name as it goes into words beside figures and other names: a name with a
    right-to-left letter (Hebrew, Arabic) between Unicode's first-strong isolate and
    pop-directional isolate (U+2068, U+2069; in plain text what ``<bdi>`` is in a page), any
    other name as it is. Else "שלום: 3-1 in 1" draws the dice on the name's left, reversed
    ("1-3"), and two such names in a list swap places."""
    if any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in name):
        return f"\u2068{name}\u2069"
    return name


def game_title(name: str, listed: bool = False) -> str:
    """A game's name for people, from its record name ("mitchi", "mia", "mice-and-men"): in German
    Mia is "Mäxchen"; ``listed`` (a list or choice of games) adds the name it is known by
    elsewhere: "Mäxchen (Mia)", and Mice and Men its German subtitle. Record values and URLs keep
    the record name."""
    if name == "mia":
        return pgettext("list of games", "Mia") if listed else _("Mia")
    if name == "mitchi":
        return _("Mitchi")
    if name == "mice-and-men":
        return pgettext("list of games", "Mice and Men") if listed else _("Mice and Men")
    return name


#: Names people may type for a game (a URL such as /games/new/mäxchen), by its record name.
GAME_ALIASES = {"mäxchen": "mia", "maexchen": "mia", "maxchen": "mia", "meiern": "mia",
                "mäuse-und-männer": "mice-and-men", "maeuse-und-maenner": "mice-and-men"}


def players_text(spec) -> str:
    """How many players a game takes: "3 to 6 players", "2 or more players"."""
    if spec.max_players is None:
        return _("%(low)d or more players", low=spec.min_players)
    return _("%(low)d to %(high)d players", low=spec.min_players, high=spec.max_players)


def _option_words() -> dict:
    """Option name -> (label, help) in the request's language; the English is the rules' own
    (docs/rules.md §Options; a test keeps them equal)."""
    return {
        "point_limit": (_("Point limit"),
                        _("The game ends when anyone reaches this many points; fewest points win.")),
        "lives": (_("Starting lives"),
                  _("Lives each player starts with; a player with no lives left is out.")),
        "order": (_("Order of rolls"), _("standard: Mia, doubles 11 (best) to 66, then 65 down to 31; "
                                         "sum: Mia, doubles 66 to 11, then by the sum of the pips.")),
        "pass_back": (_("Pass back"), _("When everyone passed back to the last roller: they must raise to pass, "
                                        "or may pass without raising (then the next player may not pass).")),
        "next_starter": (_("Next round starts with"),
                         _("Who starts the round after a challenge: the challenged cup owner, the challenger, "
                           "the loser or the winner.")),
        "winner_gains_life": (_("Winner gains a life"), _("The winner of a challenge gains 1 life.")),
        "mia_reverses": (_("Mia reverses direction"),
                         _("The winner of a challenge of an announced Mia may reverse the direction of play.")),
        "scoring": (_("Scoring"), _("elimination: the last player with lives wins; bonus points: a challenge "
                                    "winner gets a bonus point and the game ends when anyone has no lives left.")),
        "rolloff": (_("Roll-off for a tie"), _("With bonus points: two players still tied at the end play a "
                                               "roll-off instead of sharing the win.")),
        "rounds": (_("Rounds"), _("The game ends after this many rounds; the fewest penalty points win.")),
        "opening_range": (_("Opening range"),
                          _("The lowest and highest penalty the round's first player may open with.")),
        "run_penalty": (_("Run penalty"),
                        _("Penalty points a player takes at once for running with the mice.")),
        "tie": (_("Tie at the showdown"),
                _("When several share the lowest score: all of them take the penalty, or none does.")),
        "first_player": (_("First player"),
                         _("Who opens each round: the next seat each round, or a player named each round.")),
    }


def option_label(option) -> str:
    """A game option's label on the setup form (:class:`~scorekeeper.rules.base.Option`)."""
    return _option_words().get(option.name, (option.label or option.name, ""))[0]


def option_help(option) -> str:
    """A game option's one-line help on the setup form."""
    return _option_words().get(option.name, ("", option.help))[1]


def choice_label(value: str) -> str:
    """The label of a text option's choice (the value posted and stored stays as it is)."""
    return {
        "standard": pgettext("option choice", "standard"), "sum": pgettext("option choice", "sum"),
        "must-raise": pgettext("option choice", "must raise"), "may-pass": pgettext("option choice", "may pass"),
        "owner": pgettext("option choice", "the cup owner"),
        "challenger": pgettext("option choice", "the challenger"),
        "loser": pgettext("option choice", "the loser"), "winner": pgettext("option choice", "the winner"),
        "elimination": pgettext("option choice", "elimination"),
        "bonus-points": pgettext("option choice", "bonus points"),
        "all": pgettext("option choice", "all"), "none": pgettext("option choice", "none"),
        "rotate": pgettext("option choice", "rotate"), "chosen": pgettext("option choice", "chosen"),
    }.get(value, value)


def join_names(names) -> str:
    """'Ann', 'Ann and Ben', 'Ann, Ben and Cat' (in the request's language); 'nobody' for none."""
    names = [name_in_text(str(n)) for n in names]
    if not names:
        return _("nobody")
    if len(names) == 1:
        return names[0]
    return _("%(names)s and %(last)s", names=", ".join(names[:-1]), last=names[-1])


def won_words(winners) -> str:
    """A finished game's result in a list of games (the request's language): "won by Ann", or
    "shared win: Ann and Ben" for several winners (``winners``: their names)."""
    winners = list(winners)
    if len(winners) > 1:
        return _("shared win: %(names)s", names=join_names(winners))
    return _("won by %(name)s", name=join_names(winners))


def dice_text(dice) -> str:
    """A hand as text, highest die first: "6-3"; Mitchi's best hand is "2-1 (Mitchi)"."""
    dice = sorted(dice, reverse=True)
    if len(dice) == 2 and dice == [2, 1]:
        return _("2-1 (Mitchi)")
    return "-".join(str(d) for d in dice)


def mia_value(value) -> str:
    """A Mia value as said at the table: 21 is "Mia" (in German "Mäxchen"); a value not given
    (a refused entry without one, as "You tried" repeats it) is "?", not "None"."""
    if value is None:
        return "?"
    return _("Mia") if value == 21 else str(value)


def mia_label(value: int, order: str) -> Markup:
    """A Mia value as a game's page shows it (:func:`mia_value`); in the sum order a value that
    is no double with its sum beside it, named: "65 <small>(sum 11)</small>" (a bare "(11)" read
    as the double 11 on the buttons beside it)."""
    if order == "sum" and value != 21 and value // 10 != value % 10:
        return Markup("%s <small>(%s)</small>") % (value, _("sum %(num)d", num=value // 10 + value % 10))
    return Markup.escape(mia_value(value))


def shown_tag(said: str) -> str:
    """A short tag of an entry's line as a page showed it (:func:`describe`'s text): a "correct"
    link carries it, so that the correction page can tell when the entry at that position is
    no longer the one the page showed (undone and entered again, or corrected, on another phone).
    Ten hex digits of its SHA-256."""
    return hashlib.sha256(said.encode()).hexdigest()[:10]


def describe_logged(entry: dict, state, recent: list, back: int = 0) -> str:
    """:func:`describe` for an entry of the log, ``back`` entries before its last (0: the last),
    where ``recent`` is the log's last entries and ``state`` the game's: a roll of a round's second
    tie-break or later names it, as "Last entries" does ("Recorded: Cat: tie-break 2 roll 6-6", on
    Undo too; a playtest), when the entry is among ``recent``
    (:meth:`~scorekeeper.rules.base.GameState.tie_break_numbers`)."""
    number = None
    if type(entry) is dict and entry.get("type") == "tiebreak" and 0 <= back < len(recent):
        number = state.tie_break_numbers(recent[len(recent) - 1 - back:])[0]
    return describe(entry, tie_break=number)


def describe_at(entry: dict, state) -> str:
    """:func:`describe` for an entry made at ``state``, the game's state before it (the entry Redo
    would put back, the game being without it; an entry on its correction page): a tie-break
    roll names the tie-break under way there, in which it is rolled
    (:attr:`~scorekeeper.rules.base.GameState.tie_break_now`)."""
    return describe(entry, tie_break=state.tie_break_now)


def describe(entry: dict, tie_break: int | None = None) -> str:
    """One line for an entry of any game: "Cat: 4-1 in 3", "Ben announces 54" (in the request's
    language). ``tie_break``: the number of the tie-break a Mitchi tie-break roll was rolled in,
    said from the second on ("Ann: tie-break 2 roll 5-3"; :func:`scorekeeper.rules.record.entry_places`)."""
    if not isinstance(entry, dict):
        return _("a malformed entry")
    p = entry.get("player")
    p = name_in_text(p) if isinstance(p, str) else p
    kind = entry.get("type")
    if kind == "start":
        return _("%(player)s starts", player=p)
    if kind == "startroll":
        return _("%(player)s rolls %(die)s for who starts", player=p, die=entry.get("die"))
    if kind == "turn":
        return _("%(player)s: %(hand)s in %(rolls)s", player=p, hand=dice_text(entry.get("hand", [])),
                 rolls="?" if entry.get("rolls") is None else entry["rolls"])
    if kind == "tiebreak" and tie_break is not None and tie_break > 1:
        return _("%(player)s: tie-break %(num)s roll %(hand)s", player=p, num=tie_break,
                 hand=dice_text(entry.get("hand", [])))
    if kind == "tiebreak":
        return _("%(player)s: tie-break roll %(hand)s", player=p, hand=dice_text(entry.get("hand", [])))
    if kind == "announce":
        if "penalty" in entry:
            return _("%(player)s announces a penalty of %(penalty)s", player=p, penalty=entry["penalty"])
        return _("%(player)s announces %(value)s", player=p, value=mia_value(entry.get("value")))
    if kind == "pass":
        if "value" in entry:
            return _("%(player)s passes, raising to %(value)s", player=p, value=mia_value(entry["value"]))
        return _("%(player)s passes", player=p)
    if kind == "challenge":
        cup = "-".join(str(d) for d in sorted(entry.get("cup", []), reverse=True))
        if "owner" in entry:
            return _("%(player)s challenges %(owner)s's %(value)s: the cup shows %(cup)s", player=p,
                     owner=name_in_text(str(entry["owner"])), value=mia_value(entry.get("announced")), cup=cup)
        return _("%(player)s challenges: the cup shows %(cup)s", player=p, cup=cup)
    if kind == "reverse":
        return _("%(player)s reverses the direction of play", player=p)
    if kind == "first":
        return _("%(player)s opens this round", player=p)
    if kind == "join":
        return _("%(player)s joins the men", player=p)
    if kind == "run":
        return _("%(player)s runs with the mice", player=p)
    if kind == "reveal":
        return _("%(player)s shows %(dice)s", player=p, dice=dice_text(entry.get("dice", [])))
    return f"{p}: {kind}"


def next_words(expected: dict | None) -> str:
    """Who acts next, for the table: "Ann to roll", "Ben to act", "Showdown: everyone still in shows
    the dice". ``expected`` is the engine's ``next`` (docs/game-record.md); None once the game is over."""
    if not expected:
        return _("The game is over.")
    kind, p = expected.get("type"), expected.get("player")
    if isinstance(kind, list) and p is None and "start" in kind:  # before anyone starts
        if "announce" in kind and expected.get("opener"):  # Mice and Men: the first seat, unless rolled for
            return _("%(player)s (the first seat) opens round 1, unless a roll-off picks another.",
                     player=expected["opener"])
        return _("Who starts? Not chosen yet.")
    if isinstance(kind, list):
        return _("%(player)s to act", player=p) if p else _("Anyone may act")
    if p is None:
        return {"start": _("Who starts? Not chosen yet."), "startroll": _("Rolling for who starts."),
                "first": _("Who opens this round? Not named yet."),
                "reveal": _("Showdown: everyone still in shows the dice.")}.get(kind, _("Next: anyone"))
    return {"turn": _("%(player)s to roll", player=p),
            "tiebreak": _("%(player)s rolls in the tie-break", player=p),
            "startroll": _("%(player)s rolls for who starts", player=p),
            "announce": _("%(player)s to announce", player=p),
            "reveal": _("%(player)s shows the dice", player=p),
            "first": _("%(player)s opens this round", player=p)}.get(kind, _("%(player)s to act", player=p))


def in_setup_words(spec, err):
    """The rules' refusal ``err`` (a :class:`~scorekeeper.rules.base.RuleError` or its Phrase) of a setup's
    options, with every value that is an option's code name of ``spec`` given as the setup form
    labels it ("Roll-off for a tie", in quotes) and every choice's code as its radio button reads
    ("bonus points"): a :class:`~scorekeeper.rules.base.Phrase` for ``i18n.translated``. The
    record's code names stay in a record's refusals (docs/translations.md §Refusals)."""
    phrase = err if isinstance(err, Phrase) else getattr(err, "message", None)
    if not isinstance(phrase, Phrase) or not phrase.values:
        return err
    options = {o.name: o for o in spec.options}
    values = {}
    for key, value in phrase.values.items():
        if isinstance(value, str) and value in options:
            value = _("“%(label)s”", label=option_label(options[value]))  # German: „…“
        elif isinstance(value, str) and any(value in (o.choices or ()) for o in spec.options):
            value = choice_label(value)
        values[key] = value
    return Phrase(phrase.template, phrase.plural, **values)
