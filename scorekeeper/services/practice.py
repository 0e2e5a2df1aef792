"""Practice games: the person in seat 1 against three virtual players (docs/practice.md).

The rules and the virtual players live in :mod:`scorekeeper.rules` (the players in
:mod:`scorekeeper.rules.players`); this module only stores what they do. Every roll
is decided here, on the server, from :func:`random_source`: seeded by the app's
``PRACTICE_SEED`` (tests) or the game's own secret, drawn from the operating system's
randomness when the game is created. Every finished
turn, tie-break roll, roll-off die and virtual player's choice is an ordinary entry
of the game's log (so replay, undo, corrections and the summary work as for any
game). Only the person's Mitchi turn in progress (the rolls so far, not yet
entered) is kept apart, in ``Game.practice_state``, tied to the game's version.
"""

from __future__ import annotations

import json
import random
import secrets

from flask_babel import gettext as _
from sqlmodel import Session, select

from ..models import Game, GamePlayer, Player
from ..rules import find_game
from ..rules import players as virtual
from ..rules import record as records
from ..rules.base import N_, GameState, IllegalEntry, Phrase
from ..rules.names import name_key
from ..rules.players import mia as mia_players
from ..rules.players import mice_and_men as mm_players
from ..rules.players import mitchi as mitchi_players
from . import games as service
from .games import Loaded, Refused, Stale

#: The games with a practice page.
GAMES = ("mitchi", "mia", "mice-and-men")
VIRTUAL_NAMES = ("Ben", "Cat", "Dan", "Eve")
VIRTUAL_PLAYERS = 3


def seats_for(name: str) -> list[str]:
    """The seats, clockwise: the person first, then three virtual players whose names differ
    from the person's (case-insensitively)."""
    others = [n for n in VIRTUAL_NAMES if n.casefold() != name.casefold()]
    return [name] + others[:VIRTUAL_PLAYERS]


def random_source(seed, log_length: int, step: str) -> random.Random:
    """The dice for one step of a game: a :class:`random.Random` fixed by ``seed`` (the game's
    secret, :func:`dice_seed`), the number of entries in the log and the step (``"v"`` for a
    virtual player's entry, ``"r0"``, ``"r1"``... for the person's rolls). So a step rolls the same
    dice however often it is reached: an Undo of the person's turn, then Roll, brings back the
    same dice, never a fresh roll. Without a seed (a game stored before it had a secret) the
    system's randomness."""
    if seed is None:
        return random.SystemRandom()
    return random.Random(f"{seed}:{log_length}:{step}")


def dice_seed(game: Game, seed=None):
    """What a practice game's dice come from: ``seed`` (``PRACTICE_SEED``, tests) if given, else
    the secret the game was created with (``Game.practice_state``; never shown on a page)."""
    if seed is not None:
        return seed
    return json.loads(game.practice_state or "{}").get("secret")


def _state(game: Game, **pending) -> str:
    """``Game.practice_state``: the game's secret, and what the person has rolled and not yet
    entered (``pending``: ``version`` with ``rolls``/``kept`` or ``cup``), if anything."""
    return json.dumps({"secret": dice_seed(game), **pending})


def person(game: Game) -> str:
    """The person's seat name (seat 1)."""
    return json.loads(game.players)[0]


def _action(action: str | None) -> str:
    """A posted action as a refusal names it: its first 20 characters, or "nothing"."""
    return action[:20] if action else Phrase(N_("nothing"))


def _or_each(items: list) -> str:
    """'a or b or c' (each choice joined by "or"), as a phrase to translate."""
    return items[0] if len(items) == 1 else Phrase(N_("{first} or {last}"), first=items[0], last=_or_each(items[1:]))


def create(session: Session, group_id: int, name: str, player: str, options: dict, seed,
           entered_by: int | None = None) -> Game:
    """A new practice game of ``name`` for ``player``, its first starter rolled for (one die
    each, RULES.md Mitchi 2). The person's seat is linked to their profile when the group has
    one (none is made); the virtual players get none. Flushes; the caller commits (a view through
    :func:`scorekeeper.services.once.create_once`, so that a double tap on Start makes one game).
    Raises :class:`records.ReplayError` for bad names or options.
    """
    spec = find_game(name)
    secret = str(seed) if seed is not None else secrets.token_hex(16)  # every roll of the game comes from it
    if spec.name not in GAMES:
        raise Refused(N_("practice games are for {games}, not {name}"), games=", ".join(GAMES), name=name)
    seats = seats_for(player)
    header = records.load_header(records.make_record(spec.name, seats, options, []))
    state = records.new_state(header)
    module = virtual.table(spec.name)
    entries: list[dict] = []
    if spec.name in ("mitchi", "mia"):  # the roll-off for who starts (Mice and Men: seat 1 opens)
        while state.opening.starter is None:
            entry = module.next_entry(state, random_source(secret, len(entries), "v"), *extra(spec.name))
            state.apply(entry)
            entries.append(entry)
    game = service.create_game(session, group_id, spec.name, seats, options, entries,
                               entered_by=entered_by)
    game.practice = True
    game.practice_state = json.dumps({"secret": secret})
    session.add(game)
    # The person's seat is linked to their profile if they have one (a rename follows it); a
    # practice game makes none: someone who has only practised is no player of the group's lists.
    profile = session.exec(select(Player).where(Player.group_id == group_id,
                                                Player.name_key == name_key(seats[0]))).first()
    if profile is not None:
        session.add(GamePlayer(game_id=game.id, player_id=profile.id, seat=0))
    session.flush()
    return game


def plays(game: Game, user_id: int) -> bool:
    """Whether the account ``user_id`` plays the practice game ``game``: the account that set it
    up, alone; any member for one set up before that was kept and not told by its log
    (migration 0022)."""
    return game.started_by is None or game.started_by == user_id


def under_way(session: Session, group_id: int, user_id: int, name: str) -> Game | None:
    """The account's latest practice game of ``name`` (code name) in the group that is not over
    and not removed, None if there is none: its set-up page offers to go on with it."""
    return session.exec(
        select(Game).where(Game.group_id == group_id, Game.game == name, Game.practice.is_(True),
                           Game.started_by == user_id, Game.finished.is_(False), Game.removed_at.is_(None))
        .order_by(Game.played_at.desc(), Game.id.desc())).first()


def extra(name: str) -> tuple:
    """Hidden state a game's virtual players need before the game starts."""
    if name == "mia":
        return (mia_players.Hidden(),)
    return ()


def pending_turn(loaded: Loaded) -> mitchi_players.Turn | None:
    """The person's Mitchi turn in progress (rolls not yet entered), or None when it is not
    their turn. Rolls kept for another version of the game (before an undo) are dropped."""
    state = loaded.state
    nxt = state.expected()
    if loaded.game.game != "mitchi" or not nxt or nxt.get("type") != "turn" \
            or nxt.get("player") != person(loaded.game):
        return None
    turn = mitchi_players.Turn.start(state)
    saved = json.loads(loaded.game.practice_state or "null")
    if saved and saved.get("version") == loaded.game.version:
        turn.rolls = [list(r) for r in saved["rolls"]]
        turn.kept = list(saved.get("kept") or [None] * len(turn.rolls))
    return turn


def _save(session: Session, game: Game, turn: mitchi_players.Turn | None) -> None:
    game.practice_state = _state(game, version=game.version, rolls=turn.rolls, kept=turn.kept) if turn \
        else _state(game)
    session.add(game)
    session.commit()


def roll(session: Session, game: Game, action: str, keep: int | None, version: int | None,
         step: int | None, seed) -> Loaded:
    """The person's move on their Mitchi turn or tie-break roll, the dice decided here.

    ``action``: ``roll`` (both dice: the first roll of a turn, or the one tie-break roll),
    ``keep`` (keep die ``keep``, re-roll the other), ``both`` (re-roll both) or ``stop``
    (enter the hand). ``version`` and ``step`` (rolls made so far) are what the page showed.
    Raises :class:`Stale` (an old page or a double tap: nothing done) or :class:`Refused`
    (not the person's turn, no rolls left, a die not in the hand: the message says which).
    """
    seed = dice_seed(game, seed)
    loaded = service.load(session, game)
    if version != game.version:
        raise Stale()
    state = loaded.state
    nxt = state.expected()
    me = person(game)
    if nxt is None:
        raise Refused(N_("the game is over; start another practice game"))
    if nxt.get("player") != me:
        raise Refused(N_("it is {player}'s turn, not yours: tap Next to see it"), player=nxt.get("player"))
    if nxt["type"] == "tiebreak":
        if action != "roll":
            raise Refused(N_("a tie-break is one roll of both dice: tap Roll"))
        dice = virtual.roll(random_source(seed, len(loaded.log), "r0"), 2)
        return service.add_entry(session, game, {"type": "tiebreak", "player": me, "hand": dice}, version)
    turn = pending_turn(loaded)
    if turn is None:  # pragma: no cover - a Mitchi practice game only expects turns and tie-breaks here
        raise Refused(N_("there is no turn to roll for now"))
    if step != len(turn.rolls):
        # "already recorded" only for the same move again (a double tap); another tab's different
        # move at that step was not made: the game moved on without it
        raise Stale(repeated=step is not None and 0 <= step < len(turn.rolls) and _made_at(turn, step) == (
            action, keep if action == "keep" else None))
    if action not in turn.choices():
        words = {"roll": N_("roll"), "keep": N_("keep one die"), "both": N_("re-roll both"), "stop": N_("stop")}
        valid = _or_each([Phrase(words[c]) for c in turn.choices()])
        raise Refused(N_("{action} is not a move now; you may {valid}"), action=_action(action), valid=valid)
    if action == "stop":
        entry = turn.entry()
        loaded = service.add_entry(session, game, entry, version)
        _save(session, game, None)
        return loaded
    rng = random_source(seed, len(loaded.log), f"r{len(turn.rolls)}")
    try:
        turn.roll(rng, keep if action == "keep" else None)
    except IllegalEntry as err:
        raise Refused(err.message) from None
    _save(session, game, turn)
    return loaded


def _made_at(turn: mitchi_players.Turn, step: int) -> tuple[str, int | None]:
    """The move that made the turn's roll number ``step`` (0-based): ``("roll", None)`` for the
    first, ``("both", None)`` or ``("keep", face)`` for a re-roll."""
    if step == 0:
        return "roll", None
    return ("both", None) if turn.kept[step] is None else ("keep", turn.kept[step])


def advance(session: Session, game: Game, version: int | None, seed) -> Loaded:
    """The next virtual player's entry (a whole Mitchi turn, or one tie-break roll), decided
    by :mod:`scorekeeper.rules.players` and recorded like any entry. Raises :class:`Stale`
    or :class:`Refused` (the game is over, or it is the person's move)."""
    seed = dice_seed(game, seed)
    if version != game.version:  # before "it is your move": a Next whose answer was lost, sent again
        raise Stale()
    loaded = service.load(session, game)
    nxt: dict | None = loaded.state.expected()
    if nxt is None:
        raise Refused(N_("the game is over; start another practice game"))
    rng = random_source(seed, len(loaded.log), "v")
    state = loaded.state
    if game.game == "mice-and-men" and state.phase == "showdown":
        # everyone still in shows the dice rolled at the round's start, in one tap
        number = state.round_number
        for player in state.to_reveal:
            entry = {"type": "reveal", "player": player, "dice": mm_dice(game, number, player)}
            loaded = service.add_entry(session, game, entry, version)
            version = game.version
        return loaded
    if nxt.get("player") == person(game):
        raise Refused(N_("it is your move"))
    undone = service.redo_candidate(session, game, len(loaded.log))
    if undone is not None and json.loads(undone.data).get("player") == nxt.get("player"):
        # An undone virtual move comes back exactly as it was: Undo cannot re-roll the others.
        return after(session, service.redo(session, game, version), seed)
    if game.game == "mia":
        entry = mia_players.next_entry(state, rng, mia_players.Hidden(cup_of(loaded.log)), reverse=False)
    elif game.game == "mice-and-men":
        entry = mm_players.next_entry(state, rng, mm_hidden(game, state))
    else:
        entry = mitchi_players.next_entry(state, rng)
    loaded = service.add_entry(session, game, entry, version)
    return after(session, loaded, seed)


def after(session: Session, loaded: Loaded, seed) -> Loaded:
    """After an entry: a virtual player who won a challenge of an announced Mia decides at once
    whether to reverse the direction (option ``mia_reverses``; docs/practice.md)."""
    state, seed = loaded.state, dice_seed(loaded.game, seed)
    if loaded.game.game != "mia" or state.may_reverse in (None, person(loaded.game)):
        return loaded
    if random_source(seed, len(loaded.log), "reverse").random() < mia_players.REVERSE_CHANCE:
        return service.add_entry(session, loaded.game, {"type": "reverse", "player": state.may_reverse},
                                 loaded.game.version)
    return loaded


# --- Mia ---------------------------------------------------------------------------


def cup_of(log: list[dict]) -> tuple[int, int] | None:
    """The dice under the cup: those of the last roll (an ``announce`` carrying ``dice``)."""
    for entry in reversed(log):
        if entry.get("type") == "announce" and entry.get("dice"):
            return tuple(sorted(entry["dice"], reverse=True))
    return None


def as_the_table_saw_it(record: dict) -> dict:
    """A practice game's record (docs/game-record.md) without what nobody at a table sees: the
    dice under a Mia cup, kept with each ``announce`` (``dice``, an extra key) to lift the cup
    when it is challenged, the virtual players' too (a record downloaded mid-round told whether
    they bluffed). The lifted cup is in the ``challenge`` entry. Changes ``record`` and returns it."""
    for entry in record.get("entries", []) + [item.get("entry") for item in record.get("history", [])]:
        if isinstance(entry, dict) and entry.get("type") == "announce":
            entry.pop("dice", None)
    return record


def pending_cup(loaded: Loaded) -> list[int] | None:
    """The dice the person has just rolled under the cup and not announced yet, or None."""
    saved = json.loads(loaded.game.practice_state or "null")
    if loaded.game.game != "mia" or not saved or saved.get("version") != loaded.game.version:
        return None
    return saved.get("cup")


def roll_in_progress(loaded: Loaded) -> bool:
    """True while the person has rolled and not entered it yet (a Mitchi turn's rolls, a Mia cup):
    an Undo then would drop those dice, a way to roll again."""
    turn = pending_turn(loaded)
    return bool(turn and turn.rolls) or bool(pending_cup(loaded))


def may_undo(loaded: Loaded) -> bool:
    """Whether the practice page offers Undo: from the person's first move on (before it, Undo
    could only take back the roll for who starts, die after die) and not while their roll is in
    progress (:func:`roll_in_progress`)."""
    me = person(loaded.game)
    return not roll_in_progress(loaded) and any(e.get("player") == me and e.get("type") != "startroll"
                                                for e in loaded.log)


def mia_move(session: Session, game: Game, action: str, value: int | None, version: int | None,
             seed) -> Loaded:
    """The person's Mia move: ``roll`` (roll under the cup and see the dice), ``announce``
    ``value`` (after rolling), ``pass`` (with ``value`` when passing back by raising),
    ``challenge`` (lift the cup) or ``reverse``. The engine decides what is legal; its
    refusal is raised as :class:`Refused`; an old page raises :class:`Stale`."""
    seed = dice_seed(game, seed)
    loaded = service.load(session, game)
    if version != game.version:
        raise Stale()
    state, me = loaded.state, person(game)
    if state.finished:
        raise Refused(N_("the game is over; start another practice game"))
    rolled = pending_cup(loaded)
    if action == "reverse":
        entry = {"type": "reverse", "player": me}
    elif state.to_act != me:
        raise Refused(N_("it is {player}'s move, not yours: tap Next to see it"), player=state.to_act)
    elif rolled is not None and action != "announce":
        raise Refused(N_("you have rolled: announce a value (true or not)"))
    elif action == "roll":
        if "announce" not in state.legal_types():
            raise Refused(N_("nothing ranks above Mia, so you cannot roll: challenge or pass"))
        dice = sorted(virtual.roll(random_source(seed, len(loaded.log), "cup"), 2), reverse=True)
        game.practice_state = _state(game, version=game.version, cup=dice)
        session.add(game)
        session.commit()
        return loaded
    elif action == "announce":
        if rolled is None:
            raise Refused(N_("roll under the cup first, then announce"))
        entry = {"type": "announce", "player": me, "value": value, "dice": rolled}
    elif action == "pass":
        entry = {"type": "pass", "player": me, **({"value": value} if value is not None else {})}
    elif action == "challenge":
        entry = {"type": "challenge", "player": me, "cup": list(cup_of(loaded.log) or [])}
    else:
        raise Refused(N_("{action} is not a move; roll, announce, pass or challenge"), action=_action(action))
    loaded = service.add_entry(session, game, entry, version)
    game.practice_state = _state(game)
    session.add(game)
    session.commit()
    return after(session, loaded, seed)


# --- Mice and Men -------------------------------------------------------------------


def mm_dice(game: Game, round_number: int, player: str) -> list[int]:
    """``player``'s three dice in round ``round_number`` (higher first), from the game's
    secret: rolled once, the same on every page, shown only to their owner until revealed."""
    secret = json.loads(game.practice_state or "{}").get("secret", "")
    rng = random.Random(f"{secret}:{round_number}:{player}")
    return sorted(virtual.roll(rng, 3), reverse=True)


def mm_hidden(game: Game, state) -> mm_players.Hidden:
    number = state.round_number
    return mm_players.Hidden(number=number, dice={p: mm_dice(game, number, p) for p in state.players})


def mm_move(session: Session, game: Game, action: str, penalty: int | None, version: int | None) -> Loaded:
    """The person's Mice and Men move: ``announce`` ``penalty`` (the opening or a lead),
    ``join`` or ``run`` (showing their dice). The engine decides what is legal."""
    loaded = service.load(session, game)
    if version != game.version:
        raise Stale()
    state, me = loaded.state, person(game)
    if state.finished:
        raise Refused(N_("the game is over; start another practice game"))
    if state.to_act != me:
        if state.to_act is None:
            raise Refused(N_("it is the showdown's move, not yours: tap Next to see it"))
        raise Refused(N_("it is {player}'s move, not yours: tap Next to see it"), player=state.to_act)
    if action == "announce":
        entry = {"type": "announce", "player": me, "penalty": penalty}
    elif action == "join":
        entry = {"type": "join", "player": me}
    elif action == "run":
        entry = {"type": "run", "player": me, "dice": mm_dice(game, state.round_number, me)}
    else:
        raise Refused(N_("{action} is not a move; announce, join or run"), action=_action(action))
    return service.add_entry(session, game, entry, version)


def to_act(state: GameState) -> str | None:
    """Who makes the next entry (None once the game is over)."""
    nxt = state.expected()
    # Before Mice and Men's first opening anyone may start, so ``player`` is null and ``opener``
    # names who opens (docs/game-record.md §Replay).
    return (nxt.get("player") or nxt.get("opener")) if nxt else None
