"""Sessions and login: revocable cookies, password change, login limits, timing, HTTPS headers,
password rules."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlmodel import Session, select

from scorekeeper.models import Entry

from ..conftest import Auth, new_game


def copy_cookies(src, dst) -> None:
    """Give test client ``dst`` every cookie ``src`` holds now (a stolen or backed-up copy)."""
    for cookie in src._cookies.values():
        dst.set_cookie(cookie.key, cookie.value, domain=cookie.domain, path=cookie.path)


def cookie_names(client) -> set[str]:
    return {c.key for c in client._cookies.values()}


def test_logout_ends_copies_of_the_session_and_remember_cookies(app, client, auth):
    auth.register()
    assert {"session", "remember_token"} <= cookie_names(client)
    both, remember_only, session_only = app.test_client(), app.test_client(), app.test_client()
    for other in (both, remember_only, session_only):
        copy_cookies(client, other)
    remember_only.delete_cookie("session")
    session_only.delete_cookie("remember_token")
    for other in (both, remember_only, session_only):
        assert other.get("/settings").status_code == 200  # the copies work before the logout
    assert auth.logout().status_code == 303
    for other in (both, remember_only, session_only):
        r = other.get("/settings")
        assert r.status_code == 302 and "/login" in r.headers["Location"]
    # Logging in again makes a new cookie; the old copies stay dead.
    auth.login()
    assert client.get("/settings").status_code == 200
    fresh = app.test_client()
    copy_cookies(remember_only, fresh)
    assert fresh.get("/settings").status_code == 302


@pytest.fixture
def other_phone(app, client, auth):
    """``(other, game id)``: a second phone's client with a copy of the cookies, taken before
    the account logged out on the first phone."""
    auth.register()
    game_id = new_game(client)
    other = app.test_client()
    copy_cookies(client, other)
    auth.logout()
    return other, game_id


def test_a_phone_logged_out_elsewhere_is_told_why_on_the_login_page(app, other_phone):
    """Logging out ends every phone's session; the other phone's next request (its live poll
    here, an htmx request) goes to the login page, which says why. Someone who was never
    logged in is only asked to log in."""
    other, game_id = other_phone
    r = other.get(f"/games/{game_id}/poll?v=1", headers={"HX-Request": "true"})
    assert r.status_code == 401 and r.headers["HX-Redirect"].endswith("/login")
    page = other.get("/login").data.decode()
    assert "You were logged out: on another phone, or the account&#39;s password was changed." in page
    stranger = app.test_client()
    page = stranger.get("/settings", follow_redirects=True).data.decode()
    assert "Log in to see your games." in page and "You were logged out" not in page


def test_a_newcomer_at_the_apps_address_is_greeted_not_warned(app):
    """The app's own address, opened without an account, leads to the login page saying what
    the app is, with no warning (it said "Log in to see your games." in a warning's colours:
    found by the eleventh review); any other page still says why it asks for a login."""
    newcomer = app.test_client()
    r = newcomer.get("/")
    assert r.status_code == 302 and "/login" in r.headers["Location"]
    page = newcomer.get(r.headers["Location"]).data.decode()
    assert "Keep the score of Mitchi, Mia and Mice and Men played with real dice." in page
    assert "Log in to see your games." not in page and 'class="msg warning"' not in page
    page = newcomer.get("/players", follow_redirects=True).data.decode()
    assert "Log in to see your games." in page


def back_to(login: str) -> str | None:
    """The ``next`` of a login address (the page logging in returns to), or None."""
    found = parse_qs(urlsplit(login).query).get("next")
    assert urlsplit(login).path == "/login"
    return found[0] if found else None


def test_an_entry_sent_after_a_logout_elsewhere_is_said_unsaved_and_login_returns_to_the_game(app, other_phone):
    """The other phone taps an entry after its session ended: the login page says the entry
    was not saved, and logging in brings it back to the game it was on (htmx says which page
    that was; a form sent without htmx, its Referer). Another site's address is not followed."""
    other, game_id = other_phone
    turn = {"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "5", "rolls": "1", "version": "1"}
    here = f"http://localhost/games/{game_id}"
    r = other.post(f"/games/{game_id}/entries", data=turn, headers={"HX-Request": "true", "HX-Current-URL": here})
    assert r.status_code == 401
    login = r.headers["HX-Redirect"]
    assert back_to(login) == f"/games/{game_id}"
    page = other.get(login).data.decode()
    assert "You were logged out" in page and "What you sent just now was not saved" in page
    r = other.post(login, data={"username": "ann", "password": "correct horse"})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{game_id}")
    with Session(app.extensions["scorekeeper.engine"]) as db:  # only the start: nothing was saved
        assert len(db.exec(select(Entry).where(Entry.game_id == game_id)).all()) == 1
    # Without htmx the Referer names the page; a live poll returns to the page it polls for.
    Auth(other).logout()
    r = other.post(f"/games/{game_id}/entries", data=turn, headers={"Referer": here})
    assert r.status_code == 302 and back_to(r.headers["Location"]) == f"/games/{game_id}"
    assert "What you sent just now was not saved" in other.get(r.headers["Location"]).data.decode()
    r = other.get(f"/games/{game_id}/poll?v=1", headers={"HX-Request": "true", "HX-Current-URL": here + "?mode=quick"})
    assert r.status_code == 401 and back_to(r.headers["HX-Redirect"]) == f"/games/{game_id}?mode=quick"
    assert "not saved" not in other.get("/login").data.decode()  # a poll sent nothing
    # A tap and the live poll refused one after the other: the login page says each thing once,
    # and "not saved" comes with the tap's own address, whatever session cookie the poll left.
    login = other.post(f"/games/{game_id}/entries", data=turn,
                       headers={"HX-Request": "true", "HX-Current-URL": here}).headers["HX-Redirect"]
    other.get(f"/games/{game_id}/poll?v=1", headers={"HX-Request": "true", "HX-Current-URL": here})
    page = other.get(login).data.decode()
    assert page.count("Log in to see your games.") == 1 and page.count("What you sent just now was not saved") == 1
    fresh = app.test_client()  # another cookie altogether: the address alone says it
    assert "What you sent just now was not saved" in fresh.get(login).data.decode()
    for foreign in ("http://evil.example/games/1", "javascript:alert(1)", "//evil.example/x"):
        r = other.post(f"/games/{game_id}/entries", data=turn, headers={"HX-Request": "true", "HX-Current-URL": foreign})
        assert r.status_code == 401 and back_to(r.headers["HX-Redirect"]) is None, foreign


def test_logged_out_pages_stay_in_the_accounts_language(app, client, auth):
    """The account chose German on one phone; another phone, logged in before that, is logged
    out from the first: its login page says why in German. A phone that logs in, then out,
    keeps German on its login page too (the browser asks for English throughout)."""
    auth.register()
    game_id = new_game(client)
    other = app.test_client()
    Auth(other).login()
    client.post("/language", data={"language": "de"})
    auth.logout()
    other.get(f"/games/{game_id}/poll?v=1", headers={"HX-Request": "true"})
    page = other.get("/login", headers={"Accept-Language": "en"}).data.decode()
    assert "Du wurdest abgemeldet: auf einem anderen Handy" in page and 'lang="de"' in page
    third = app.test_client()
    Auth(third).login()
    Auth(third).logout()
    page = third.get("/login", headers={"Accept-Language": "en"}).data.decode()
    assert 'lang="de"' in page and "Anmelden" in page


def test_a_copy_taken_before_logout_cannot_post(other_phone):
    thief, game_id = other_phone
    r = thief.post(f"/games/{game_id}/undo", data={"version": "1"})
    assert r.status_code == 302 and "/login" in r.headers["Location"]


def test_password_change_ends_other_sessions_keeps_this_one(app, client, auth):
    auth.register()
    other = app.test_client()
    Auth(other).login()
    assert other.get("/settings").status_code == 200
    page = client.get("/settings").data.decode()
    assert "/account/password" in page
    r = client.post("/account/password", data={"current": "correct horse", "password": "purple hippo lamp",
                                               "confirm": "purple hippo lamp"})
    assert r.status_code == 303, r.data.decode()
    assert client.get("/settings").status_code == 200  # this phone goes on
    assert other.get("/settings").status_code == 302  # the other one is logged out
    auth.logout()
    assert auth.login().status_code == 400  # the old password is gone
    assert auth.login(password="purple hippo lamp").status_code == 303


def test_password_change_refusals(client, auth):
    auth.register()
    r = client.post("/account/password", data={"current": "wrong wrong", "password": "purple hippo lamp",
                                               "confirm": "purple hippo lamp"})
    assert r.status_code == 400 and b"not the current password" in r.data
    r = client.post("/account/password", data={"current": "correct horse", "password": "password123",
                                               "confirm": "password123"})
    assert r.status_code == 400 and b"easiest to guess" in r.data
    # The refusal states the rule; the help under the field is not said again (found by a review).
    assert r.data.count(b"a few unusual words together work well") == 1, r.data.decode()
    assert client.get("/account/password").data.count(b"a few unusual words together work well") == 1
    r = client.post("/account/password", data={"current": "correct horse", "password": "purple hippo lamp",
                                               "confirm": "purple hippo lap"})
    assert r.status_code == 400 and b"The passwords differ" in r.data
    auth.logout()
    assert auth.login().status_code == 303  # nothing changed


@pytest.mark.parametrize("password, why", [
    ("password", b"easiest to guess"),
    ("12345678", b"easiest to guess"),
    ("qwertyuiop", b"easiest to guess"),
    ("iloveyou1", b"easiest to guess"),
    ("margarethe", b"must not contain your name"),
    ("Margarethe-is-great-2026", b"must not contain your name"),
])
def test_common_passwords_and_the_name_are_refused(client, auth, password, why):
    r = auth.register(username="margarethe", password=password)
    assert r.status_code == 400 and why in r.data, r.data.decode()[-1500:]
    assert b"not your name or a common password" in r.data  # says what is valid
    assert client.get("/settings").status_code == 302  # no account, not logged in


def test_a_good_password_is_taken(auth):
    assert auth.register(username="margarethe", password="tulip carriage 9").status_code == 303


def test_old_cookie_ids_without_a_token_are_refused(app, client, auth):
    """A session made before session tokens (``_user_id`` = "1") is no login."""
    auth.register()
    with client.session_transaction() as s:
        s["_user_id"] = s["_user_id"].split(":")[0]
    client.delete_cookie("remember_token")
    assert client.get("/settings").status_code == 302


# --- login limits ------------------------------------------------------------------------------

@pytest.fixture
def limited_app(make_app):
    from scorekeeper.web import limiter

    def make(**config):
        app = make_app(RATELIMIT_ENABLED=True, **config)
        limiter.reset()
        return app

    yield make
    limiter.reset()


def test_login_limit_per_account_whatever_the_address(limited_app):
    app = limited_app(TRUSTED_PROXIES=1)
    Auth(app.test_client()).register()
    client = app.test_client()  # a phone ann never logged in on
    codes = [client.post("/login", data={"username": "ANN", "password": "wrong"},
                         headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code for i in range(11)]
    assert codes[:10] == [400] * 10 and codes[10] == 429
    # Another name from the same addresses is still let in to try.
    r = client.post("/login", data={"username": "bob", "password": "wrong"},
                    headers={"X-Forwarded-For": "10.0.0.1"})
    assert r.status_code == 400


def test_a_stranger_cannot_lock_the_owner_out_of_their_own_phones(limited_app):
    """A phone ann has logged in on (the known-device cookie) is not held back by the per-name
    limit that a stranger's wrong tries keep full (found by the twenty-fifth review: anyone
    could keep anyone logged out); a new phone is, until the minute ends. The cookie is
    signed: a made-up one, or ann's used for another name, exempts nothing."""
    app = limited_app(TRUSTED_PROXIES=1)
    phone = app.test_client()
    Auth(phone).register()
    Auth(phone).logout()
    stranger, new_phone = app.test_client(), app.test_client()
    codes = [stranger.post("/login", data={"username": "ann", "password": "wrong"},
                           headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code for i in range(11)]
    assert codes == [400] * 10 + [429]
    assert Auth(phone).login().status_code == 303  # ann's own phone gets in
    Auth(phone).logout()
    assert Auth(new_phone).login().status_code == 429
    # A cookie the app did not sign, and ann's cookie tried with another name's full limit.
    stranger.set_cookie("known_device", "ann", domain="localhost")
    assert Auth(stranger).login().status_code == 429
    copied = phone.get_cookie("known_device").value
    for i in range(10):
        new_phone.post("/login", data={"username": "bob", "password": "wrong"},
                       headers={"X-Forwarded-For": f"10.0.1.{i}"})
    new_phone.set_cookie("known_device", copied, domain="localhost")
    assert new_phone.post("/login", data={"username": "bob", "password": "wrong"}).status_code == 429
    assert Auth(new_phone).login().status_code == 303  # the copy names ann
    # Logged in as ann, a try for another name counts for that name (found by the twenty-fifth
    # review: it counted for ann's account, so each account of one's own gave ten more tries).
    assert new_phone.post("/login", data={"username": "bob", "password": "wrong"}).status_code == 429
    Auth(app.test_client()).register("cid")
    Auth(new_phone).login()
    codes = [new_phone.post("/login", data={"username": "cid", "password": "wrong"},
                            headers={"X-Forwarded-For": f"10.0.2.{i}"}).status_code for i in range(10)]
    assert codes == [400] * 10
    assert Auth(app.test_client()).login("cid").status_code == 429  # cid's own count is full


def test_a_password_change_ends_every_other_phone_being_known(limited_app):
    """A phone that logged in before the password changed (a lost phone, or one of someone who
    had the password) is no longer let past the per-name limit; the phone that changed it is."""
    app = limited_app(TRUSTED_PROXIES=1)
    mine, lost, stranger = app.test_client(), app.test_client(), app.test_client()
    Auth(mine).register()
    assert Auth(lost).login().status_code == 303
    r = mine.post("/account/password", data={"current": "correct horse", "password": "quiet tangerine oboe",
                                             "confirm": "quiet tangerine oboe"})
    assert r.status_code == 303
    Auth(mine).logout()
    codes = [stranger.post("/login", data={"username": "ann", "password": "wrong"},
                           headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code for i in range(11)]
    assert codes == [400] * 10 + [429]
    assert Auth(lost).login(password="quiet tangerine oboe").status_code == 429
    assert Auth(mine).login(password="quiet tangerine oboe").status_code == 303


def test_only_refused_tries_count_toward_the_login_limits(limited_app):
    """A right password is never counted (auth.refused): a table logging in on many phones
    goes past both limits (10 a name, 30 an address) without a 429, and the refused tries
    still count, before and after."""
    app = limited_app()
    Auth(app.test_client()).register()
    auth = Auth(app.test_client())  # phones ann never logged in on (known_device: not held back)
    assert [auth.login(password="wrong").status_code for _ in range(9)] == [400] * 9
    for _ in range(22):  # 31 tries from one address, 31 with the name "ann", each on a new phone
        phone = Auth(app.test_client())
        assert phone.login().status_code == 303
    assert [auth.login(password="wrong").status_code for _ in range(2)] == [400, 429]


def test_only_refused_password_changes_count_toward_its_limit(limited_app):
    client = limited_app().test_client()
    Auth(client).register(password="tulip carriage 0")

    def change(current, new):
        return client.post("/account/password", data={"current": current, "password": new,
                                                      "confirm": new}).status_code

    assert [change(f"tulip carriage {i}", f"tulip carriage {i + 1}") for i in range(11)] == [303] * 11
    codes = [change("not it at all", "tulip carriage 99") for _ in range(11)]
    assert codes == [400] * 10 + [429]


def test_a_login_past_the_limit_says_when_on_the_login_form(limited_app):
    client = limited_app().test_client()
    for _ in range(10):
        client.post("/login", data={"username": "Bea", "password": "wrong"})
    r = client.post("/login", data={"username": "Bea", "password": "wrong"})
    assert r.status_code == 429
    assert 1 <= int(r.headers["Retry-After"]) <= 61  # the minute's window ends by then (+1: flask-limiter)
    page = r.data.decode()
    # Which limit, that the password was not checked (the owner must not think it wrong), and when.
    said = re.search(r"Logging in as Bea is paused for (\d+) s after many wrong passwords: this try&#39;s "
                     r"password was not checked, so it may be right\.", page)
    assert said and 1 <= int(said.group(1)) <= 61, page
    assert 'name="password"' in page and 'value="Bea"' in page  # the form again, the name kept
    # Any other limited answer says when, too: the htmx login and the password change.
    r = client.post("/login", data={"username": "Bea", "password": "wrong"}, headers={"HX-Request": "true"})
    assert r.status_code == 429 and 1 <= int(r.headers["Retry-After"]) <= 61


def test_login_limit_per_address_whatever_the_name(limited_app):
    client = limited_app().test_client()
    answers = [client.post("/login", data={"username": f"user{i}", "password": "wrong"}) for i in range(31)]
    assert [r.status_code for r in answers] == [400] * 30 + [429]
    assert ("Logging in from this network is paused for" in answers[30].data.decode()
            and "password was not checked" in answers[30].data.decode())


def test_forged_forwarded_for_does_not_bypass_the_limit(limited_app):
    """Behind one trusted proxy the address is the right-most X-Forwarded-For entry (the one the
    proxy appended); whatever a client puts before it changes nothing."""
    client = limited_app(TRUSTED_PROXIES=1).test_client()
    codes = []
    for i in range(31):
        forged = f"192.0.2.{i}, 198.51.100.7"  # a made-up address, then what the proxy saw
        codes.append(client.post("/login", data={"username": f"user{i}", "password": "wrong"},
                                 headers={"X-Forwarded-For": forged}).status_code)
    assert codes[:30] == [400] * 30 and codes[30] == 429
    # Another client behind the proxy is not locked out.
    r = client.post("/login", data={"username": "someone", "password": "wrong"},
                    headers={"X-Forwarded-For": "192.0.2.1, 203.0.113.9"})
    assert r.status_code == 400


def test_unknown_names_cost_a_hash_check_like_known_ones(app, client, auth, monkeypatch):
    import scorekeeper.auth as auth_module

    auth.register()
    auth.logout()
    calls = []
    real = auth_module.check_password_hash
    monkeypatch.setattr(auth_module, "check_password_hash", lambda h, p: calls.append(h) or real(h, p))
    assert auth.login(username="ann", password="wrong one").status_code == 400
    assert auth.login(username="nobody", password="wrong one").status_code == 400
    assert len(calls) == 2 and calls[0] != calls[1]
    assert calls[1].split("$")[0] == calls[0].split("$")[0]  # the same method and cost
    monkeypatch.undo()

    def timed(name):
        start = time.perf_counter()
        auth.login(username=name, password="wrong one")
        return time.perf_counter() - start

    known = min(timed("ann") for _ in range(3))
    unknown = min(timed("nobody") for _ in range(3))
    assert unknown > known / 3, (known, unknown)  # was 10 ms against 300 ms


# --- HTTPS ---------------------------------------------------------------------------------------

HTTPS = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}


def test_behind_https_cookies_are_secure_and_hsts_is_sent(make_app):
    app = make_app(TRUSTED_PROXIES=1)
    client = app.test_client()
    r = client.post("/register", data={"username": "ann", "password": "correct horse",
                                       "confirm": "correct horse"}, headers=HTTPS)
    assert r.status_code == 303
    cookies = {c.split("=")[0]: c for c in r.headers.getlist("Set-Cookie")}
    assert {"session", "remember_token"} <= set(cookies)
    for cookie in cookies.values():
        assert "; Secure" in cookie and "HttpOnly" in cookie
    assert r.headers["Strict-Transport-Security"].startswith("max-age=")
    page = client.get("/settings", headers=HTTPS)
    assert page.status_code == 200 and "Strict-Transport-Security" in page.headers


def test_over_plain_http_no_secure_flag_and_no_hsts(client):
    r = client.post("/register", data={"username": "ann", "password": "correct horse",
                                       "confirm": "correct horse"})
    assert r.status_code == 303
    assert not any("Secure" in c for c in r.headers.getlist("Set-Cookie"))
    assert "Strict-Transport-Security" not in r.headers


def test_forwarded_proto_is_ignored_without_trusted_proxies(client):
    r = client.get("/login", headers=HTTPS)
    assert "Strict-Transport-Security" not in r.headers


def test_pages_send_permissions_and_opener_policies(client, auth):
    auth.register()
    game_id = new_game(client)
    for url in ("/login", "/", f"/games/{game_id}", "/settings", "/sw.js", "/no-such-page"):
        r = client.get(url)
        assert "camera=()" in r.headers["Permissions-Policy"], url
        assert r.headers["Cross-Origin-Opener-Policy"] == "same-origin", url


@pytest.mark.skipif(bool(__import__("os").environ.get("TEST_DATABASE_URL")),
                    reason="builds its own SQLite file at revision content_hash")
def test_migration_gives_every_account_its_own_token(tmp_path):
    from sqlalchemy import create_engine, text

    from scorekeeper.db import migrate

    url = "sqlite:///" + str(tmp_path / "old.sqlite3")
    migrate(url, "content_hash")
    engine = create_engine(url)
    with engine.begin() as conn:
        for i, name in enumerate(("ann", "bob"), 1):
            conn.execute(text("INSERT INTO user (id, username, password_hash, created_at) "
                              "VALUES (:id, :name, 'x', '2026-11-01 10:00:00')"), {"id": i, "name": name})
    migrate(url)
    with engine.connect() as conn:
        tokens = [t for (t,) in conn.execute(text("SELECT session_token FROM user ORDER BY id"))]
        assert conn.execute(text("SELECT count(*) FROM once_token")).scalar() == 0
        indexes = {n for (n,) in conn.execute(text("SELECT name FROM sqlite_master WHERE tbl_name = 'user'"))}
        assert "uq_user_username_lower" in indexes  # "Ann" and "ann" stay one name
    assert len(set(tokens)) == 2 and all(len(t) >= 40 for t in tokens)
    engine.dispose()


def test_a_long_password_is_judged_not_a_server_error(client, auth):
    """zxcvbn refuses to rate more than 72 characters (ValueError): the rules judge the first 72,
    so a 100-character password is taken or refused with a message, never a 500."""
    long_good = "tulip carriage velvet " * 4 + "harbour"
    assert auth.register(username="ann", password=long_good[:100]).status_code == 303
    r = client.post("/account/password", data={"current": long_good[:100], "password": "9" * 150,
                                               "confirm": "9" * 150})
    assert r.status_code == 400 and b"easiest to guess" in r.data


def test_the_cookies_serializer_is_kept_and_follows_a_new_secret_key(app, client, auth):
    """The session cookie's serializer is made once (not twice a request) but anew with a new
    secret key or fallbacks: a cookie signed with the old key is then refused, and taken again
    once the old key is among the fallbacks (a key rotation)."""
    auth.register()
    client.delete_cookie("remember_token")  # the session cookie alone says who is logged in
    assert client.get("/settings").status_code == 200
    kept = app.session_interface.get_signing_serializer(app)
    assert client.get("/settings").status_code == 200
    assert app.session_interface.get_signing_serializer(app) is kept
    refused, rotated = app.test_client(), app.test_client()  # copies of the old key's cookie
    copy_cookies(client, refused)
    copy_cookies(client, rotated)
    old = app.secret_key
    app.secret_key = app.config["SECRET_KEY"] = "a-new-secret"
    assert refused.get("/settings").status_code == 302  # the old cookie no longer opens the account
    app.config["SECRET_KEY_FALLBACKS"] = [old]
    assert rotated.get("/settings").status_code == 200  # the old key, now a fallback


def test_a_session_cookie_is_checked_once_and_remembered_only_while_it_is_valid(app, client, auth, monkeypatch):
    """The session cookie's signature is checked once per cookie, then remembered
    (web.SessionInterface.open_session, docs/speed.md §Entry path): a remembered cookie is not
    checked again, but one past the session's maximum age is refused as Flask refuses it, a
    cookie changed by one character is checked (and refused), and each request gets its own copy
    of the data."""
    from itsdangerous import URLSafeTimedSerializer

    auth.register()
    client.delete_cookie("remember_token")  # the session cookie alone says who is logged in
    assert client.get("/settings").status_code == 200
    cookie = client.get_cookie("session").value
    serializer = app.session_interface.get_signing_serializer(app)

    def opened(value: str):
        with app.test_request_context("/settings", headers={"Cookie": f"session={value}"}):
            return app.session_interface.open_session(app, __import__("flask").request)

    first = opened(cookie)  # checked, if the last answer had set it anew
    checked = []
    real_loads = URLSafeTimedSerializer.loads
    monkeypatch.setattr(URLSafeTimedSerializer, "loads",
                        lambda self, *a, **k: checked.append(self) or real_loads(self, *a, **k))
    second = opened(cookie)
    assert serializer not in checked  # remembered: not checked again
    assert dict(first) == dict(second) and "_user_id" in first
    first["group_id"] = -1
    assert opened(cookie)["group_id"] != -1  # a request's changes stay its own

    # One character of the signature changed: its first, which carries six bits of it (the last
    # carries four and padding, so "A" for "B" there can decode to the same signature).
    signed, _, signature = cookie.rpartition(".")
    changed = f"{signed}.{'A' if signature[0] != 'A' else 'B'}{signature[1:]}"
    assert dict(opened(changed)) == {} and serializer in checked

    real_time = time.time
    lifetime = app.permanent_session_lifetime.total_seconds()
    monkeypatch.setattr(time, "time", lambda: real_time() + lifetime + 60)
    assert dict(opened(cookie)) == {}  # past the maximum age: refused though remembered
    assert client.get("/settings").status_code == 302
