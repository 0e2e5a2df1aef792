"""Undo is safe: Redo puts back exactly what was undone while nothing else was entered;
a repeated Undo (double tap) undoes one entry only. Nothing is deleted."""

from __future__ import annotations

import pytest

from ..conftest import HX, messages, new_game, version_of
from .test_mitchi_views import post_turn


@pytest.fixture
def game(client, auth):
    auth.register()
    return new_game(client, players=("Ann", "Ben", "Cat"), starter="0", point_limit=30)


def record(client, game):
    return client.get(f"/games/{game}/record.json").json


def test_redo_puts_back_what_was_undone(client, game):
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    post_turn(client, game, 1, "Ben", (5, 1), 2)
    r = client.post(f"/games/{game}/undo", data={"version": "2"}, headers=HX)
    page = r.data.decode()
    assert r.status_code == 200 and "Redo: Ben: 5-1 in 2" in page and "Undo: Ann: 6-3 in 2" in page
    # Redo comes first, where the Undo button was.
    assert page.index("Redo:") < page.index("Undo:")
    r = client.post(f"/games/{game}/undo", data={"version": "3"}, headers=HX)
    assert "Redo: Ann: 6-3 in 2" in r.data.decode()
    r = client.post(f"/games/{game}/redo", data={"version": "4"}, headers=HX)
    assert r.status_code == 200 and "Redo: Ben: 5-1 in 2" in r.data.decode()
    r = client.post(f"/games/{game}/redo", data={"version": "5"}, headers=HX)
    assert r.status_code == 200 and "Redo:" not in r.data.decode() and "Cat's turn" in r.data.decode()
    rec = record(client, game)
    assert [e.get("hand") for e in rec["entries"]] == [None, [6, 3], [5, 1]]
    # Both undone rows are kept, marked as put back.
    assert sorted(h["status"] for h in rec["history"]) == ["redone", "redone"]
    # Nothing left to redo: a clear refusal, nothing changes.
    r = client.post(f"/games/{game}/redo", data={"version": "6"}, headers=HX)
    assert r.status_code == 422 and "nothing to redo" in messages(r.data)[0]
    assert len(record(client, game)["entries"]) == 3


def test_no_redo_once_something_else_was_entered(client, game):
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    post_turn(client, game, 1, "Ben", (5, 1), 2)
    client.post(f"/games/{game}/undo", data={"version": "2"}, headers=HX)  # Ben's turn
    client.post(f"/games/{game}/undo", data={"version": "3"}, headers=HX)  # Ann's turn
    r = post_turn(client, game, 4, "Ann", (4, 4), 1)
    assert r.status_code == 200 and "Redo:" not in r.data.decode()  # not Ben's undone turn
    r = client.post(f"/games/{game}/redo", data={"version": "5"}, headers=HX)
    assert r.status_code == 422 and "nothing to redo" in messages(r.data)[0]
    # Undo the new one: Redo offers it, never the older undone entry.
    r = client.post(f"/games/{game}/undo", data={"version": "5"}, headers=HX)
    assert "Redo: Ann: 4-4 in 1" in r.data.decode()
    r = client.post(f"/games/{game}/redo", data={"version": "6"}, headers=HX)
    assert record(client, game)["entries"][-1]["hand"] == [4, 4]
    # A correction clears Redo too.
    client.post(f"/games/{game}/undo", data={"version": "7"}, headers=HX)
    client.post(f"/games/{game}/entries/1", data={"version": "8", "type": "start", "player": "Ben"})
    assert "Redo:" not in client.get(f"/games/{game}").data.decode()
    r = client.post(f"/games/{game}/redo", data={"version": "9"}, headers=HX)
    assert r.status_code == 422 and "nothing to redo" in messages(r.data)[0]


def test_redo_from_an_old_page_is_stale(client, game):
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    client.post(f"/games/{game}/undo", data={"version": "1"}, headers=HX)
    r = client.post(f"/games/{game}/redo", data={"version": "1"}, headers=HX)
    assert r.status_code == 409
    assert len(record(client, game)["entries"]) == 1
    # No version at all (a hand-made request) is told so, not that the game changed: test_input_guards.


def test_double_tap_on_undo_undoes_one_entry(client, game):
    post_turn(client, game, 0, "Ann", (6, 3), 2)
    post_turn(client, game, 1, "Ben", (5, 1), 2)
    first = client.post(f"/games/{game}/undo", data={"version": "2"}, headers=HX)
    second = client.post(f"/games/{game}/undo", data={"version": "2"}, headers=HX)
    assert first.status_code == 200 and second.status_code == 409
    rec = record(client, game)
    assert len(rec["entries"]) == 2 and [h["status"] for h in rec["history"]] == ["undone"]
    # The second is told its first send did it, not "nothing was undone. … was undone." (a playtest).
    said = " ".join(messages(second.data))
    assert "That Undo was already done" in said and "counts once" in said and "nothing was undone" not in said
    assert "Last change, by you: “Ben: 5-1 in 2” was undone." in said
    # The same for Redo.
    first = client.post(f"/games/{game}/redo", data={"version": "3"}, headers=HX)
    second = client.post(f"/games/{game}/redo", data={"version": "3"}, headers=HX)
    assert first.status_code == 200 and second.status_code == 409
    said = " ".join(messages(second.data))
    assert "That Redo was already done" in said and "nothing was put back" not in said
    assert len(record(client, game)["entries"]) == 3
    # A page two changes behind is told the game changed: its Undo was not the one that was done.
    second = client.post(f"/games/{game}/undo", data={"version": "2"}, headers=HX)
    said = " ".join(messages(second.data))
    assert second.status_code == 409 and "nothing was undone" in said and "already done" not in said
    # Nor when the last change is this account's undo, of an entry made after that page.
    before = version_of(client.get(f"/games/{game}").data)
    assert post_turn(client, game, before, "Cat", (4, 2), 1).status_code == 200
    assert client.post(f"/games/{game}/undo", data={"version": str(before + 1)}, headers=HX).status_code == 200
    second = client.post(f"/games/{game}/undo", data={"version": str(before)}, headers=HX)
    said = " ".join(messages(second.data))
    assert second.status_code == 409 and "nothing was undone" in said and "already done" not in said


def test_a_stale_undo_after_another_accounts_undo_is_not_called_already_done(app, client, game):
    """Ben's Undo from the page Ann's Undo made stale: his tap did nothing, and he is told so."""
    from ..conftest import Auth
    from .test_groups import invite_link

    post_turn(client, game, 0, "Ann", (6, 3), 2)
    ben = app.test_client()
    Auth(ben).register("ben")
    assert ben.post(invite_link(client).split("localhost", 1)[1]).status_code == 303
    assert client.post(f"/games/{game}/undo", data={"version": "1"}, headers=HX).status_code == 200
    r = ben.post(f"/games/{game}/undo", data={"version": "1"}, headers=HX)
    said = " ".join(messages(r.data))
    assert r.status_code == 409 and "nothing was undone" in said and "already done" not in said
    assert len(record(client, game)["entries"]) == 1


def test_the_log_says_who_undid_and_who_corrected_and_when(client, game, app):
    """The log's "Undone and corrected" names the account that undid or corrected each entry and
    the time of that change; it used to show the entry's own time, as if it were the undo's."""
    import html
    import re

    from sqlmodel import Session, select

    from scorekeeper.models import Entry

    post_turn(client, game, 0, "Ann", (6, 3), 2)
    post_turn(client, game, 1, "Ben", (5, 1), 2)
    post_turn(client, game, 2, "Cat", (4, 1), 2)
    assert client.post(f"/games/{game}/undo", data={"version": "3"}, headers=HX).status_code == 200  # Cat's
    assert client.post(f"/games/{game}/undo", data={"version": "4"}, headers=HX).status_code == 200  # Ben's
    assert client.post(f"/games/{game}/redo", data={"version": "5"}, headers=HX).status_code == 200  # Ben's back
    fixed = client.post(f"/games/{game}/entries/2", data={"version": "6", "type": "turn", "player": "Ann",
                                                         "hand.0": "6", "hand.1": "4", "rolls": "2"})
    assert fixed.status_code == 303
    with Session(app.extensions["scorekeeper.engine"]) as s:
        rows = {e.status: e for e in s.exec(select(Entry).where(Entry.game_id == game, Entry.status != "active"))}
        assert rows["undone"].undone_at is not None and rows["undone"].undone_at > rows["undone"].created_at
        assert rows["replaced"].undone_at is None
    page = html.unescape(client.get(f"/games/{game}/log").data.decode())
    text = re.sub(r"<[^>]+>", "", page)
    assert re.search(r"entry 4: Cat: 4-1 in 2 \(undone by ann, [^)]+\)", text), text
    assert re.search(r"entry 3: Ben: 5-1 in 2 \(undone by ann, [^;)]+; put back with Redo by ann, [^)]+\)", text), text
    assert re.search(r"entry 2: Ann: 6-3 in 2 \(corrected to Ann: 6-4 in 2 by ann, [^)]+\)", text), text


def test_the_log_says_who_put_an_entry_back_with_redo_and_when(client, game, app, auth):
    """An entry one account undid and another put back with Redo: the log names both, each with
    its own time (it said "undone by ann, then put back by Redo", the time the undo's; a review)."""
    import html
    import re
    from datetime import datetime, timezone

    from sqlalchemy import update
    from sqlmodel import Session

    from scorekeeper.models import Entry

    post_turn(client, game, 0, "Ann", (6, 3), 2)
    post_turn(client, game, 1, "Ben", (5, 1), 2)
    assert client.post(f"/games/{game}/undo", data={"version": "2"}, headers=HX).status_code == 200
    assert client.post(f"/games/{game}/redo", data={"version": "3"}, headers=HX).status_code == 200
    with Session(app.extensions["scorekeeper.engine"]) as s:  # the undo an hour before the Redo, by another account
        s.execute(update(Entry).where(Entry.game_id == game, Entry.status == "redone")
                  .values(undone_at=datetime(2026, 3, 1, 10, 15, tzinfo=timezone.utc), undone_by=None))
        s.execute(update(Entry).where(Entry.game_id == game, Entry.seq == 3, Entry.status == "active")
                  .values(created_at=datetime(2026, 3, 1, 11, 40, tzinfo=timezone.utc)))
        s.commit()
    text = re.sub(r"<[^>]+>", "", html.unescape(client.get(f"/games/{game}/log").data.decode()))
    found = re.search(r"entry 3: Ben: 5-1 in 2 \(undone, ([^;]+); put back with Redo by ann, ([^)]+)\)", text)
    assert found, text
    assert "10:15" in found.group(1) and "11:40" in found.group(2), found.groups()
    # a later entry at that position (Ben's undone again and entered anew) is not taken for the Redo's row
    assert client.post(f"/games/{game}/undo", data={"version": "4"}, headers=HX).status_code == 200
    assert post_turn(client, game, 5, "Ben", (6, 2), 2).status_code == 200
    text = re.sub(r"<[^>]+>", "", html.unescape(client.get(f"/games/{game}/log").data.decode()))
    assert re.search(r"entry 3: Ben: 5-1 in 2 \(undone, [^;]+; put back with Redo by ann, [^)]*11:40\)", text), text


def test_the_log_says_what_each_correction_entered(client, game, app):
    """A corrected entry in the log names what replaced it, each step of a correction corrected
    again, and an imported correction (whose replacement is not known) says only that it was
    replaced (the log showed only the entry replaced; a review)."""
    import html
    import re

    from sqlalchemy import update
    from sqlmodel import Session

    from scorekeeper.models import Entry

    post_turn(client, game, 0, "Ann", (6, 3), 2)
    post_turn(client, game, 1, "Ben", (5, 1), 2)
    turn = {"type": "turn", "player": "Ann", "rolls": "2"}
    for version, hand in ((2, (6, 4)), (3, (6, 5))):
        fixed = client.post(f"/games/{game}/entries/2", data={**turn, "version": str(version), "hand.0": str(hand[0]),
                                                             "hand.1": str(hand[1])})
        assert fixed.status_code == 303
    text = re.sub(r"<[^>]+>", "", html.unescape(client.get(f"/games/{game}/log").data.decode()))
    assert re.search(r"entry 2: Ann: 6-3 in 2 \(corrected to Ann: 6-4 in 2 by ann, [^)]+\)", text), text
    assert re.search(r"entry 2: Ann: 6-4 in 2 \(corrected to Ann: 6-5 in 2 by ann, [^)]+\)", text), text
    with Session(app.extensions["scorekeeper.engine"]) as s:  # as an imported correction is stored
        s.execute(update(Entry).where(Entry.game_id == game, Entry.status == "replaced").values(replaced_by_id=None))
        s.commit()
    text = re.sub(r"<[^>]+>", "", html.unescape(client.get(f"/games/{game}/log").data.decode()))
    assert text.count("(replaced by a correction)") == 2 and "corrected to" not in text, text
