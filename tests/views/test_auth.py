"""Accounts, ownership, CSRF and the expired-login redirect."""

from __future__ import annotations

from ..conftest import HX, new_game


def test_register_login_logout(client, auth):
    assert auth.register().status_code == 303
    assert client.get("/").status_code == 200
    out = auth.logout()
    assert out.status_code == 303
    page = client.get(out.headers["Location"]).data.decode()  # the phone that logged out is told so
    assert "You are logged out, on this phone and on every other one" in page
    assert "You are logged out" not in client.get("/login").data.decode()  # once
    r = client.get("/")
    assert r.status_code == 302 and "/login" in r.headers["Location"]
    assert auth.login().status_code == 303
    assert client.get("/").status_code == 200


def test_the_login_page_says_who_this_phone_is_logged_in_as(client, auth):
    """Opened while logged in (a second player at the table, on someone's phone), the login page
    says as whom, and that logging in there switches accounts; it does."""
    assert "logged in as" not in client.get("/login").data.decode()  # logged out: only the form
    auth.register(username="ann")
    auth.logout()
    auth.register(username="ben")
    auth.logout()
    auth.login(username="ann")
    page = client.get("/login").data.decode()
    assert "This phone is logged in as ann already. Logging in here switches it to another account." in page
    assert auth.login(username="ben").status_code == 303
    assert "This phone is logged in as ben already." in client.get("/login").data.decode()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "de"
    assert "Dieses Handy ist schon als ben angemeldet." in client.get("/login").data.decode()


def test_the_sign_up_page_says_who_this_phone_is_logged_in_as(client, auth):
    """Opened while logged in, the sign-up page says as whom, and that making an account there
    switches the phone to it (as the login page does; found by a playtest); it does."""
    assert "logged in as" not in client.get("/register").data.decode()  # logged out: only the form
    auth.register(username="ann")
    page = client.get("/register").data.decode()
    assert ("This phone is logged in as ann already. Making an account here switches it to the new "
            "account.") in page
    assert auth.register(username="ben").status_code == 303
    assert "This phone is logged in as ben already." in client.get("/register").data.decode()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "de"
    assert "Dieses Handy ist schon als ben angemeldet." in client.get("/register").data.decode()


def test_wrong_password_and_taken_name(client, auth):
    auth.register()
    auth.logout()
    r = auth.login(password="wrong one!")
    assert r.status_code == 400 and b"Wrong name or password" in r.data
    r = auth.register(username="ANN")
    assert r.status_code == 400 and b"taken" in r.data


def test_password_is_hashed(app, client, auth):
    from sqlmodel import Session, select

    from scorekeeper.models import User

    auth.register(password="correct horse")
    with Session(app.extensions["scorekeeper.engine"]) as s:
        user = s.exec(select(User)).one()
    assert "correct horse" not in user.password_hash
    assert user.password_hash.startswith("scrypt:1024:8:1$")  # the tests' setting (conftest.py)


def test_an_app_without_the_setting_hashes_as_werkzeug_does_by_default(make_app):
    """The tests hash cheaply (conftest.py); an app not told otherwise hashes with werkzeug's own
    default, scrypt with n = 2**15, and still logs in an account whose hash is of another method,
    and refuses a wrong password and an unknown name."""
    from sqlmodel import Session, select

    from scorekeeper.models import User

    app = make_app()
    del app.config["PASSWORD_HASH_METHOD"]
    client = app.test_client()
    assert client.post("/register", data={"username": "ann", "password": "correct horse",
                                          "confirm": "correct horse"}).status_code == 303
    with Session(app.extensions["scorekeeper.engine"]) as s:
        assert s.exec(select(User)).one().password_hash.startswith("scrypt:32768:8:1$")
    client.post("/logout")
    cheap = make_app()  # the same database, hashed cheaply
    other = cheap.test_client()
    other.post("/register", data={"username": "ben", "password": "correct horse", "confirm": "correct horse"})
    other.post("/logout")
    assert client.post("/login", data={"username": "ben", "password": "correct horse"}).status_code == 303
    client.post("/logout")
    for name, password in (("ben", "wrong horse"), ("cat", "correct horse")):
        r = client.post("/login", data={"username": name, "password": password})
        assert r.status_code == 400 and "Wrong name or password" in r.text
    app.extensions["scorekeeper.engine"].dispose()
    cheap.extensions["scorekeeper.engine"].dispose()


def test_another_account_gets_404(client, auth):
    auth.register("ann")
    game_id = new_game(client)
    auth.logout()
    auth.register("bob")
    assert client.get(f"/games/{game_id}").status_code == 404
    r = client.post(f"/games/{game_id}/entries",
                    data={"version": "0", "type": "turn", "player": "Ann", "hand": ["3", "1"], "rolls": "1"})
    assert r.status_code == 404
    assert client.get(f"/games/{game_id}/record.json").status_code == 404
    assert client.post(f"/games/{game_id}/undo", data={"version": "0"}).status_code == 404


def test_expired_login_during_htmx_redirects_whole_page(client, auth):
    auth.register()
    game_id = new_game(client)
    auth.logout()
    r = client.post(f"/games/{game_id}/entries", data={"version": "0", "type": "turn"}, headers=HX)
    assert r.status_code == 401
    assert r.headers["HX-Redirect"].startswith("/login")
    assert b"<form" not in r.data  # no login form pasted into a panel


def test_csrf_required_on_every_post(make_app):
    app = make_app(WTF_CSRF_ENABLED=True)
    client = app.test_client()
    r = client.post("/register", data={"username": "ann", "password": "correct horse", "confirm": "correct horse"})
    assert r.status_code == 400
    assert b"security token" in r.data
    # htmx requests too: the message goes to the message area, not over a panel.
    r = client.post("/register", data={"username": "ann"}, headers=HX)
    assert r.status_code == 400 and r.headers["HX-Retarget"] == "#messages"
    # With the token from the page (as the browser sends it in X-CSRFToken), it works.
    import re

    page = client.get("/register").data.decode()
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
    r = client.post("/register", data={"username": "ann", "password": "correct horse",
                                       "confirm": "correct horse"}, headers={"X-CSRFToken": token})
    assert r.status_code == 303


def test_secret_key_generated_once_in_instance(make_app, monkeypatch, tmp_path):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    from scorekeeper import config

    key1 = config.load_secret_key(str(tmp_path))
    key2 = config.load_secret_key(str(tmp_path))
    assert key1 == key2 and len(key1) >= 32
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


def test_a_trailing_space_from_a_phone_keyboard_is_not_part_of_the_name(client, auth):
    r = client.post("/register", data={"username": "alice ", "password": "correct horse",
                                       "confirm": "correct horse"})
    assert r.status_code == 303
    auth.logout()
    assert client.post("/login", data={"username": " alice ", "password": "correct horse"}).status_code == 303


def test_a_logged_out_visit_goes_to_the_login_and_then_back_to_the_same_page(client, auth):
    auth.register()
    gid = new_game(client)
    client.post("/logout")
    r = client.get(f"/games/{gid}")
    assert r.status_code == 302 and r.headers["Location"] == f"/login?next=/games/{gid}"  # no stray "?"
    r = client.get(f"/games/{gid}?mode=trail")
    assert r.headers["Location"] == f"/login?next=/games/{gid}?mode%3Dtrail"


def test_the_register_page_says_the_rules_before_a_refusal_and_once_after(client):
    page = client.get("/register").data.decode()
    assert ("2 to 40 characters: letters a-z without umlauts or accents (capitals too, but Ann and ann are one "
            "name), digits") in page
    assert "8 characters or more, not your name or a common password" in page
    r = client.post("/register", data={"username": "ann", "password": "password1", "confirm": "password1"})
    page = r.data.decode()
    assert r.status_code == 400 and "among the easiest to guess" in page
    assert page.count("8 characters or more, not your name or a common password") == 1  # the refusal says it
    r = client.post("/register", data={"username": "<b>x</b>", "password": "correct horse", "confirm": "correct horse"})
    page = r.data.decode()
    assert r.status_code == 400 and page.count("letters a-z, digits, dots, dashes or underscores") == 1
    for data, said in (({"username": "a", "password": "correct horse"}, "A name has 2 to 40 characters."),
                       ({"username": "ann", "password": "short"}, "A password has 8 to 200 characters.")):
        r = client.post("/register", data={**data, "confirm": data["password"]})
        assert r.status_code == 400 and said in r.data.decode() and "Field must be" not in r.data.decode()


def test_the_register_page_ties_its_rules_and_errors_to_the_fields_and_focuses_the_first_error(client):
    """A screen reader hears a name's and a password's rules as the field is focused (they were
    lines of their own, tied to nothing), and a refused page puts the focus on the first field in
    error, not on the page's body (a playtest with the keyboard only)."""
    import re

    def tag(page: str, field: str) -> str:
        return re.search(r'<input[^>]*\bid="%s"[^>]*>' % field, page).group(0)

    page = client.get("/register").data.decode()
    for field in ("username", "password"):
        assert f'aria-describedby="{field}-help"' in tag(page, field)
        assert re.search(r'<p class="help" id="%s-help">[^<]+</p>' % field, page)
    assert "autofocus" not in page
    r = client.post("/register", data={"username": "<b>x</b>", "password": "short", "confirm": "short"})
    page = r.data.decode()
    assert r.status_code == 400
    assert re.findall(r'<input[^>]*\bautofocus\b[^>]*\bid="([^"]+)"', page)[0] == "username"
    for field in ("username", "password"):
        assert 'aria-invalid="true"' in tag(page, field) and f'aria-describedby="{field}-err"' in tag(page, field)
    assert 'id="username-help"' not in page  # the refusal says the rules instead


def test_a_new_password_field_cuts_nothing_and_a_long_one_is_told_the_limit(client, auth):
    """A new password's field has no ``maxlength``: the browser cut a pasted password of 3,004
    characters to 200 without a word, "again" kept it whole, and the answer was "The passwords
    differ." (a playtest). The server refuses it naming the 200, and nothing changes."""
    import re

    long = "tulip carriage " * 200
    for path in ("/register", "/settings"):
        if path == "/settings":
            auth.register()
        page = client.get(path).data.decode()
        for tag in re.findall(r'<input[^>]*\bname="(?:password|confirm)"[^>]*>', page):
            assert "maxlength" not in tag, tag
    r = client.post("/account/password", data={"current": "correct horse", "password": long, "confirm": long})
    assert r.status_code == 400 and "A password has 8 to 200 characters." in r.data.decode()
    assert "The passwords differ" not in r.data.decode()
    auth.logout()
    assert auth.login().status_code == 303  # the password is as it was
    auth.logout()
    r = client.post("/register", data={"username": "ben", "password": long, "confirm": long})
    assert r.status_code == 400 and "A password has 8 to 200 characters." in r.data.decode()
