"""Past games: the list, summaries, plain-words logs, highlights, stats, charts, CSV, import/export.

Everything about a game is computed from ONE replay of its log: the engine's
``summary()`` (docs/game-record.md §Replay): ``{"game", "finished",
"scores": {name: int}, "winners": [name], "rounds": [round dict], "next"}``
(Mia may add ``"bonus"``). Round dicts are the engines' ``as_dict()``:

- Mitchi: ``number, starter, roll_limit, taker, pot, turns: [{player, hand,
  rolls}], tie_breaks: [{order, pot, hands: [{player, hand}]}]``
- Mia: ``number, owner, challenger, announced, cup, loser, winner,
  lives_lost, lives_gained[, quick][, rolloff]``
- Mice and Men: ``number, first, penalty, takers, runners, opening,
  bidding: [{player, action, penalty[, dice, score]}], reveals: [{player,
  dice, score}], survivor, taken: {name: int}``

Scores: Mitchi points and Mice and Men penalty points, where the FEWEST win;
Mia lives, where the most win. 0 is a real score everywhere (never "none"):
nothing here tests a score for truth.
"""

from __future__ import annotations

import csv
import io
import json
import lzma
import re
import threading
import zipfile
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from html import escape
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from sqlalchemy import insert, or_, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, func, select

from ..i18n import translated
from ..words import alphabetical
from ..words import name_in_text as isolated  # a right-to-left name keeps its figure beside it
from ..models import Entry, Game, GamePlayer, Group, Player, utcnow
from ..rules import GAMES, find_game
from ..rules.names import clean_name, name_key
from ..rules.base import parse_options
from ..rules import record as records
from ..rules.record import RECORD_INT_MAX
from ..rules.mia import value_label
from ..rules.mitchi import MITCHI, hand_name, worst_of
from . import export_rows, practice
from . import games as service
from babel.numbers import format_decimal
from flask_babel import gettext as _, ngettext, pgettext
from .stats import LEADER_GAMES, GameKindStats, PlayerStats, game_figures, leaders, player_stats  # noqa: F401 (their home is stats)
from .stats import seated_players


def lowest_wins(game: str) -> bool:
    """True when the fewest points win (Mitchi, Mice and Men); False for Mia (most lives)."""
    return find_game(game).lowest_wins


# --- time zones --------------------------------------------------------------


@lru_cache(maxsize=1)
def timezones() -> tuple[str, ...]:
    """Every IANA zone name the system (or the tzdata package) knows, sorted."""
    return tuple(sorted(_zone_names()))


#: Files of the system's zone folder that are no place a group is in: the machine's own zone
#: (a link) and tzdata's placeholder for "not set yet".
NOT_PLACES = frozenset({"localtime", "Factory", "posixrules"})


@lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    return frozenset(available_timezones()) - NOT_PLACES


def valid_timezone(name: str | None) -> bool:
    """True for a known IANA zone name such as "Europe/Berlin" or "UTC"."""
    if not name or not isinstance(name, str) or len(name) > 64:
        return False
    if name not in _zone_names() and name != "UTC":
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def local_time(moment: datetime, tz: str) -> datetime:
    """``moment`` (aware; naive is taken as UTC) in the zone ``tz`` (UTC if unknown)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    zone = ZoneInfo(tz) if valid_timezone(tz) else ZoneInfo("UTC")
    try:
        return moment.astimezone(zone)
    except (OverflowError, ValueError, OSError):
        # A moment at the very ends of the calendar (year 1 or 9999) cannot be moved into some
        # zones: it is shown in UTC rather than failing the page.
        return moment.astimezone(timezone.utc)


#: How a played-at time is written, per language (Babel/CLDR patterns). A language not
#: listed gets its own medium date and short time.
WHEN_PATTERNS = {"en": "EEE d MMM y, HH:mm", "de": "EEE, d. MMM y, HH:mm"}


def request_language() -> str:
    """The current request's language code ("en", "de"), "en" outside a request."""
    from flask_babel import get_locale

    try:
        locale = get_locale()
    except RuntimeError:  # no app or request context
        locale = None
    return locale.language if locale is not None else "en"


def when(moment: datetime, tz: str, lang: str | None = None) -> str:
    """A played-at time for people, in the group's zone and the language ``lang`` (default:
    the request's, else English): "Sun 29 Nov 2026, 00:30", "So., 29. Nov. 2026, 00:30"."""
    from babel.dates import format_date, format_datetime, format_time

    t = local_time(moment, tz)
    lang = lang or request_language()
    pattern = WHEN_PATTERNS.get(lang)
    if pattern is None:
        return f"{format_date(t, 'medium', locale=lang)}, {format_time(t, 'short', tzinfo=t.tzinfo, locale=lang)}"
    return format_datetime(t, pattern, tzinfo=t.tzinfo, locale=lang)


# --- player profiles ---------------------------------------------------------


def known_players(session: Session, group_id: int, limit: int | None = None) -> list[Player]:
    """The group's player profiles who sit at one of its games that count (not removed, not
    practice: :func:`stats.seated_players`), by name; with ``limit``, only the ones who sat at
    the most recently played of those games (still sorted by name)."""
    if limit is None:
        return sorted(session.exec(select(Player).where(Player.group_id == group_id,
                                                        Player.id.in_(seated_players(group_id)))),
                      key=lambda p: alphabetical(p.name_key))
    last_played = func.max(Game.played_at)
    recent = session.exec(
        select(Player).join(GamePlayer, GamePlayer.player_id == Player.id).join(Game, Game.id == GamePlayer.game_id)
        .where(Player.group_id == group_id, Game.removed_at.is_(None), Game.practice.is_(False))
        .group_by(Player.id).order_by(last_played.desc()).limit(limit)
    ).all()
    return sorted(recent, key=lambda p: alphabetical(p.name_key))


def get_player(session: Session, group_id: int, player_id: int) -> Player | None:
    """The profile ``player_id`` if it belongs to the group ``group_id``, else None (the view answers 404)."""
    player = session.get(Player, player_id)
    if player is None or player.group_id != group_id:
        return None
    return player


def group_of_player(session: Session, player_id: int) -> int | None:
    """The group the profile ``player_id`` belongs to, or None if there is no such profile."""
    player = session.get(Player, player_id)
    return None if player is None else player.group_id


def link_players(session: Session, group_id: int, game: Game) -> list[Player]:
    """Link every seat of ``game`` to the group's profile of that name (same :func:`name_key`),
    creating missing profiles. Flushes only: the caller commits with the game, so a game
    and its seats are stored together or not at all. Returns the profiles in seat order.

    Raises ``IntegrityError`` when another request created the same new profile at the
    same moment; the caller rolls back and may try again.
    """
    profiles = _profiles_for(session, group_id, json.loads(game.players))
    for seat, profile in enumerate(profiles):
        session.add(GamePlayer(game_id=game.id, player_id=profile.id, seat=seat))
    session.flush()
    return profiles


def _profiles_for(session: Session, group_id: int, names: list[str]) -> list[Player]:
    """The group's profile of each name (found by its whole :func:`name_key`, never cut short:
    docs/game-record.md §Names), new profiles added and flushed."""
    keys = [name_key(n) for n in names]
    found = {p.name_key: p for p in session.exec(
        select(Player).where(Player.group_id == group_id, Player.name_key.in_(keys)))}
    out = []
    for name, key in zip(names, keys):
        if key not in found:
            found[key] = Player(group_id=group_id, name=clean_name(name), name_key=key)
            session.add(found[key])
            session.flush()
        out.append(found[key])
    return out


# --- the list ------------------------------------------------------------------


def list_games(session: Session, group_id: int, game: str | None = None, player_id: int | None = None,
               page: int = 1, per_page: int = 20, practice_of: int | None = None) -> tuple[list[Game], int]:
    """One page of the group's games, newest played first, and the count of all that match.

    ``game`` filters by game code name, ``player_id`` by profile; ``practice_of`` (an account
    id) picks that account's practice games instead of the real ones (they are listed apart;
    another member's are not listed, as only its own account plays one: ``practice.plays``).
    No replay: the list reads the ``finished``/``rounds``/``winners`` columns.
    """
    stmt = select(Game).where(Game.group_id == group_id, Game.practice.is_(practice_of is not None),
                              Game.removed_at.is_(None))
    if practice_of is not None:
        stmt = stmt.where(or_(Game.started_by == practice_of, Game.started_by.is_(None)))
    if game in GAMES:
        stmt = stmt.where(Game.game == game)
    if player_id is not None:
        stmt = stmt.where(Game.id.in_(select(GamePlayer.game_id).where(GamePlayer.player_id == player_id)))
    total = session.exec(select(func.count()).select_from(stmt.subquery())).one()
    rows = session.exec(stmt.order_by(Game.played_at.desc(), Game.id.desc())
                        .offset((max(page, 1) - 1) * per_page).limit(per_page)).all()
    return list(rows), total


# --- replays -------------------------------------------------------------------

_CACHE: OrderedDict[tuple, dict] = OrderedDict()
_CACHE_SIZE = 4096
_CACHE_LOCK = threading.Lock()  # gunicorn runs threads; OrderedDict moves are not atomic


def _key(session: Session, game: Game) -> tuple:
    # The version moves on every change to the log; created_at tells apart games that
    # reuse an id (a test database emptied between tests).
    return (str(session.get_bind().url), game.id, game.version, game.created_at)


def summaries(session: Session, games: list[Game]) -> dict[int, dict]:
    """``{game.id: summary}`` for many games: one query for all their logs, one replay per game
    (kept in a small in-process cache by game version, so a stats page does not replay again)."""
    out: dict[int, dict] = {}
    todo = []
    with _CACHE_LOCK:
        for g in games:
            key = _key(session, g)
            hit = _CACHE.get(key)
            if hit is not None:
                _CACHE.move_to_end(key)
                out[g.id] = hit
            else:
                todo.append(g)
    logs: dict[int, list[dict]] = {g.id: [] for g in todo}
    for chunk in range(0, len(todo), 500):
        ids = [g.id for g in todo[chunk:chunk + 500]]
        stmt = (select(Entry.game_id, Entry.data).where(Entry.game_id.in_(ids), Entry.status == "active")
                .order_by(Entry.game_id, Entry.seq))
        for game_id, data in session.exec(stmt):
            logs[game_id].append(json.loads(data))
    for g in todo:
        summary = service.replay(g, logs[g.id]).summary()
        remember(session, g, summary)
        out[g.id] = summary
    return out


def remember(session: Session, game: Game, summary: dict) -> None:
    """Keep ``summary`` for ``game`` at its current version."""
    with _CACHE_LOCK:
        _CACHE[_key(session, game)] = summary
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)


# --- scores round by round ---------------------------------------------------------


def score_series(game: str, players: list[str], options: dict, summary: dict) -> dict[str, list[int]]:
    """``{name: [score before round 1, after round 1, ...]}``: len(rounds) + 1 values each,
    taken from the engine (its fresh state, then each round's ``scores``)."""
    spec = find_game(game)
    start = spec.new_state(tuple(players), parse_options(spec.options, options)).summary()["scores"]
    series = {p: [start[p]] for p in players}
    for rnd in summary["rounds"]:
        for p in players:
            series[p].append(rnd["scores"][p])
    return series


def round_changes(series: dict[str, list[int]], index: int) -> dict[str, int]:
    """``{name: change}`` of round ``index`` (1-based) from a :func:`score_series`."""
    return {p: values[index] - values[index - 1] for p, values in series.items()}


# --- standings, figures, highlights ---------------------------------------------------


def standings(game: str, players: list[str], summary: dict) -> list[dict]:
    """Players best first: ``[{"player", "score", "bonus" (Mia bonus-points or None), "rank"
    (1 = best; tied players share it), "winner" (bool), "shared" (bool: a shared win)}]``.

    Best is the fewest points in Mitchi and Mice and Men, the most lives (then
    bonus points) in Mia. Winners are the engine's, listed first whatever the sort.
    """
    scores, bonus = summary["scores"], summary.get("bonus")
    winners = set(summary.get("winners") or [])
    spec = find_game(game)
    order = spec.standings(summary)
    out, last, rank = [], None, 0
    for i, p in enumerate(order):
        k = (p not in winners, spec.standing_key(summary, p))
        if k != last:
            rank, last = i + 1, k
        out.append({"player": p, "score": scores[p], "bonus": bonus[p] if bonus else None, "rank": rank,
                    "winner": p in winners, "shared": p in winners and len(winners) > 1})
    return out


def _best(figs: dict[str, dict], key: str) -> tuple[list[str], int]:
    top = max((f[key] for f in figs.values()), default=0)
    return [p for p, f in figs.items() if f[key] == top], top


def join_people(names: list[str]) -> str:
    """Names joined for a sentence in the request's language: "Ann, Ben and Cat", "Ann, Ben und
    Cat" (``words.join_names``); no names is the empty text the rules write."""
    from ..rules.base import join_names
    from ..words import join_names as said

    return said(names) if names else join_names(names)


def hand_words(hand) -> str:
    """A Mitchi hand in the request's language: "Mitchi", "double 6" ("6er-Pasch"), "6‑3" (with a
    non-breaking hyphen, U+2011: the round-by-round lines wrapped "6-" / "3" on a phone)."""
    hand = tuple(sorted(hand, reverse=True))
    if hand == MITCHI:
        return "Mitchi"
    if hand[0] == hand[1]:
        return _("double %(die)d", die=hand[0])
    return hand_name(hand).replace("-", "\u2011")


def mia_words(value: int, order: str = "standard") -> str:
    """A Mia value in the request's language: "Mia" ("Mäxchen"), "double 3" ("3er-Pasch"),
    "65", in ``sum`` order "63 (9)" (rules/mia.py ``value_label``)."""
    if value == 21:
        return pgettext("the hand 2-1", "Mia")
    if value % 11 == 0 and 11 <= value <= 66:
        return _("double %(die)d", die=value // 11)
    return value_label(value, order)


def highlights(game: str, players: list[str], summary: dict) -> list[dict]:
    """Notable moments, in the request's language: ``[{"title": str, "text": str}]`` (largest
    pot, most Mitchis, longest tie-break chain; challenges and Mia challenges won, heaviest
    loss; highest penalty taken, runs with the mice, lone survivors). Empty before the first round."""
    join_names = join_people
    rounds = summary["rounds"]
    if not rounds:
        return []
    figs = game_figures(game, players, summary)
    out = []

    def add(title, text):
        out.append({"title": title, "text": text})

    def best(who, n):
        return _("%(names)s: %(num)d", names=join_names(who), num=n)

    def first_of_largest(among: list[dict], key) -> tuple[dict, int]:
        """The first round with the largest ``key``, and what to add when other rounds equal it:
        "Ann lost 1 life in round 1" alone read as if nobody else had (found by a review)."""
        top = max(key(r) for r in among)
        tied = [r for r in among if key(r) == top]
        return tied[0], len(tied) - 1

    def also(text: str, others: int) -> str:
        if not others:
            return text
        # not "(also in 2 other rounds)": that read as if the same player had (found by a review)
        return ngettext("%(said)s; %(num)d other round equalled it", "%(said)s; %(num)d other rounds equalled it",
                        others, said=text)

    if game == "mitchi":
        big, others = first_of_largest(rounds, lambda r: r["pot"])
        add(_("Largest pot"), also(ngettext("%(num)d point, taken by %(player)s in round %(round)d",
                                            "%(num)d points, taken by %(player)s in round %(round)d", big["pot"],
                                            player=big["taker"], round=big["number"]), others))
        who, n = _best(figs, "mitchis")
        add(_("Most Mitchis"), best(who, n) if n else _("Nobody rolled a Mitchi"))
        chain, others = first_of_largest(rounds, lambda r: len(r.get("tie_breaks", [])))
        k = len(chain.get("tie_breaks", []))
        add(_("Longest tie-break chain"), also(ngettext("%(num)d tie-break in round %(round)d",
                                                        "%(num)d tie-breaks in round %(round)d", k,
                                                        round=chain["number"]), others) if k else _("No tie-breaks"))
        who, n = _best(figs, "pots")
        add(_("Most pots taken"), best(who, n))
    elif game == "mia":
        who, n = _best(figs, "challenges_won")
        add(_("Most challenges won"), best(who, n))
        who, n = _best(figs, "mia_challenges_won")
        add(_("Mia challenges won"), best(who, n) if n else _("No challenge involved a Mia"))
        heavy, others = first_of_largest(rounds, lambda r: r.get("lives_lost", 0))
        if heavy.get("lives_lost", 0) > 0:
            add(_("Heaviest loss"), also(ngettext("%(player)s lost %(num)d life in round %(round)d",
                                                  "%(player)s lost %(num)d lives in round %(round)d",
                                                  heavy["lives_lost"], player=heavy["loser"], round=heavy["number"]),
                                         others))
    else:
        taken = [r for r in rounds if r.get("takers")]
        if taken:
            big, others = first_of_largest(taken, lambda r: r["penalty"])
            add(_("Highest penalty taken"), also(_("%(penalty)d by %(names)s in round %(round)d",
                                                   penalty=big["penalty"], names=join_names(big["takers"]),
                                                   round=big["number"]), others))
        who, n = _best(figs, "runs")
        add(_("Most runs with the mice"), best(who, n) if n else _("Nobody ran"))
        lone = [r for r in rounds if r.get("survivor")]
        if lone:
            shown = ", ".join(_("%(player)s (round %(round)d)", player=r["survivor"], round=r["number"])
                              for r in lone[:5])
            if len(lone) > 5:
                shown = ngettext("%(list)s and %(num)d more", "%(list)s and %(num)d more", len(lone) - 5,
                                 list=shown)
            add(_("Lone survivors"), shown)
    return out


# --- the round-by-round log in plain words --------------------------------------------


def _reversal(rnd: dict) -> list[str]:
    """A Mia round's reversal of the direction of play, which its challenge's winner entered right
    after it (docs/rules.md §Mia, ``mia_reverses``), as a line: ``[]`` if there was none."""
    if rnd.get("reversed_by") is None:
        return []
    return [_("%(player)s reversed the direction of play.", player=rnd["reversed_by"])]


def round_lines(game: str, rnd: dict, options: dict, after: dict[str, int] | None = None) -> list[str]:
    """One finished round in plain words (the request's language), a few sentences; ``after``
    is ``{name: score}`` after the round (for "2 lives left")."""
    join_names = join_people
    if game == "mitchi":
        lines = [_("%(player)s starts; roll limit %(limit)d.", player=rnd["starter"], limit=rnd["roll_limit"])]
        turns = rnd.get("turns", [])
        # Each hand's words first: pybabel does not find a marked string inside another's arguments.
        said = [_("%(player)s %(hand)s in %(rolls)d", player=isolated(t["player"]), hand=hand_words(t["hand"]),
                  rolls=t["rolls"])
                for t in turns]
        lines.append(_("Hands: %(hands)s.", hands=", ".join(said)))
        hands = [(t["player"], tuple(sorted(t["hand"], reverse=True))) for t in turns]
        tbs = rnd.get("tie_breaks", [])
        if hands:
            worst = worst_of(hands)
            worst_hand = hand_words(dict(hands)[worst[0]])
            if len(worst) == 1:
                lines.append(_("Worst hand: %(player)s with %(hand)s.", player=worst[0], hand=worst_hand))
            else:
                lines.append(_("Worst hand %(hand)s, held by %(names)s: a tie-break.", hand=worst_hand,
                               names=join_names(worst)))
        for i, tb in enumerate(tbs, start=1):
            rolled = ", ".join(f"{isolated(h['player'])} {hand_words(h['hand'])}" for h in tb["hands"])
            order = " → ".join(isolated(p) for p in tb["order"])
            if tb["pot_after"] != tb["pot"]:  # Mitchis rolled in it raised the pot
                lines.append(_("Tie-break %(number)d (order %(order)s, pot %(pot)d, %(now)d with Mitchis): "
                               "%(rolled)s.", number=i, order=order, pot=tb["pot"], now=tb["pot_after"],
                               rolled=rolled))
            else:
                lines.append(_("Tie-break %(number)d (order %(order)s, pot %(pot)d): %(rolled)s.", number=i,
                               order=order, pot=tb["pot"], rolled=rolled))
        lines.append(ngettext("%(player)s takes the pot: %(num)d point.", "%(player)s takes the pot: %(num)d points.",
                              rnd["pot"], player=rnd["taker"]))
        return lines
    if game == "mia":
        order = options.get("order", "standard")
        claim, cup = mia_words(rnd["announced"], order), mia_words(rnd["cup"], order)
        lied = rnd["loser"] == rnd["owner"]
        if rnd.get("rolloff"):
            lines = [_("Roll-off: %(owner)s claimed %(claim)s; %(challenger)s challenged; the cup showed %(cup)s.",
                       owner=rnd["owner"], claim=claim, challenger=rnd["challenger"], cup=cup)]
        else:
            lines = [_("%(owner)s claimed %(claim)s; %(challenger)s challenged; the cup showed %(cup)s.",
                       owner=rnd["owner"], claim=claim, challenger=rnd["challenger"], cup=cup)]
        lost = rnd.get("lives_lost", 0)
        if rnd.get("rolloff"):  # lives no longer change: the round itself is won (Mia 7)
            lines.append(_("The claim was too high: %(player)s wins this roll-off round.", player=rnd["winner"])
                         if lied else _("The claim held: %(player)s wins this roll-off round.", player=rnd["winner"]))
            return lines  # no reversal follows a roll-off round: the engine offers none there
        if after is not None:
            if lied:
                text = ngettext("The claim was too high: %(player)s loses %(num)d life (%(left)d left).",
                                "The claim was too high: %(player)s loses %(num)d lives (%(left)d left).", lost,
                                player=rnd["loser"], left=after[rnd["loser"]])
            else:
                text = ngettext("The claim held: %(player)s loses %(num)d life (%(left)d left).",
                                "The claim held: %(player)s loses %(num)d lives (%(left)d left).", lost,
                                player=rnd["loser"], left=after[rnd["loser"]])
        elif lied:
            text = ngettext("The claim was too high: %(player)s loses %(num)d life.",
                            "The claim was too high: %(player)s loses %(num)d lives.", lost, player=rnd["loser"])
        else:
            text = ngettext("The claim held: %(player)s loses %(num)d life.",
                            "The claim held: %(player)s loses %(num)d lives.", lost, player=rnd["loser"])
        lines.append(text)
        if rnd.get("lives_gained"):
            lines.append(ngettext("%(player)s wins the challenge and gains %(num)d life.",
                                  "%(player)s wins the challenge and gains %(num)d lives.", rnd["lives_gained"],
                                  player=rnd["winner"]))
        if "bonus" in rnd:  # bonus-points scoring: they decide between equal lives (Mia 7)
            lines.append(_("%(player)s gets a bonus point.", player=rnd["winner"]))
        return lines + _reversal(rnd)
    # Mice and Men
    run_penalty = options.get("run_penalty", 3)
    bids = []
    for a in rnd.get("bidding", []):
        if a["action"] == "open":
            bids.append(_("%(player)s opens at %(penalty)d", player=a["player"], penalty=a["penalty"]))
        elif a["action"] == "lead":
            bids.append(_("%(player)s leads to %(penalty)d", player=a["player"], penalty=a["penalty"]))
        elif a["action"] == "join":
            bids.append(_("%(player)s joins", player=a["player"]))
        elif "score" in a:
            bids.append(_("%(player)s runs with the mice (+%(penalty)d, showing %(score)s)", player=a["player"],
                          penalty=run_penalty, score=a["score"]))
        else:
            bids.append(_("%(player)s runs with the mice (+%(penalty)d)", player=a["player"], penalty=run_penalty))
    lines = [_("Bidding: %(bids)s.", bids="; ".join(bids)) if bids else _("%(player)s opens.", player=rnd["first"])]
    if rnd.get("survivor"):
        lines.append(_("Everyone else ran: %(player)s is left alone and takes nothing.", player=rnd["survivor"]))
        return lines
    reveals = rnd.get("reveals", [])
    if reveals:
        scores = ", ".join(f"{isolated(r['player'])} {r['score']}" for r in reveals)
        lines.append(_("Showdown: %(scores)s.", scores=scores))
    takers = rnd.get("takers", [])
    if takers:
        lines.append(ngettext("Lowest: %(names)s, taking %(num)d penalty point each.",
                              "Lowest: %(names)s, taking %(num)d penalty points each.", rnd["penalty"],
                              names=join_names(takers)) if len(takers) > 1 else
                     ngettext("Lowest: %(player)s takes %(num)d penalty point.",
                              "Lowest: %(player)s takes %(num)d penalty points.", rnd["penalty"], player=takers[0]))
    elif reveals:
        lines.append(_("Tied for the lowest: nobody takes the penalty."))
    return lines


@dataclass
class GameSummary:
    """Everything the summary page shows, from one replay.

    ``standings`` (see :func:`standings`), ``log``: ``[{"number", "lines": [str],
    "after": {name: score}}]``, ``highlights``: ``[{"title", "text"}]``,
    ``series``: ``{name: [score per round, round 0 first]}``.
    """

    game: Game
    players: list[str]
    options: dict
    summary: dict
    standings: list[dict] = field(default_factory=list)
    log: list[dict] = field(default_factory=list)
    highlights: list[dict] = field(default_factory=list)
    series: dict[str, list[int]] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return bool(self.summary["finished"])

    @property
    def start_line(self) -> str | None:
        """How the first starter was found, in words, or None (Mice and Men's first seat)."""
        start = self.summary.get("start") or {}
        passes = start.get("rolloff") or []
        if not passes:
            return _("%(player)s was named to start.", player=start["starter"]) if start.get("starter") else None
        rolls = _("; then ").join(", ".join(f"{isolated(r['player'])} {r['die']}" for r in dice) for dice in passes)
        if start.get("starter"):
            return _("Roll-off for who starts: %(rolls)s. %(player)s starts.", rolls=rolls,
                     player=isolated(start["starter"]))
        return _("Roll-off for who starts, not decided yet: %(rolls)s.", rolls=rolls)

    @property
    def rolloff_line(self) -> str | None:
        """Mia's roll-off for a tie (docs/rules.md §Mia 7), in words: who was level, and who won
        it in which pair or that it is under way; None when the game had none. The standings
        alone said "Most lives win, then bonus points" of two players equal on both (a playtest)."""
        from ..rules.mia import rolloff_of

        found = rolloff_of(self.summary["rounds"], self.players) if self.game.game == "mia" else None
        if found is None:
            return None
        two, pair, decided = found
        if decided:
            return _("%(first)s and %(second)s were level on lives and bonus points and played a roll-off: "
                     "%(player)s won both rounds of pair %(pair)d.", first=two[0], second=two[1],
                     player=self.winners[0], pair=pair)
        return _("%(first)s and %(second)s are level on lives and bonus points: a roll-off is under way, pair "
                 "%(pair)d.", first=two[0], second=two[1], pair=pair)

    @property
    def winners(self) -> list[str]:
        return list(self.summary["winners"])

    @property
    def shared(self) -> bool:
        return len(self.summary["winners"]) > 1


def game_summary(game: Game, summary: dict) -> GameSummary:
    """Build the summary page's content from a game row and its ONE replay summary."""
    players, options = json.loads(game.players), json.loads(game.options)
    series = score_series(game.game, players, options, summary)
    log = []
    for i, rnd in enumerate(summary["rounds"], start=1):
        after = {p: series[p][i] for p in players}
        log.append({"number": rnd["number"], "lines": round_lines(game.game, rnd, options, after),
                    "after": after})
    return GameSummary(game, players, options, summary, standings(game.game, players, summary), log,
                       highlights(game.game, players, summary), series)


# --- the chart -----------------------------------------------------------------------


CHART_COLORS = ("#1565c0", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#4e342e",
                "#283593", "#9e9d24", "#37474f", "#d84315")


def chart_height(players: int) -> int:
    """The chart's height in px at 420 px wide (the legend is the page's, below the chart:
    pygal reserves too little room for a legend of more than one row)."""
    return 340


#: Each line's dashes (SVG ``stroke-dasharray``, px at a 3 px line), in seat order: lines that lie on
#: top of each other (equal scores) still show each player's colour between the other's dashes.
CHART_DASHES = ("", "12,6", "4,6", "16,5,4,5", "8,4", "2,5", "20,6", "10,4,2,4,2,4", "6,8", "14,3",
                "3,3", "24,4,6,4")


def chart_legend(players: list[str]) -> list[tuple[str, str, str]]:
    """``[(name, colour, dashes)]`` of the chart's lines, in seat order (as pygal draws them)."""
    return [(p, CHART_COLORS[i % len(CHART_COLORS)], CHART_DASHES[i % len(CHART_DASHES)])
            for i, p in enumerate(players)]


def chart_data_uri(svg: bytes) -> str:
    """The chart as a ``data:`` address, so the summary page carries it (kept for offline use)."""
    import base64

    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def score_words(game: str) -> dict[str, str]:
    """How a game's score is named, in the request's language: ``column`` ("Points", "Lives",
    "Penalty points"), ``after`` (the chart's title: "Points after every round"), ``axis`` (its
    vertical axis: "Points (fewest win)"), ``round`` (its horizontal axis), ``alt`` (the chart's
    text for screen readers) and ``rule`` (who wins: "Fewest points win.")."""
    common = {"round": _("Round")}
    if game == "mia":
        return {**common, "column": _("Lives"), "after": _("Lives after every round"), "axis": _("Lives"),
                "rule": _("Most lives win."),
                "alt": _("Line chart of each player's lives after every round; the round-by-round list below "
                         "has the same numbers.")}
    if game == "mitchi":
        return {**common, "column": _("Points"), "after": _("Points after every round"),
                "axis": _("Points (fewest win)"), "rule": _("Fewest points win."),
                "alt": _("Line chart of each player's points after every round; the round-by-round list below "
                         "has the same numbers.")}
    return {**common, "column": _("Penalty points"), "after": _("Penalty points after every round"),
            "axis": _("Penalty points (fewest win)"), "rule": _("Fewest penalty points win."),
            "alt": _("Line chart of each player's penalty points after every round; the round-by-round list "
                     "below has the same numbers.")}


#: How the chart is drawn, as a number: one more whenever chart_svg draws a game's chart another
#: way, so that browsers holding the old image fetch the new one (the chart's ETag carries it).
CHART_DRAWING = 2


def nice_step(at_least: int) -> int:
    """The smallest step of 1, 2 or 5 times a power of ten that is at least ``at_least`` (and at
    least 1): a chart's axis counts 0, 20, 40 and not 0, 19, 38 (a playtest's 148 rounds)."""
    power = 1
    while True:
        for unit in (1, 2, 5):
            if unit * power >= at_least:
                return unit * power
        power *= 10


def chart_svg(game: str, series: dict[str, list[int]], title: str = "") -> bytes:
    """A line chart (pygal, SVG bytes) of each player's score after every round; its title and
    axis titles in the request's language (:func:`score_words`).

    No script: ``js=[]``. Sized for a 412px phone (it scales by its viewBox):
    large labels, legend below, dots only for short games.
    """
    import pygal
    from pygal.style import Style

    rounds = max((len(v) for v in series.values()), default=1) - 1
    style = Style(
        background="white", plot_background="white", foreground="#222", foreground_strong="#111",
        foreground_subtle="#bbb", font_family="system-ui, sans-serif",
        label_font_size=15, major_label_font_size=15, legend_font_size=17, title_font_size=17,
        value_font_size=14, tooltip_font_size=14, stroke_width=3,
        colors=CHART_COLORS,
    )
    words = score_words(game)
    chart = pygal.Line(
        js=[], style=style, width=420, height=chart_height(len(series)), explicit_size=False,
        show_legend=False, show_dots=rounds <= 30, dots_size=3,
        x_title=words["round"], y_title=words["axis"],
        title=title or None, truncate_legend=14, show_minor_x_labels=False, x_label_rotation=0,
        # pygal shortens a label to fit the width of one of all the rounds' labels, major or not:
        # from 17 rounds on every two-digit round number read "…". The major ones (at most nine)
        # have room: never shorten.
        truncate_label=-1,
        margin=8, spacing=8, print_values=False, include_x_axis=True, disable_xml_declaration=False,
        stroke_style={"width": 3},
    )
    chart.x_labels = [str(i) for i in range(rounds + 1)]
    step = nice_step(-(-rounds // 8))
    chart.x_labels_major = [str(i) for i in range(0, rounds + 1, step)]
    # Whole numbers only on the vertical axis (points and lives are never fractions).
    top = max((max(v) for v in series.values() if v), default=1)
    low = min((min(v) for v in series.values() if v), default=0)
    y_step = nice_step(-(-(top - low) // 6))
    chart.y_labels = list(range(min(low, 0), max(top, 1) + y_step, y_step))
    for i, (name, values) in enumerate(series.items()):
        dashes = CHART_DASHES[i % len(CHART_DASHES)]
        chart.add(name, values, stroke_style={"width": 3, **({"dasharray": dashes} if dashes else {})})
    body = chart.render()
    # pygal always embeds its config as an inline <script>, even with js=[]: drop it.
    body = re.sub(rb"<script\b.*?</script>", b"", body, flags=re.S)
    label = escape(title or words["after"])
    return body.replace(b"<title>Pygal</title>", f"<title>{label}</title>".encode(), 1)


# --- CSV ------------------------------------------------------------------------------

CSV_COLUMNS = ("game_id", "game", "played_at", "round", "seat", "player", "action", "detail",
               "change", "score_after")


def csv_rows(game: Game, summary: dict) -> list[dict]:
    """One row per player per finished round: ``{column: value}`` with :data:`CSV_COLUMNS`.

    ``action``: Mitchi ``took pot`` / ``tie-break`` / ``played``; Mia ``cup owner`` /
    ``challenger`` / ``rolled`` (announced, but neither of them) / ``passed`` (passed only) /
    ``watched`` / ``out`` (no lives left before the round); Mice and Men ``ran`` / ``showdown`` / ``survivor``.
    ``detail``: the hand(s); Mia's announcements and passes, then the claim and cup, and
    ``reversed the direction`` for the challenge's winner who did (docs/rules.md §Mia 7); the
    bidding and dice. ``change`` is what the round did to the score (0 is written, never left
    empty).
    """
    players, options = json.loads(game.players), json.loads(game.options)
    series = score_series(game.game, players, options, summary)
    played = game.played_at.astimezone(timezone.utc).isoformat() if game.played_at else ""
    rows = []
    for i, rnd in enumerate(summary["rounds"], start=1):
        changes = round_changes(series, i)
        for seat, p in enumerate(players):
            action, detail = _csv_cells(game.game, rnd, p, options, series[p][i - 1])
            rows.append({"game_id": game.id, "game": game.game, "played_at": played, "round": rnd["number"],
                         "seat": seat + 1, "player": p, "action": action, "detail": detail,
                         "change": changes.get(p, 0), "score_after": series[p][i]})
    return rows


def _csv_cells(game: str, rnd: dict, p: str, options: dict, before: int) -> tuple[str, str]:
    """The ``action`` and ``detail`` cells of seat ``p`` in finished round ``rnd`` (an engine's
    round dict), ``before``: the seat's score before the round (:func:`csv_rows`)."""
    if game == "mitchi":
        hands = [f"{hand_name(t['hand'])} in {t['rolls']}" for t in rnd.get("turns", []) if t["player"] == p]
        tbs = [hand_name(h["hand"]) for tb in rnd.get("tie_breaks", []) for h in tb["hands"] if h["player"] == p]
        detail = "; ".join(hands + [f"tie-break {h}" for h in tbs])
        action = "took pot" if rnd["taker"] == p else ("tie-break" if tbs else "played")
        return action, detail
    if game == "mia":
        order = options.get("order", "standard")
        said = [(f"announced {value_label(t['value'], order)}" if t["type"] == "announce" else
                 f"passed {value_label(t['value'], order)}" if t["value"] is not None else "passed")
                for t in rnd.get("trail", []) if t["player"] == p]
        reversed_ = ["reversed the direction"] if rnd.get("reversed_by") == p else []
        if p == rnd["owner"]:
            said.append(f"claimed {value_label(rnd['announced'], order)}, cup {value_label(rnd['cup'], order)}")
            return "cup owner", "; ".join(said + reversed_)
        if p == rnd["challenger"]:
            said.append(f"challenged {value_label(rnd['announced'], order)}, cup {value_label(rnd['cup'], order)}")
            return "challenger", "; ".join(said + reversed_)
        if said:
            return ("rolled" if any(t.startswith("announced") for t in said) else "passed"), "; ".join(said)
        return ("out" if before == 0 else "watched"), ""
    moves = [a["action"] + (f" {a['penalty']}" if a["action"] in ("open", "lead") else "")
             for a in rnd.get("bidding", []) if a["player"] == p]
    shown = [str(r["score"]) for r in rnd.get("reveals", []) if r["player"] == p]
    if p in rnd.get("runners", []):
        action = "ran"
    elif rnd.get("survivor") == p:
        action = "survivor"
    else:
        action = "showdown"
    return action, "; ".join(moves + [f"showed {s}" for s in shown])


#: A text cell starting with one of these is read as a formula by spreadsheet programs.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


def csv_cell(value):
    """A cell made safe for spreadsheets: text starting with ``= + - @``, a tab or a carriage
    return gets a leading ``'`` (shown as text, never run as a formula). Numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_csv(rows: list[dict]) -> str:
    """CSV text: a UTF-8 byte order mark (so spreadsheet programs read "Jörg" right), the header
    line, then the rows, every text cell passed through :func:`csv_cell`; CRLF line ends."""
    buf = io.StringIO()
    buf.write(BOM)
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)
    return buf.getvalue()


# --- records: export and import ------------------------------------------------------


def export_record(session: Session, loaded: service.Loaded) -> dict:
    """The game record (docs/game-record.md) plus ``played_at`` (ISO 8601, UTC) and ``history``;
    a practice game's without the dice under its cups (:func:`practice.as_the_table_saw_it`)."""
    record = service.to_record(session, loaded)
    if loaded.game.practice:
        record = practice.as_the_table_saw_it(record)
    record["played_at"] = loaded.game.played_at.astimezone(timezone.utc).isoformat()
    return record


class ImportProblem(ValueError):
    """A file or record that cannot be loaded; nothing was stored. ``str()`` names the file."""


@dataclass
class Incoming:
    """A checked record ready to store: where it came from, the record, its played_at."""

    source: str
    record: dict
    played_at: datetime | None
    history: list[dict]
    new_game: service.NewGame

    @property
    def content_hash(self) -> str:
        return self.new_game.content_hash


MAX_IMPORT = 2000

#: The times a record may carry (``played_at``, a history item's ``at``): years 1970 to 2100.
#: Anything outside is a typo or an attack, and could not be shown in every time zone.
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2101, 1, 1, tzinfo=timezone.utc)
_HISTORY_INT_KEYS = ("die", "rolls", "value", "penalty", "announced")
_HISTORY_DICE_KEYS = ("hand", "cup", "dice")


class ImportBusy(ImportProblem):
    """Another load for the same account is being stored right now; try again."""


#: Limits on an uploaded zip, so a small file cannot unpack into gigabytes.
ZIP_MAX_BYTES = 64 * 1024 * 1024  # an export of 2,000 full-length games, with their history
ZIP_MAX_FILES = 2000


def _read_zip(name: str, data: bytes) -> list[tuple[str, object]]:
    """The records in an export zip (its ``games.json``, else every ``*.json``)."""
    try:
        return _read_zip_members(name, data)
    except ImportProblem:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, NotImplementedError, EOFError,
            OSError, UnicodeDecodeError, ValueError, zlib.error, lzma.LZMAError) as err:
        # RuntimeError: an encrypted member; NotImplementedError: an unknown compression;
        # zlib/lzma errors and a bad CRC: corrupt data; UnicodeDecodeError: a member name
        # marked UTF-8 that is not.
        raise ImportProblem(_("%(file)s: a zip member cannot be read (%(reason)s); load the export zip as it was "
                              "downloaded, or the .json records in it", file=name, reason=_zip_reason(err))) from None


def _zip_reason(err: Exception) -> str:
    if isinstance(err, RuntimeError) and "encrypt" in str(err).lower():
        return _("it is encrypted with a password")
    if isinstance(err, UnicodeDecodeError):
        return _("a file name in it is not valid UTF-8")
    if isinstance(err, NotImplementedError):
        return _("it uses a compression this app does not read")
    return _("the file is damaged")


def _read_zip_members(name: str, data: bytes) -> list[tuple[str, object]]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            if len(infos) > ZIP_MAX_FILES or sum(i.file_size for i in infos) > ZIP_MAX_BYTES:
                raise ImportProblem(_("%(file)s: the zip unpacks to more than %(mb)d MB or %(files)s files; load it "
                                      "in parts", file=name, mb=ZIP_MAX_BYTES // 2**20,
                                      files=format_decimal(ZIP_MAX_FILES, locale=request_language())))
            names = [i.filename for i in infos]
            if "games.json" in names:
                return read_upload(f"{name}: games.json", z.read("games.json"), inside_zip=True)
            out = []
            for inner in sorted(n for n in names if n.endswith(".json")):
                out += read_upload(f"{name}: {inner}", z.read(inner), inside_zip=True)
    except zipfile.BadZipFile:
        raise ImportProblem(_("%(file)s: not a readable zip file", file=name)) from None
    if not out:
        raise ImportProblem(_("%(file)s: the zip holds no game record (.json)", file=name))
    return out


def read_upload(filename: str, data: bytes, inside_zip: bool = False) -> list[tuple[str, object]]:
    """The records in one uploaded file: ``[(label, record)]``.

    A file holds one record (a JSON object), a list of records, or is a zip
    made by the export (its ``games.json``, else every ``*.json`` in it).
    Raises :class:`ImportProblem`.
    """
    name = filename or _("the file")
    if data[:4] == b"PK\x03\x04":
        if not inside_zip:
            return _read_zip(name, data)
        raise ImportProblem(_("%(file)s: a zip inside a zip is not read; unpack it first", file=name))
    try:
        doc = records.loads(data)
    except records.ReplayError as err:
        if name.lower().endswith(".csv"):  # a game's CSV, or the export's rounds.csv: not read back
            raise ImportProblem(_("%(file)s: a CSV file is not loaded; load the game records (.json) or the "
                                  "export zip", file=name)) from None
        start = data.removeprefix(b"\xef\xbb\xbf").lstrip()[:1]
        if not start:  # it said "not valid JSON (line 1, column 1)" (a playtest)
            raise ImportProblem(_("%(file)s: the file is empty (no game record in it)", file=name)) from None
        if start not in b"{[":  # no JSON at all (a picture, a text file named .zip): what it is not
            raise ImportProblem(_("%(file)s: this is neither a game record (.json) nor an export zip of this app; "
                                  "load the game records or the zip that Export made", file=name)) from None
        # "record: not valid JSON …", as the replay says it (docs/game-record.md §Refusals)
        raise ImportProblem(f"{name}: {translated(err, sentence=False)}") from None
    if isinstance(doc, list):
        if not doc:
            raise ImportProblem(_("%(file)s: the list holds no game record", file=name))
        return [(_("%(file)s, record %(number)d", file=name, number=i), r) for i, r in enumerate(doc, start=1)]
    return [(name, doc)]


def _check_values(label: str, record) -> None:
    """Every value of a record, however deep: no text with a NUL character (no database
    column may hold one), no number beyond :data:`RECORD_INT_MAX` either way. Raise
    :class:`ImportProblem`."""
    todo = [record]
    while todo:
        value = todo.pop()
        if isinstance(value, dict):
            todo.extend(value.keys())
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)
        elif isinstance(value, str):
            if "\x00" in value:
                # the NUL shown as ␀ (U+2400), where it is: dropped, the text would look as good as any
                raise ImportProblem(_("%(file)s: record: the text %(text)s holds a NUL character (shown as ␀), "
                                      "which no text here may hold", file=label,
                                      text=repr(value[:30].replace(chr(0), "\u2400"))))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > RECORD_INT_MAX:
            text = str(value)  # shortened with "…" only when it is long
            raise ImportProblem(_("%(file)s: record: the number %(number)s is out of range; every number in a "
                                  "record is between -%(top)s and %(top)s", file=label,
                                  number=text if len(text) <= 12 else text[:12] + "…",
                                  top=format_decimal(RECORD_INT_MAX, locale=request_language())))


def parse_time(label: str, what: str, text) -> datetime:
    """``text`` (ISO 8601; no zone means UTC) as an aware time in years 1970..2100; raise
    :class:`ImportProblem` naming ``what`` and the valid range."""
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise ImportProblem(_("%(file)s: %(what)s must be an ISO 8601 time such as 2026-11-28T20:15:00+00:00, "
                              "not %(text)s", file=label, what=what, text=repr(str(text)[:40]))) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        ok = EARLIEST <= moment < LATEST
    except (OverflowError, ValueError):
        ok = False
    if not ok:
        raise ImportProblem(_("%(file)s: %(what)s %(text)s is out of range; a time must be in the years 1970 "
                              "to 2100", file=label, what=what, text=repr(str(text)[:40])))
    return moment


def _check_history(label: str, history, players: tuple[str, ...], log_length: int) -> list[dict]:
    """The record's ``history`` checked item by item: ``{"seq", "status", "entry"[, "at", "undone_at"]}``
    with ``seq`` a position the log can have had (1 .. entries + history items), ``status``
    ``undone``, ``redone`` or ``replaced``, ``entry`` an entry object (a ``type``, a seated ``player``,
    whole numbers and dice faces 1..6 where it has them), ``at`` and ``undone_at`` ISO times in
    1970..2100 (``undone_by``, a name, is not kept: accounts are not carried over).
    Raise :class:`ImportProblem` naming the item."""
    if history is None:
        return []
    if not isinstance(history, list):
        raise ImportProblem(_("%(file)s: history must be a list of {seq, status, entry, at} objects", file=label))
    top = log_length + len(history)
    for i, h in enumerate(history, start=1):
        where = _("%(file)s: history item %(number)d", file=label, number=i)
        if not isinstance(h, dict):
            raise ImportProblem(_("%(item)s must be an object {seq, status, entry, at}", item=where))
        seq = h.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq <= max(top, 1):
            raise ImportProblem(_("%(item)s: seq must be a whole number from 1 to %(top)d (a position in the log), "
                                  "not %(value)s", item=where, top=top, value=repr(str(seq)[:20])))
        if "status" not in h:
            raise ImportProblem(_("%(item)s: status is missing; it must be undone, redone or replaced", item=where))
        if h["status"] not in ("undone", "redone", "replaced"):
            raise ImportProblem(_("%(item)s: status must be undone, redone or replaced, not %(value)s", item=where,
                                  value=repr(str(h["status"])[:20])))
        entry = h.get("entry")
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str) or not entry["type"]:
            raise ImportProblem(_("%(item)s: entry must be an entry object with a type", item=where))
        for key in ("player", "owner"):
            if key in entry and entry[key] not in players:
                raise ImportProblem(_("%(item)s: %(key)s %(value)s is not a player of this game", item=where, key=key,
                                      value=repr(str(entry[key])[:40])))
        for key in _HISTORY_INT_KEYS:
            if key in entry and (not isinstance(entry[key], int) or isinstance(entry[key], bool)):
                raise ImportProblem(_("%(item)s: %(key)s must be a whole number, not %(value)s", item=where, key=key,
                                      value=repr(str(entry[key])[:20])))
        for key in _HISTORY_DICE_KEYS:
            if key in entry and (not isinstance(entry[key], list) or not 1 <= len(entry[key]) <= 5 or not all(
                    isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in entry[key])):
                raise ImportProblem(_("%(item)s: %(key)s must be a list of dice faces from 1 to 6", item=where,
                                      key=key))
        if h.get("at") is not None:
            parse_time(label, _("history item %(number)d's time", number=i), h["at"])
        if h.get("undone_at") is not None:
            parse_time(label, _("history item %(number)d's time of its undo", number=i), h["undone_at"])
    return history


def check_incoming(label: str, record) -> Incoming:
    """Replay one record completely and check its extras; raise :class:`ImportProblem`
    ("<label>: entry 7: ..." or "<label>: record: ...").

    Beyond the rules: no NUL in any text, every number within +-:data:`RECORD_INT_MAX`,
    ``played_at`` in the years 1970..2100, ``history`` items as :func:`_check_history` says.
    """
    _check_values(label, record)
    try:
        header = records.load_header(record)
        state = records.build(record)
    except records.ReplayError as err:
        raise ImportProblem(f"{label}: {translated(err, sentence=False)}") from None
    played = record.get("played_at")
    # a key of the record itself: named as the replay names the record's own problems ("record: …")
    played_at = parse_time(label, _("record: played_at"), played) if played is not None else None
    entries = service.plain_entries(record.get("entries", []))
    history = _check_history(label, record.get("history"), header.players, len(entries))
    others = [(h["seq"], h["status"], service.plain_entries([h["entry"]])[0],
               parse_time(label, "history time", h["at"]) if h.get("at") is not None else None,
               parse_time(label, "history time", h["undone_at"])
               if h.get("undone_at") is not None and h["status"] != "replaced" else None)
              for h in history]
    new_game = service.NewGame(header.spec.name, list(header.players), header.options, entries, state,
                               played_at, others)
    return Incoming(label, record, played_at, history, new_game)


def already_stored(session: Session, group_id: int, hashes: list[str]) -> tuple[dict, dict]:
    """When the group's games with the content ``hashes`` (:func:`services.games.content_hash`)
    were played: ``(listed, removed)``, each ``{hash: [(played_at (see :func:`same_moment`),
    timeless), ...]}``, of games in the lists, and of removed games that can still be restored
    (:data:`services.games.RESTORE_DAYS`). A game removed before that is no longer here for
    anyone: its record is loaded again. One indexed query per 500 hashes, whatever the number
    of games (first the hashes left empty by entries since the last import are filled:
    :func:`services.games.fill_hashes`)."""
    service.fill_hashes(session, group_id)
    since = utcnow() - timedelta(days=service.RESTORE_DAYS)
    listed: dict[str, list] = {}
    removed: dict[str, list] = {}
    unique = sorted(set(hashes))
    for start in range(0, len(unique), 500):
        for found, played, created, started_by, kept, restorable in session.execute(
                select(Game.content_hash, Game.played_at, Game.created_at, Game.started_by,
                       Game.removed_at.is_(None), Game.removed_at >= since).where(
                    Game.group_id == group_id, Game.content_hash.in_(unique[start:start + 500]))):
            # Loaded from a record that said no time: it was given the moment of its load, which
            # is its created_at to the microsecond (services.games.insert_games); a game set up
            # here names who set it up, and a record's own time is not the moment it was loaded.
            timeless = started_by is None and played == created
            if kept:
                listed.setdefault(found, []).append((same_moment(played), timeless))
            elif restorable:
                removed.setdefault(found, []).append((same_moment(played), timeless))
    return listed, removed


def same_moment(moment: datetime | None) -> datetime | None:
    """``moment`` as two records of one game carry it (aware UTC, whole seconds; naive is taken
    as UTC), or None."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).replace(microsecond=0)


class _Here:
    """The games of one content a group has (in the lists, or removed and restorable), and
    which of a load's records are among them.

    A record is one of them when it says no time, or the time of one of them, or, saying
    another time, while one of them was loaded from a record without a time (it got the moment
    of its load) and has a time no record of the load says; else it is another game with the
    same rolls (a short game and its rematch, played alike, loaded together or one after the
    other), to load. ``games``: ``(played_at, timeless)`` of each (:func:`already_stored`);
    ``said``: the times the load's records of this content say. The load's own new games are
    added (:meth:`add`), a record without a time (None) as any of its content."""

    def __init__(self, games: list[tuple], said: set):
        self.times = {played for played, _ in games}
        self.unclaimed = sum(1 for played, timeless in games if timeless and played not in said)

    def has(self, played: datetime | None) -> bool:
        if not self.times:
            return False
        if played is None or None in self.times or played in self.times:
            return True
        if self.unclaimed:
            self.unclaimed -= 1
            return True
        return False

    def add(self, played: datetime | None) -> None:
        self.times.add(played)


def lock_group(session: Session, group_id: int) -> None:
    """Take the group's row lock until the transaction ends, so two loads for one group are
    stored one after the other: the second sees the first's games as already here
    (PostgreSQL: a row lock; SQLite: the database's write lock, waited for up to its busy
    timeout). Raise :class:`ImportBusy` when the wait runs out."""
    try:
        session.execute(update(Group).where(Group.id == group_id).values(timezone=Group.timezone))
    except OperationalError:
        session.rollback()
        raise ImportBusy(_("another load of game records for this group is being stored right now; nothing was "
                           "loaded: load the file again in a moment")) from None


def link_many(session: Session, group_id: int, seats: list[tuple[int, list[str]]]) -> None:
    """:func:`link_players` for many games at once (``[(game_id, names in seat order)]``): one
    query per 500 names for the known profiles, one flush for the new ones, one insert for
    all the seats. Flushes only. Raises ``IntegrityError`` as :func:`link_players` does."""
    keys = sorted({name_key(n) for _, names in seats for n in names})
    found: dict[str, Player] = {}
    for start in range(0, len(keys), 500):
        for p in session.exec(select(Player).where(Player.group_id == group_id,
                                                   Player.name_key.in_(keys[start:start + 500]))):
            found[p.name_key] = p
    for _, names in seats:
        for name in names:
            key = name_key(name)
            if key not in found:
                found[key] = Player(group_id=group_id, name=clean_name(name), name_key=key)
                session.add(found[key])
    session.flush()
    rows = [{"game_id": game_id, "player_id": found[name_key(n)].id, "seat": seat}
            for game_id, names in seats for seat, n in enumerate(names)]
    if rows:
        session.execute(insert(GamePlayer), rows)


@dataclass
class Loaded:
    """A game an import stored: its id and whether it is finished (where to open it)."""

    id: int
    finished: bool


def import_files(session: Session, group_id: int, files: list[tuple[str, bytes]],
                 skipped: list[tuple[str, str]] | None = None, removed: list[str] | None = None,
                 sizes: dict[str, int] | None = None) -> list[Loaded]:
    """Add every record in ``files`` (``[(filename, bytes)]``) as a new game of the group.

    All or nothing: every record is read and replayed before any is stored; the
    first problem raises :class:`ImportProblem` and nothing is stored. Each game
    keeps its ``played_at`` and ``history`` and is linked to player profiles.
    A record the group already has (same game, seats, options and log: the same
    content hash; and if the record says when it was played, as an export's do, played then:
    a rematch with the same rolls is another game), or one given twice, is not stored again:
    ``(its file's name, its label, its :class:`~scorekeeper.services.games.NewGame`)`` is
    appended to ``skipped``, or ``(its label, its NewGame)`` to ``removed`` when it is a removed
    game that can still be restored. ``sizes`` gets how many
    records each file held, by its name.
    Loads for one group are stored one at a time (:func:`lock_group`), so
    simultaneous uploads of one record make one game. Cost: one replay per record, one
    indexed look-up per 500 records, and a few bulk inserts (2,000 records: seconds).
    """
    if not files:
        raise ImportProblem(_("choose one or more game record files (.json, or a zip from the export)"))
    found, file_of = [], []
    for name, data in files:
        records = read_upload(name, data)
        found += records
        file_of += [name] * len(records)
        if sizes is not None:
            sizes[name] = sizes.get(name, 0) + len(records)
    if len(found) > MAX_IMPORT:
        raise ImportProblem(_("%(num)d records at once is too many; load at most %(top)d", num=len(found),
                              top=MAX_IMPORT))
    checked = [check_incoming(label, record) for label, record in found]
    lock_group(session, group_id)
    try:
        listed, restorable = already_stored(session, group_id, [inc.content_hash for inc in checked])
        said: dict[str, set] = {}
        for inc in checked:
            said.setdefault(inc.content_hash, set()).add(same_moment(inc.played_at))
        here = {h: _Here(listed.get(h, []), times) for h, times in said.items()}
        gone = {h: _Here(restorable.get(h, []), times) for h, times in said.items()}
        fresh = []
        for inc, file in zip(checked, file_of):
            played, content = same_moment(inc.played_at), inc.content_hash
            if here[content].has(played):
                if skipped is not None:  # already here, or given twice
                    skipped.append((file, inc.source, inc.new_game))
                continue
            if gone[content].has(played):
                if removed is not None:
                    removed.append((inc.source, inc.new_game))
                continue
            here[content].add(played)  # a second copy in this load is "given twice"
            fresh.append(inc)
        ids = service.insert_games(session, group_id, [inc.new_game for inc in fresh])
        export_rows.insert_many(session, [(gid, inc.new_game.name, inc.new_game.players, inc.new_game.options,
                                           inc.new_game.state.summary()["rounds"]) for gid, inc in zip(ids, fresh)])
        link_many(session, group_id, [(gid, inc.new_game.players) for gid, inc in zip(ids, fresh)])
        session.commit()  # all the games, with their seats, or none
    except IntegrityError:
        session.rollback()
        raise ImportProblem(_("another phone added the same players at the same moment; nothing was loaded, load "
                              "the file again")) from None
    except OperationalError:
        session.rollback()
        raise ImportBusy(_("the database was busy with another change for too long; nothing was loaded: load the "
                           "file again in a moment")) from None
    except Exception:
        session.rollback()
        raise
    return [Loaded(gid, inc.new_game.finished) for gid, inc in zip(ids, fresh)]
