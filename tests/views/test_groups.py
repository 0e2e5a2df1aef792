"""Groups: a group per account, invites (QR), roles, switching, and no access to another group's
games from any route (the URL map is walked, so a new route is covered at once)."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest
from sqlmodel import Session, select

from scorekeeper.models import Entry, Game, Membership, User

from ..conftest import HX, Auth, new_game, version_of


def invite_link(client) -> str:
    r = client.post("/groups/invites")
    assert r.status_code == 303
    page = client.get("/groups").data.decode()
    return re.findall(r'class="invite-link">([^<]+)<', page)[0]


def ben_joins_ann(app, client, auth):
    """ann (``client``) makes a game and an invite; ben, on a phone of his own, joins her group.
    Returns (the game's id, ben's client)."""
    auth.register("ann")
    gid = new_game(client)
    path = invite_link(client).split("localhost", 1)[1]
    ben = app.test_client()
    Auth(ben).register("ben")
    assert ben.post(path).status_code == 303
    return gid, ben


def test_an_account_gets_a_group_of_its_own_shown_in_the_header(client, auth):
    auth.register("ann")
    page = client.get("/history").data.decode()
    assert 'class="group-name"' in page and ">ann</a>" in page
    assert "You are its owner" in client.get("/groups").data.decode()


def test_an_invite_joins_a_second_account_which_then_sees_and_scores_the_games(app, client, auth):
    auth.register("ann")
    gid = new_game(client)
    link = invite_link(client)
    page = client.get("/groups").data.decode()
    assert '<svg' in page and 'class="segno"' in page  # the QR code, drawn inline
    token_path = link.split("localhost", 1)[1]

    ben = app.test_client()
    Auth(ben).register("ben")
    assert ben.get(f"/games/{gid}").status_code == 404  # not a member yet
    assert "Join ann" in ben.get(token_path).data.decode()
    r = ben.post(token_path)
    assert r.status_code == 303
    assert f"/games/{gid}" in ben.get("/history").data.decode()  # the group's history
    assert ben.get(f"/games/{gid}").status_code == 200
    r = ben.post(f"/games/{gid}/entries", data={"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5",
                                                 "rolls": "2", "version": version_of(ben.get(f"/games/{gid}").data)})
    assert r.status_code == 303
    with Session(app.extensions["scorekeeper.engine"]) as s:
        entry = s.exec(select(Entry).where(Entry.game_id == gid).order_by(Entry.seq)).all()[-1]
        ben_id = s.exec(select(Membership).where(Membership.role == "member")).one().user_id
    assert entry.entered_by == ben_id
    # The downloaded record says who entered it (an extra key), and loads back as the same game.
    record = client.get(f"/games/{gid}/record.json").get_json()
    assert record["entries"][-1]["entered_by"] == "ben" and record["entries"][0]["entered_by"] == "ann"


def test_the_headers_log_in_and_register_on_an_invite_lead_back_to_it(app, client, auth):
    """Opened logged out, an invite's page offers its own buttons, and the header's "Log in" and
    "Register" as well: those lost the invite (a playtest: logged in from the header, the invite
    was gone). Other pages' header links name no page to come back to."""
    auth.register("ann")
    token_path = invite_link(client).split("localhost", 1)[1]
    visitor = app.test_client()
    page = visitor.get(token_path).data.decode()
    nav = page.split('<nav aria-label="Main">', 1)[1].split("</nav>", 1)[0]
    assert f'href="/login?next={token_path}"' in nav and f'href="/register?next={token_path}"' in nav
    nav = visitor.get("/login").data.decode().split('<nav aria-label="Main">', 1)[1].split("</nav>", 1)[0]
    assert 'href="/login"' in nav and "next=" not in nav
    # From the invite's header to the login page, then its header's "Register" (or the other way
    # round): still leading back to the invite (a playtest).
    for page in (f"/login?next={token_path}", f"/register?next={token_path}"):
        nav = visitor.get(page).data.decode().split('<nav aria-label="Main">', 1)[1].split("</nav>", 1)[0]
        assert f'href="/login?next={token_path}"' in nav and f'href="/register?next={token_path}"' in nav, page
    # Registered by way of the header's link: back at the invite, to join.
    r = visitor.post(f"/register?next={token_path}", data={"username": "ben", "password": "correct horse",
                                                         "confirm": "correct horse"})
    assert r.status_code == 303 and r.headers["Location"].endswith(token_path)


def test_the_games_list_and_the_players_page_name_the_group_whole(client, auth):
    """The header's link to the group cuts a long name short on a phone ("Tues…"), and no other
    part of the games list or the players page named the group (a playtest)."""
    auth.register("ann")
    assert client.post("/groups/rename", data={"name": "Tuesday Dice Club <b>"}).status_code == 303
    for path in ("/", "/players"):
        page = client.get(path).data.decode()
        assert '<p class="in-group">In the group <strong>Tuesday Dice Club &lt;b&gt;</strong></p>' in page, path


def test_after_a_new_login_an_account_is_in_the_group_whose_game_moved_last(app, client, auth):
    gid, ben = ben_joins_ann(app, client, auth)
    # Ben logs out (or another phone does) and in again: he is back at ann's games, not at the
    # empty group made with his account.
    Auth(ben).logout()
    Auth(ben).login("ben")
    page = ben.get("/history").data.decode()
    assert f"/games/{gid}" in page and 'class="group-name"' in page and ">ann</a>" in page
    # He switches to his own, empty, group: logging out and in on this phone keeps his choice.
    own = re.findall(r"/groups/(\d+)/switch", ben.get("/groups").data.decode())
    assert ben.post(f"/groups/{own[0]}/switch").status_code == 303
    Auth(ben).logout()
    Auth(ben).login("ben")
    assert f"/games/{gid}" not in ben.get("/history").data.decode()
    # A phone with no choice of its own opens the group whose game moved last: ann's, then his
    # own once it has the game that moved last.
    other = app.test_client()
    Auth(other).login("ben")
    assert f"/games/{gid}" in other.get("/history").data.decode()
    mine = new_game(ben, players=("Dan", "Eve", "Fay"))
    other = app.test_client()
    Auth(other).login("ben")
    page = other.get("/history").data.decode()
    assert f"/games/{mine}" in page and f"/games/{gid}" not in page
    # An account none of whose groups has a game opens its oldest (its own) group.
    Auth(client).logout()
    cat = app.test_client()
    Auth(cat).register("cat")
    Auth(cat).logout()
    Auth(cat).login("cat")
    assert ">cat</a>" in cat.get("/history").data.decode()


def test_revoked_and_unknown_invites_say_so_and_add_nobody(app, client, auth):
    auth.register("ann")
    link = invite_link(client)
    path = link.split("localhost", 1)[1]
    invite_id = re.search(r"/groups/invites/(\d+)/revoke", client.get("/groups").data.decode()).group(1)
    assert client.post(f"/groups/invites/{invite_id}/revoke").status_code == 303
    ben = app.test_client()
    Auth(ben).register("ben")
    for r in (ben.get(path), ben.post(path), ben.get("/join/not-a-real-token")):
        assert r.status_code == 404
        assert "unknown or was revoked" in r.data.decode()
    with Session(app.extensions["scorekeeper.engine"]) as s:
        assert len(s.exec(select(Membership)).all()) == 2  # ann's and ben's own groups only


def test_roles_members_cannot_invite_rename_or_remove_and_owners_can(app, client, auth):
    gid, ben = ben_joins_ann(app, client, auth)
    for url, data in (("/groups/invites", {}), ("/groups/rename", {"name": "Ben's"}),
                      ("/groups/members/1/remove", {})):
        r = ben.post(url, data=data)
        assert r.status_code == 403 and "Only the group&#39;s owner" in r.data.decode(), url
    assert client.post("/groups/rename", data={"name": "Friday dice"}).status_code == 303
    assert "Friday dice" in ben.get("/history").data.decode()
    assert client.post("/groups/members/1/remove").status_code == 403  # the owner stays
    assert client.post("/groups/members/2/remove").status_code == 303
    assert ben.get(f"/games/{gid}").status_code == 404


def test_a_removed_member_is_not_let_back_in_by_an_invite_made_before(app, client, auth, monkeypatch):
    """Found by the twenty-fifth review: ben, removed, opened the same link and was back. A link
    made after his removal (the owner asks him again) adds him, even one asked for within the
    double-tap seconds of the one before; a member who left of his own accord may come back
    by the old one."""
    from scorekeeper.services import groups as service

    gid, ben = ben_joins_ann(app, client, auth)
    monkeypatch.setattr(service, "DOUBLE_TAP_SECONDS", 0)  # a second link at once

    def links() -> set[str]:
        page = client.get("/groups").data.decode()
        return {link.split("localhost", 1)[1] for link in re.findall(r'class="invite-link">([^<]+)<', page)}

    assert client.post("/groups/invites").status_code == 303
    before = links()  # the link ben joined by, and one more
    assert len(before) == 2
    r = client.post("/groups/members/2/remove", follow_redirects=True)
    assert "The invite links made so far do not add them again" in r.data.decode()
    for path in before:
        for method in ("GET", "POST"):
            r = ben.open(path, method=method)
            assert r.status_code == 403 and "You were removed from this group" in r.data.decode(), method
    assert ben.get(f"/games/{gid}").status_code == 404
    cat = app.test_client()
    Auth(cat).register("cat")
    some = sorted(before)[0]
    assert cat.post(some).status_code == 303 and cat.get(f"/games/{gid}").status_code == 200  # others still can
    monkeypatch.setattr(service, "DOUBLE_TAP_SECONDS", 3600)  # every link "just made"
    assert client.post("/groups/invites").status_code == 303
    (after,) = links() - before
    assert ben.post(after).status_code == 303 and ben.get(f"/games/{gid}").status_code == 200
    # Asked back, ben is a member like any other: having left, the old link takes him back.
    assert ben.post("/groups/leave").status_code == 303
    assert ben.post(sorted(before)[0]).status_code == 303 and ben.get(f"/games/{gid}").status_code == 200
    # Leaving is not being removed.
    assert cat.post("/groups/leave").status_code == 303
    assert cat.post(some).status_code == 303 and cat.get(f"/games/{gid}").status_code == 200


def test_an_account_switches_between_its_groups_and_old_links_still_open(app, client, auth):
    auth.register("ann")
    first = new_game(client, players=("Ann", "Ben", "Cat"))
    assert client.post("/groups/new", data={"name": "Work"}).status_code == 303
    assert f"/games/{first}" not in client.get("/history").data.decode()
    second = new_game(client, players=("Dan", "Eve", "Fay"))
    page = client.get("/history").data.decode()
    assert f"/games/{second}" in page and f"/games/{first}" not in page
    # A link kept from before opens, and brings its group with it, which the page says once.
    page = client.get(f"/games/{first}")
    assert page.status_code == 200 and "Now in ann." in html.unescape(page.data.decode())
    assert "Now in" not in client.get(f"/games/{first}").data.decode()
    page = client.get("/history").data.decode()
    assert f"/games/{first}" in page and f"/games/{second}" not in page
    group_ids = re.findall(r"/groups/(\d+)/switch", client.get("/groups").data.decode())
    assert len(group_ids) == 1
    assert client.post(f"/groups/{group_ids[0]}/switch").status_code == 303
    assert f"/games/{second}" in client.get("/history").data.decode()
    # Players belong to a group too.
    assert "Dan" in client.get("/players").data.decode() and "Ann" not in client.get("/players").data.decode()
    # A player's page kept from before opens too, and brings its group, as a game's does (it was
    # "no such page"; found by a review).
    dan = re.search(r'href="/players/(\d+)">(?:<span class="name">)?Dan<', client.get("/players").data.decode()).group(1)
    first_group = re.findall(r"/groups/(\d+)/switch", client.get("/groups").data.decode())[0]
    assert client.post(f"/groups/{first_group}/switch").status_code == 303  # back to ann's first group
    assert "Dan" not in client.get("/players").data.decode()
    page = client.get(f"/players/{dan}")
    assert page.status_code == 200 and "<h1>Dan" in page.data.decode().replace("<bdi>", "")
    assert "Now in Work." in page.data.decode()
    assert "Dan" in client.get("/players").data.decode()
    # Another group's player is still a 404 (eve is in neither of ann's groups).
    eve = app.test_client()
    Auth(eve).register("eve")
    assert eve.get(f"/players/{dan}").status_code == 404
    assert "Dan" not in eve.get("/players").data.decode()
    # Switching to a group one is not in is a 404.
    assert client.post("/groups/999/switch").status_code == 404


def _game_routes(app):
    for rule in app.url_map.iter_rules():
        if "game_id" in rule.arguments:
            for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
                yield rule, method


def test_another_groups_member_gets_404_on_every_game_route(app, client, auth):
    auth.register("ann")
    gid = new_game(client)
    eve = app.test_client()
    Auth(eve).register("eve")
    routes = list(_game_routes(app))
    assert len(routes) >= 10
    for rule, method in routes:
        url = rule.build({"game_id": gid, "seq": 1}, append_unknown=False)[1]
        r = eve.open(url, method=method, data={"version": "1", "type": "turn", "player": "Ann", "hand.0": "6",
                                               "hand.1": "5", "rolls": "2"})
        assert r.status_code == 404, (method, url, r.status_code)
    assert client.get(f"/games/{gid}").status_code == 200
    assert version_of(client.get(f"/games/{gid}").data) == 0  # nothing changed


@pytest.fixture
def csrf_app(make_app):
    app = make_app(WTF_CSRF_ENABLED=True)
    yield app
    app.extensions["scorekeeper.engine"].dispose()


def test_group_and_live_routes_refuse_posts_without_a_csrf_token(csrf_app):
    client = csrf_app.test_client()
    page = client.get("/register").data.decode()
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    client.post("/register", data={"username": "ann", "password": "correct horse",
                                   "confirm": "correct horse", "csrf_token": token})
    for url in ("/groups/invites", "/groups/rename", "/groups/new", "/groups/leave", "/groups/1/switch",
                "/games/1/live", "/games/1/live/off", "/join/whatever"):
        r = client.post(url, data={"name": "x"})
        assert r.status_code == 400 and "security token" in r.data.decode(), url


def test_htmx_and_names_are_escaped_in_group_pages(client, auth):
    auth.register("ann")
    client.post("/groups/rename", data={"name": "<script>x</script>"})
    page = client.get("/groups", headers=HX).data.decode()
    assert "<script>x</script>" not in page and "&lt;script&gt;" in page


def test_a_new_game_lands_in_the_group_its_form_was_made_for(app, client, auth):
    auth.register("ann")
    page = client.get("/games/new/mitchi").data.decode()
    first_group = re.search(r'name="group" value="(\d+)"', page).group(1)
    assert "In the group <strong>ann</strong>" in page
    client.post("/groups/new", data={"name": "Work"})  # another tab switches groups meanwhile
    data = {"seats": "3", "players-0": "Ann", "players-1": "Ben", "players-2": "Cat", "starter": "0",
            "opt_point_limit": "25", "action": "create", "group": first_group}
    r = client.post("/games/new/mitchi", data=data)
    assert r.status_code == 303
    gid = int(r.headers["Location"].rsplit("/", 1)[1])
    with Session(app.extensions["scorekeeper.engine"]) as s:
        from scorekeeper.models import Game

        assert s.get(Game, gid).group_id == int(first_group)
    # A group the account is not in: 404, no game.
    eve = app.test_client()
    Auth(eve).register("eve")
    assert eve.post("/games/new/mitchi", data=data).status_code == 404


def test_bad_group_names_are_a_400_and_a_double_tap_makes_one_invite(app, client, auth):
    auth.register("ann")
    for url in ("/groups/rename", "/groups/new"):
        r = client.post(url, data={"name": "    "})
        assert r.status_code == 400 and "1 to 40 characters" in r.data.decode(), url
    # The groups page again, the message above the form that sent it and what was typed kept
    # (it was a page with only the message and a link away: found by the eleventh review).
    long = "Friday dice at Ann's, every week, all year"  # 42 characters
    r = client.post("/groups/rename", data={"name": long})
    page = html.unescape(r.data.decode())
    assert r.status_code == 400 and f'id="group-name" name="name" value="{long}"' in page
    assert page.index("Not renamed: A group's name has 1 to 40 characters") < page.index('id="group-name"')
    # Invisible and direction characters are no name (cleaned as players' names are).
    for url in ("/groups/rename", "/groups/new"):
        r = client.post(url, data={"name": "\u200b\u200b"})
        assert r.status_code == 400 and "1 to 40 characters" in r.data.decode(), url
    assert client.post("/groups/rename", data={"name": "Fun \u202egnp.exe"}).status_code == 303
    assert "Fun gnp.exe" in client.get("/groups").data.decode() and "\u202e" not in client.get("/groups").data.decode()
    r = client.post("/groups/new", data={"name": long})
    page = html.unescape(r.data.decode())
    assert r.status_code == 400 and "No group made: A group's name has 1 to 40" in page
    assert f'value="{long}"' in page[page.index('id="new-group"'):]
    assert len(re.findall(r'action="/groups/\d+/switch"', client.get("/groups").data.decode())) <= 1
    client.post("/groups/invites")
    client.post("/groups/invites")
    assert len(re.findall(r'class="invite-link"', client.get("/groups").data.decode())) == 1


def test_a_removed_members_open_page_leaves_the_game(app, client, auth):
    gid, ben = ben_joins_ann(app, client, auth)
    assert ben.get(f"/games/{gid}/poll?v=0", headers=HX).status_code == 204
    client.post("/groups/members/2/remove")
    r = ben.get(f"/games/{gid}/poll?v=0", headers=HX)
    assert r.headers.get("HX-Redirect") == "/"
    assert '<p class="msg warning">That game is no longer yours to see: you are not in its group any more.' in (
        html.unescape(ben.get("/").data.decode()))


@pytest.mark.parametrize("path, data", [
    ("entries", {"version": "1", "type": "turn", "player": "Ann", "hand.0": "2", "hand.1": "2", "rolls": "1"}),
    ("undo", {"version": "1"}),
    ("entries/2", {"version": "1", "type": "turn", "player": "Ann", "hand.0": "2", "hand.1": "2", "rolls": "1"}),
])
def test_a_removed_members_tap_leaves_the_game_saying_nothing_was_saved(app, client, auth, path, data):
    """A tap on the game page of a group the account was removed from (its poll not yet come):
    the home page, saying why and that nothing was saved, not "no such page" over the game's
    still usable pads (a playtest). A plain form (a correction page's) gets a 404 saying the same;
    a page, the plain 404."""
    gid, ben = ben_joins_ann(app, client, auth)
    ben.get(f"/games/{gid}")
    client.post("/groups/members/2/remove")
    with Session(app.extensions["scorekeeper.engine"]) as s:
        before = [(e.seq, e.data) for e in s.exec(select(Entry).where(Entry.game_id == gid))]
    r = ben.post(f"/games/{gid}/{path}", data=data, headers=HX)
    assert r.status_code == 404 and r.headers.get("HX-Redirect") == "/"
    page = html.unescape(ben.get("/").data.decode())
    assert ('<p class="msg warning">Nothing was saved: that game is no longer yours to see, as you are not in its '
            'group any more.') in page
    # a plain form (a correction page's): a 404 that says why nothing was saved (a playtest: "Not found")
    r = ben.post(f"/games/{gid}/{path}", data=data)
    assert r.status_code == 404 and "HX-Redirect" not in r.headers
    assert "Nothing was saved: that game is no longer yours to see" in html.unescape(r.data.decode())
    assert ben.get(f"/games/{gid}").status_code == 404  # a page: the plain "no such page"
    with Session(app.extensions["scorekeeper.engine"]) as s:
        assert [(e.seq, e.data) for e in s.exec(select(Entry).where(Entry.game_id == gid))] == before


def test_a_removed_members_open_form_says_why_nothing_was_saved(app, client, auth):
    """A form on a page of the group, sent after its owner removed the account (a new game, a load
    of records): nothing is saved, and the answer says why, not "no such page" (found by a review).
    A group the account was never in is told the same, which says nothing of whether it exists."""
    gid, ben = ben_joins_ann(app, client, auth)
    ben.post(f"/groups/{group_of_page(client, '/groups')}/switch")
    group = group_of_page(ben, "/games/new/mitchi")
    # the load page names the group its games go into, as New game does (found by a review)
    assert "In the group <strong>ann</strong>" in ben.get("/import").data.decode()
    client.post("/groups/members/2/remove")
    with Session(app.extensions["scorekeeper.engine"]) as s:
        games = len(s.exec(select(Game)).all())
    for path, data in (("/games/new/mitchi", {"players-0": "Ann", "players-1": "Ben", "starter": "0"}),
                       ("/import", {})):
        r = ben.post(path, data={"group": group, **data})
        page = html.unescape(r.data.decode())
        assert r.status_code == 404 and "Nothing was saved: this page was made for a group you are not in" in page
    # the same page, but for the CSRF token, which is signed with the second it was made in
    unsigned = lambda page: re.sub(rb'"X-CSRFToken": "[^"]+"', b"", page)  # noqa: E731
    assert unsigned(ben.post("/import", data={"group": "999"}).data) == unsigned(r.data)
    with Session(app.extensions["scorekeeper.engine"]) as s:
        assert len(s.exec(select(Game)).all()) == games


def test_another_groups_invite_or_member_is_404_and_nothing_changes(app, client, auth):
    """As another group's games: an invite or a member of a group the account does not own is
    not there (404), even for the owner of another group."""
    gid, ben = ben_joins_ann(app, client, auth)
    carol = app.test_client()
    Auth(carol).register("carol")  # the owner of a group of her own
    with Session(app.extensions["scorekeeper.engine"]) as s:
        from scorekeeper.models import Invite

        invite = s.exec(select(Invite)).first()
        ben_id = s.exec(select(Membership).where(Membership.role != "owner")).first().user_id
    for url in (f"/groups/invites/{invite.id}/revoke", f"/groups/members/{ben_id}/remove"):
        r = carol.post(url)
        assert r.status_code == 404, (url, r.status_code)
    with Session(app.extensions["scorekeeper.engine"]) as s:
        from scorekeeper.models import Invite

        assert s.get(Invite, invite.id).revoked_at is None
        assert s.exec(select(Membership).where(Membership.user_id == ben_id)).first() is not None
    assert ben.post("/groups/members/1/remove").status_code == 403  # a member of that group: not the owner


def group_of_page(client, path: str) -> str:
    """The hidden ``group`` of the first form on ``path``: the group the page showed."""
    return re.search(r'name="group" value="(\d+)"', client.get(path).data.decode()).group(1)


def test_a_refused_owners_form_leaves_the_member_in_the_group_he_was_in(app, client, auth):
    """A member's rename (or removal) of the group a page showed is refused, and changes nothing:
    not the group he looks at either. It said "Now in Friday dice." on the refusal and moved his
    phone there (a playtest)."""
    gid, ben = ben_joins_ann(app, client, auth)
    assert client.post("/groups/rename", data={"name": "Friday dice"}).status_code == 303
    annes = group_of_page(ben, "/groups")  # ben's current group: ann's, which he joined
    own = next(i for i in re.findall(r"/groups/(\d+)/switch", ben.get("/groups").data.decode()) if i != annes)
    assert ben.post(f"/groups/{own}/switch").status_code == 303
    assert group_of_page(ben, "/groups") == own
    for url in ("/groups/rename", "/groups/members/1/remove", "/groups/invites"):
        r = ben.post(url, data={"group": annes, "name": "hijack"})
        page = html.unescape(r.data.decode())
        assert r.status_code == 403 and "Only the group's owner" in page, url
        assert "Now in" not in page, url
        page = html.unescape(ben.get("/groups").data.decode())
        assert group_of_page(ben, "/groups") == own and "Now in" not in page, url
    assert "Friday dice" in client.get("/groups").data.decode()  # nothing renamed
    # An owner's form from a page of another of her groups still moves her there, and says so.
    assert client.post("/groups/new", data={"name": "Work"}).status_code == 303
    r = client.post("/groups/rename", data={"group": annes, "name": "Friday dice 2"})
    page = html.unescape(client.get("/groups").data.decode())
    assert r.status_code == 303 and "Now in Friday dice." in page and "now called Friday dice 2" in page


def test_group_forms_act_in_the_group_their_page_showed(app, client, auth):
    """A tab opened on group A, after another tab switched to group B, renames, invites to,
    loads records into and sets the time zone of A, not B (found by a review: B was renamed, the
    invite added people to B, the records landed in B); A becomes the current group, and the
    next page says so (it did not: the other tab then showed A without a word)."""
    from scorekeeper.models import Game, Group, Invite

    auth.register("ann")
    first = group_of_page(client, "/groups")
    pages = {path: group_of_page(client, path) for path in ("/import", "/settings", "/practice/new/mitchi")}
    assert set(pages.values()) == {first}, pages
    engine = app.extensions["scorekeeper.engine"]

    def switch_away() -> int:  # the other tab: a new group, now the current one
        client.post("/groups/new", data={"name": f"Other {switch_away.n}"})
        switch_away.n += 1
        with Session(engine) as s:
            return max(g.id for g in s.exec(select(Group)))
    switch_away.n = 1

    other = switch_away()
    assert client.post("/groups/rename", data={"name": "Friday dice", "group": first}).status_code == 303
    with Session(engine) as s:
        assert s.get(Group, int(first)).name == "Friday dice" and s.get(Group, other).name == "Other 1"
    page = client.get("/groups").data.decode()
    assert "Group: Friday dice" in page  # the tab's group is current, and the page says so
    assert "Now in ann." in page and "The group is now called Friday dice." in page
    assert client.post("/groups/rename", data={"name": "Friday dice", "group": first}).status_code == 303
    assert "Now in" not in client.get("/groups").data.decode()  # in that group already: nothing to say

    other = switch_away()
    assert client.post("/groups/invites", data={"group": first}).status_code == 303
    with Session(engine) as s:
        assert [i.group_id for i in s.exec(select(Invite))] == [int(first)]

    other = switch_away()
    record = (Path(__file__).resolve().parents[2] / "docs" / "examples" / "mitchi-sample.json").read_bytes()
    r = client.post("/import", data={"group": first, "records": (io.BytesIO(record), "sample.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 303
    with Session(engine) as s:
        assert [g.group_id for g in s.exec(select(Game))] == [int(first)]

    other = switch_away()
    assert client.post("/settings", data={"group": first, "timezone": "Europe/Berlin"}).status_code == 303
    with Session(engine) as s:
        assert s.get(Group, int(first)).timezone == "Europe/Berlin" and s.get(Group, other).timezone != "Europe/Berlin"

    # Another account's group, or none, named in a form: 404 and nothing changes.
    eve = app.test_client()
    Auth(eve).register("eve")
    for url, data in (("/groups/rename", {"name": "Mine now"}), ("/groups/invites", {}),
                      ("/settings", {"timezone": "Asia/Tokyo"})):
        for group in (first, "99999", "0", "x", "4294967296"):
            assert eve.post(url, data={**data, "group": group}).status_code == 404, (url, group)
    with Session(engine) as s:
        assert s.get(Group, int(first)).name == "Friday dice"
        assert s.get(Group, int(first)).timezone == "Europe/Berlin"
        assert len(s.exec(select(Invite)).all()) == 1


def test_leave_leaves_the_group_its_page_showed_and_only_once(app, client, auth):
    """ben, in ann's group and in carol's, opens the groups page on ann's group; another tab
    switches to carol's. Leave takes him out of ann's group only (it took him out of carol's);
    the same form sent again leaves nothing more (it used to leave whichever group was current)."""
    gid, ben = ben_joins_ann(app, client, auth)
    carol = app.test_client()
    Auth(carol).register("carol")
    path = invite_link(carol).split("localhost", 1)[1]
    assert ben.post(path).status_code == 303  # joins carol's group, now his current one
    engine = app.extensions["scorekeeper.engine"]
    with Session(engine) as s:
        from scorekeeper.models import Game, User

        anns = s.get(Game, gid).group_id
        ben_id = s.exec(select(User).where(User.username == "ben")).one().id

        def groups_of_ben() -> set[int]:
            s.expire_all()
            return {m.group_id for m in s.exec(select(Membership).where(Membership.user_id == ben_id))}
        carols = (groups_of_ben() - {anns}) and max(groups_of_ben() - {anns})
        before = groups_of_ben()
        assert {anns, carols} <= before
        r = ben.post("/groups/leave", data={"group": str(anns)})
        assert r.status_code == 303
        assert groups_of_ben() == before - {anns}
        assert "You left ann." in ben.get("/").data.decode()  # the group by its name
        r = ben.post("/groups/leave", data={"group": str(anns)})  # a double tap: done already
        assert r.status_code == 303
        assert "not a member of that group (any more); nothing changed" in ben.get("/").data.decode()
        assert groups_of_ben() == before - {anns}
        assert ben.post("/groups/leave", data={"group": "99999"}).status_code == 303
        assert groups_of_ben() == before - {anns}


def test_an_invite_sent_eight_times_at_once_makes_one_membership_and_no_error(app, client, auth):
    """A resend of Join after a lost answer (or two tabs) racing the first: the second insert of
    the membership was flushed by the removal's DELETE, before the ``try`` that takes a
    duplicate as done, and answered 500 "nothing was saved" though the membership was made
    (found by a review). Every sending now answers 303 and one membership is stored."""
    from .test_once import together
    from .test_sessions import copy_cookies

    auth.register("ann")
    path = invite_link(client).split("localhost", 1)[1]
    for name in ("ben", "cat", "dan", "eve"):  # a race is a matter of timing: four of them
        first = app.test_client()
        Auth(first).register(name)
        phones = [app.test_client() for _ in range(8)]
        for phone in phones:
            copy_cookies(first, phone)
        answers = together(8, lambda i: phones[i].post(path))
        codes = [getattr(a, "status_code", a) for a in answers]
        assert codes == [303] * 8, (name, codes)
        with Session(app.extensions["scorekeeper.engine"]) as s:
            user = s.exec(select(User).where(User.username == name)).one()
            assert len(s.exec(select(Membership).where(Membership.user_id == user.id,
                                                       Membership.role == "member")).all()) == 1


@pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")
def test_removing_a_member_sent_eight_times_at_once_removes_once_and_says_so(app, client, auth):
    """The owner's Remove tapped on two phones (or resent) at once: one removal, no server error,
    and no flush that expected a row another phone deleted (SQLAlchemy warned of it)."""
    from .test_once import together
    from .test_sessions import copy_cookies

    _, ben = ben_joins_ann(app, client, auth)
    phones = [app.test_client() for _ in range(8)]
    for phone in phones:
        copy_cookies(client, phone)
    answers = together(8, lambda i: phones[i].post("/groups/members/2/remove"))
    codes = [getattr(a, "status_code", a) for a in answers]
    assert all(c in (303, 404) for c in codes) and 303 in codes, codes
    with Session(app.extensions["scorekeeper.engine"]) as s:
        assert s.exec(select(Membership).where(Membership.user_id == 2, Membership.group_id == 1)).all() == []


def test_the_owner_hands_the_group_to_a_member_and_may_then_leave_it(app, client, auth):
    """The owner could not leave, nor hand the group on (left alone before): now a member is
    made the owner from the group's page, the old owner stays a member and may leave; the same
    hand-over tapped twice changes nothing more; a member cannot hand over, nor the owner to an
    account outside the group. A bare 403 "cannot leave" now says what to do first."""
    gid, ben = ben_joins_ann(app, client, auth)
    engine = app.extensions["scorekeeper.engine"]
    with Session(engine) as s:
        ben_id = s.exec(select(User).where(User.username == "ben")).one().id
        group = s.get(Game, gid).group_id

    def roles() -> dict[str, str]:
        with Session(engine) as s:
            rows = s.exec(select(User.username, Membership.role)
                          .join(Membership, Membership.user_id == User.id)
                          .where(Membership.group_id == group)).all()
        return dict(rows)

    page = client.get("/groups").data.decode()
    assert f'action="/groups/members/{ben_id}/owner"' in page
    assert "make another member its owner first" in page
    r = client.post("/groups/leave", data={"group": str(group)})
    assert r.status_code == 403 and "make another member its owner first" in r.data.decode()
    r = ben.post(f"/groups/members/{ben_id}/owner", data={"group": str(group)})  # a member: refused
    assert r.status_code == 403 and "Only the group&#39;s owner can do that; its owner is ann." in r.data.decode()
    assert client.post("/groups/members/99999/owner", data={"group": str(group)}).status_code == 404
    with Session(engine) as s:
        ann_id = s.exec(select(User).where(User.username == "ann")).one().id
    r = client.post(f"/groups/members/{ann_id}/owner", data={"group": str(group)})  # to herself
    assert r.status_code == 404 and "cannot hand the group to yourself" in r.data.decode()
    assert roles() == {"ann": "owner", "ben": "member"}

    r = client.post(f"/groups/members/{ben_id}/owner", data={"group": str(group)}, follow_redirects=True)
    assert "ben is now the owner of ann; you are a member and may leave it." in r.data.decode()
    assert roles() == {"ann": "member", "ben": "owner"}
    r = client.post(f"/groups/members/{ben_id}/owner", data={"group": str(group)}, follow_redirects=True)
    assert r.status_code == 200 and "ben is the owner already; nothing changed." in r.data.decode()
    assert roles() == {"ann": "member", "ben": "owner"}
    assert "You are its owner." in ben.get("/groups").data.decode()
    assert ben.post("/groups/rename", data={"name": "Ben's dice"}).status_code == 303
    assert client.post("/groups/leave", data={"group": str(group)}).status_code == 303
    assert roles() == {"ben": "owner"}
    assert client.get(f"/games/{gid}").status_code == 404 and ben.get(f"/games/{gid}").status_code == 200


def test_two_hand_overs_at_once_leave_one_owner(app, client, auth):
    """The owner, on two phones, hands the group to ben on one and to cat on the other at the
    same moment: one of them is the owner, never both (nor none)."""
    from .test_once import together
    from .test_sessions import copy_cookies

    gid, ben = ben_joins_ann(app, client, auth)
    path = invite_link(client).split("localhost", 1)[1]
    cat = app.test_client()
    Auth(cat).register("cat")
    assert cat.post(path).status_code == 303
    engine = app.extensions["scorekeeper.engine"]
    with Session(engine) as s:
        ids = [s.exec(select(User).where(User.username == n)).one().id for n in ("ben", "cat")]
        group = s.get(Game, gid).group_id
    phones = [app.test_client() for _ in ids]
    for phone in phones:
        copy_cookies(client, phone)
    answers = together(2, lambda k: phones[k].post(f"/groups/members/{ids[k]}/owner",
                                                   data={"group": str(group)}))
    assert sorted(r.status_code for r in answers) == [303, 403]
    with Session(engine) as s:
        owners = s.exec(select(Membership)
                        .where(Membership.group_id == group, Membership.role == "owner")).all()
    assert len(owners) == 1 and owners[0].user_id in ids
    # The phone that lost is told who became the owner (it said only "Only the group's owner can
    # do that.", though this account was the owner when the page was shown).
    winner = ("ben", "cat")[ids.index(owners[0].user_id)]
    refused = next(r for r in answers if r.status_code == 403).data.decode()
    assert f"its owner is {winner}." in refused


def test_a_removal_and_a_hand_over_of_one_member_at_once_leave_one_owner(app, client, auth):
    """The owner, on two phones, removes ben on one and makes him the owner on the other at the
    same moment: the removal read ben as a member, the hand-over made him the owner, and the
    removal then deleted the owner's row: a group with no owner (found by a review). The same
    with the member leaving as he is made the owner. The group keeps exactly one owner."""
    from .test_once import together
    from .test_sessions import copy_cookies

    auth.register("ann")
    path = invite_link(client).split("localhost", 1)[1]
    engine = app.extensions["scorekeeper.engine"]
    with Session(engine) as s:
        group = s.exec(select(Membership)).one().group_id
    owner = client
    for name in ("ben", "cat", "dan", "eve", "fay", "gus"):  # a race is a matter of timing: several
        other = app.test_client()
        Auth(other).register(name)
        assert other.post(path).status_code == 303
        with Session(engine) as s:
            them = s.exec(select(User).where(User.username == name)).one().id
        phones = [app.test_client() for _ in range(2)]
        for phone in phones:
            copy_cookies(owner, phone)
        if name in ("dan", "eve", "fay"):  # they leave as they are made the owner
            copy_cookies(other, phones[0])
            urls = ["/groups/leave", f"/groups/members/{them}/owner"]
        else:
            urls = [f"/groups/members/{them}/remove", f"/groups/members/{them}/owner"]
        answers = together(2, lambda k: phones[k].post(urls[k], data={"group": str(group)}))
        assert all(not isinstance(r, Exception) and r.status_code < 500 for r in answers), answers
        with Session(engine) as s:
            owners = s.exec(select(Membership).where(Membership.group_id == group,
                                                     Membership.role == "owner")).all()
        assert len(owners) == 1, (name, [r.status_code for r in answers])
        if owners[0].user_id == them:
            owner = other  # the next round's owner
