"""The export's CSV rounds, stored as a game changes, so the export need not replay.

Every finished round of a game becomes, for the export's ``games.csv`` (columns
:data:`~scorekeeper.services.history.CSV_COLUMNS`), one line per seat. What in
those lines comes from the log (the round's number, and per seat the action, the
detail, the change and the score after it) is stored per round in
:class:`~scorekeeper.models.ExportRound`, written in the same transaction as the
change (where the snapshot and the figures are written), and marked in
:class:`~scorekeeper.models.ExportState` with the game's ``version`` and the
:data:`~scorekeeper.rules.RULES_VERSION`. The rest (game id, game, played_at,
the player's name) is read from the game row at export time, so a renamed seat
never needs the rounds rewritten.

The log stays the only truth: the export uses the stored rounds only while their
version and rules version are the game's; a game whose rounds are missing or
stale is replayed there (:func:`round_cells`). A change that replayed the whole
log (a new game, undo, a correction) writes all its rounds again; an entry applied
to a snapshot adds only the rounds it finished. Layout of a line: as
:func:`scorekeeper.services.history.write_csv` writes it; the round dicts are the
engines' ``summary()["rounds"]`` (docs/game-record.md §Replay).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import timezone

from sqlalchemy import ColumnElement, Update, bindparam, delete, insert, select, text
from sqlmodel import Session

from ..db import run, run_many
from ..models import ExportRound, ExportState, Game
from ..rules import RULES_VERSION, find_game
from ..rules.base import GameState, parse_options

# Plain Core statements on the tables, built once, run on the driver (db.run; an entry runs one
# to four of them): no ORM objects of these tables are ever loaded.
_STATE, _ROUND = ExportState.__table__, ExportRound.__table__
_MARK = select(_STATE.c.version, _STATE.c.rules, _STATE.c.rounds).where(_STATE.c.game_id == bindparam("b_game"))
_MOVE = _STATE.update().where(_STATE.c.game_id == bindparam("b_game")).values(
    version=bindparam("b_version"), rounds=bindparam("b_rounds"))
_ADD = _ROUND.insert().values(game_id=bindparam("b_game"), position=bindparam("b_position"),
                              cells=bindparam("b_cells"))
_REWRITE = _ROUND.update().where(_ROUND.c.game_id == bindparam("b_game"),
                                 _ROUND.c.position == bindparam("b_position")).values(cells=bindparam("b_cells"))


def line(cells: list) -> str:
    """``cells`` as one CSV line of the export (excel dialect, minimal quoting), without its
    line end. Text cells must already have passed :func:`~.history.csv_cell`."""
    buf = io.StringIO()
    csv.writer(buf).writerow(cells)
    return buf.getvalue()[:-2]


def start_scores(game: str, players: list[str], options: dict) -> dict[str, int]:
    """Every seat's score before round 1 (the engine's fresh state), as ``score_series``."""
    spec = find_game(game)
    return spec.new_state(tuple(players), parse_options(spec.options, options)).summary()["scores"]


def round_text(game: str, players: list[str], options: dict, rnd: dict, before: dict[str, int]) -> str:
    """One finished round (an engine's round dict; ``before``: the scores before it) as the
    stored JSON text ``[number, [CSV text of action,detail,change,score_after per seat]]``."""
    from .history import _csv_cells, csv_cell

    seats = []
    for p in players:
        action, detail = _csv_cells(game, rnd, p, options, before[p])
        after = rnd["scores"][p]
        seats.append(line([csv_cell(action), csv_cell(detail), after - before[p], after]))
    return json.dumps([rnd["number"], seats], ensure_ascii=False)


def round_cells(game: str, players: list[str], options: dict, rounds: list[dict]) -> list[str]:
    """Every finished round of a whole game (``summary()["rounds"]``) as :func:`round_text`."""
    before = start_scores(game, players, options)
    out = []
    for rnd in rounds:
        out.append(round_text(game, players, options, rnd, before))
        before = rnd["scores"]
    return out


def _write_all(conn, game_id: int, version: int, texts: list[str]) -> None:
    """Replace game ``game_id``'s stored rounds by ``texts`` at ``version`` (``conn``: a Core
    connection in a transaction)."""
    conn.execute(delete(_ROUND).where(_ROUND.c.game_id == game_id))
    conn.execute(delete(_STATE).where(_STATE.c.game_id == game_id))
    conn.execute(insert(_STATE), [{"game_id": game_id, "version": version, "rules": RULES_VERSION,
                                   "rounds": len(texts)}])
    if texts:
        conn.execute(insert(_ROUND), [{"game_id": game_id, "position": i, "cells": t}
                                      for i, t in enumerate(texts, start=1)])


def fast_mark(game: ColumnElement, old: ColumnElement, new: ColumnElement, rounds: ColumnElement) -> Update:
    """The statement that moves game ``game``'s stored rounds from version ``old`` to ``new``
    when they are at ``rounds`` finished rounds and the current rules (an entry that finished
    no round); it matches no row otherwise. :func:`store` runs it on its own, or an entry's
    path runs it inside its one write (then pass :func:`store` ``marked``)."""
    return _STATE.update().where(_STATE.c.game_id == game, _STATE.c.version == old,
                                 _STATE.c.rules == RULES_VERSION, _STATE.c.rounds == rounds).values(version=new)


_FAST = fast_mark(bindparam("b_game"), bindparam("b_old"), bindparam("b_version"), bindparam("b_rounds"))


def rewrites_all(state: GameState) -> bool:
    """Whether :func:`store` writes every round of ``state`` again: a whole replayed state, or a
    snapshot's that left no round out (a game in its first rounds)."""
    return not getattr(state.rounds, "dropped", 0)


def store(session: Session, game: Game, state: GameState, marked: bool | None = None,
          revised: bool = False) -> None:
    """Bring the game's stored rounds to ``state`` at the game's (new) ``version``, in the
    caller's transaction; no commit.

    A whole replayed state writes every round again. A state from a snapshot (its
    ``rounds`` a :class:`~scorekeeper.rules.base.RoundLog` with rounds left out) is one
    entry past the stored rounds' version: it adds the rounds that entry finished, or
    leaves the rounds stale (the export replays) if they were not at that version.
    ``marked``: whether :func:`fast_mark` already ran in this transaction and matched its
    row (None: not run yet). ``revised``: the entry changed the last finished round
    instead (``GameState.ROUND_REVISING``: Mia's reversal), whose row is written again;
    :func:`fast_mark` must not have run.
    """
    played = state.rounds_played
    if rewrites_all(state):
        players, options = json.loads(game.players), json.loads(game.options)
        _write_all(session.connection(), game.id, game.version,
                   round_cells(game.game, players, options, state.summary()["rounds"]))
        return
    if revised:
        _revise_last(session, game, state)
        return
    if marked is None:
        marked = run(session, _FAST, {"b_game": game.id, "b_old": game.version - 1, "b_rounds": played,
                                      "b_version": game.version}).rowcount == 1
    if marked:
        return  # the entry finished no round
    mark = run(session, _MARK, {"b_game": game.id}).first()
    if mark is None or mark.version != game.version - 1 or mark.rules != RULES_VERSION or mark.rounds > played:
        return  # not at the version before this entry: stale, the export replays
    stored = mark.rounds
    texts = texts_after(game, state, stored)
    if texts is None:
        return  # the round before the new ones is not kept: stale, the export replays
    if texts:
        run_many(session, _ADD, [{"b_game": game.id, "b_position": stored + i, "b_cells": t}
                                 for i, t in enumerate(texts, start=1)])
    run(session, _MOVE, {"b_game": game.id, "b_version": game.version, "b_rounds": played})


def _revise_last(session: Session, game: Game, state: GameState) -> None:
    """Write the last finished round's row again (:func:`store` with ``revised``) and move the
    mark to the game's version; leave the rounds stale (the export replays) if they were not at
    the version before, at that round."""
    played = state.rounds_played
    mark = run(session, _MARK, {"b_game": game.id}).first()
    if mark is None or mark.version != game.version - 1 or mark.rules != RULES_VERSION or mark.rounds != played:
        return
    texts = texts_after(game, state, played - 1)
    if not texts:
        return  # the round before it is not kept: stale, the export replays
    run(session, _REWRITE, {"b_game": game.id, "b_position": played, "b_cells": texts[0]})
    run(session, _MOVE, {"b_game": game.id, "b_version": game.version, "b_rounds": played})


def texts_after(game: Game, state: GameState, stored: int, summary: dict | None = None) -> list[str] | None:
    """The :func:`round_text` of every round ``state`` (a snapshot's, rounds left out) finished
    after round ``stored``, or None if the rounds it kept do not reach back to round ``stored``
    (its scores are the first new round's "before"). ``summary``: ``state.summary()`` if at hand."""
    played = state.rounds_played
    players, options = json.loads(game.players), json.loads(game.options)
    kept = (summary or state.summary())["rounds"]  # the last finished rounds, ending with round ``played``
    first = played - len(kept) + 1  # the position of kept[0]
    if (first > 1) if stored == 0 else (stored < first):
        return None
    before = kept[stored - first]["scores"] if stored >= first else start_scores(game.game, players, options)
    texts = []
    for rnd in kept[stored - first + 1:]:
        texts.append(round_text(game.game, players, options, rnd, before))
        before = rnd["scores"]
    return texts


def fill_from_logs(conn, game: str | None = None) -> None:
    """Write the stored rounds of every game (``game``: of that kind only) again from its log,
    one replay each, at its version and the current rules version: what a migration does when
    the rows' cells change. A log the rules refuse gets none (the export replays, and refuses,
    it). ``conn``: a Core connection in a transaction (a migration's ``op.get_bind()``)."""
    from ..rules import record as records

    query = "SELECT id, game, players, options, version FROM game"
    games = conn.execute(text(query + (" WHERE game = :kind" if game else "") + " ORDER BY id"),
                         {"kind": game} if game else {}).all()
    for game_id, kind, players, options, version in games:
        log = [json.loads(d) for (d,) in conn.execute(
            text("SELECT data FROM entry WHERE game_id = :g AND status = 'active' ORDER BY seq"), {"g": game_id})]
        names, opts = json.loads(players), json.loads(options)
        try:
            summary = records.replay(records.make_record(kind, names, opts, log))
        except records.ReplayError:  # a log the rules refuse now: nothing stored
            conn.execute(delete(_ROUND).where(_ROUND.c.game_id == game_id))
            conn.execute(delete(_STATE).where(_STATE.c.game_id == game_id))
            continue
        _write_all(conn, game_id, version, round_cells(kind, names, opts, summary["rounds"]))


def insert_many(session: Session, games: list[tuple[int, str, list[str], dict, list[dict]]]) -> None:
    """Store the rounds of new games in bulk (an import: ``[(game id, game, players,
    options, summary()["rounds"])]``, each at version 0); no commit."""
    marks, rows = [], []
    for game_id, name, players, options, rounds in games:
        texts = round_cells(name, players, options, rounds)
        marks.append({"game_id": game_id, "version": 0, "rules": RULES_VERSION, "rounds": len(texts)})
        rows += [{"game_id": game_id, "position": i, "cells": t} for i, t in enumerate(texts, start=1)]
    for start in range(0, len(marks), 1000):
        session.execute(insert(ExportState), marks[start:start + 1000])
    for start in range(0, len(rows), 2000):
        session.execute(insert(ExportRound), rows[start:start + 2000])


def stored(session: Session, games: list[Game]) -> dict[int, list[str]]:
    """``{game id: [round text]}`` for those of ``games`` whose stored rounds are at the
    game's version and the current rules version (others are left out: replay them)."""
    if not games:
        return {}
    version = {g.id: g.version for g in games}
    ok = {gid: rounds for gid, v, rules, rounds in session.execute(
        select(ExportState.game_id, ExportState.version, ExportState.rules, ExportState.rounds)
        .where(ExportState.game_id.in_(list(version))))
        if v == version[gid] and rules == RULES_VERSION}
    out: dict[int, list[str]] = {gid: [] for gid in ok}
    if ok:
        for gid, cells in session.execute(select(ExportRound.game_id, ExportRound.cells)
                                          .where(ExportRound.game_id.in_(list(ok)))
                                          .order_by(ExportRound.game_id, ExportRound.position)):
            out[gid].append(cells)
    return {gid: texts for gid, texts in out.items() if len(texts) == ok[gid]}


def csv_lines(game: Game, players: list[str], texts: list[str], loads=json.loads) -> str:
    """The game's lines of ``games.csv`` (each ending ``\\r\\n``) from its round texts."""
    from .history import csv_cell

    played = game.played_at.astimezone(timezone.utc).isoformat() if game.played_at else ""
    head = line([game.id, csv_cell(game.game), csv_cell(played)])
    names = [line([csv_cell(p), ""])[:-1] for p in players]  # a name's cell as in a longer row
    out = []
    for text in texts:
        number, seats = loads(text)
        out += [f"{head},{number},{seat},{names[seat - 1]},{cells}\r\n"
                for seat, cells in enumerate(seats, start=1)]
    return "".join(out)
