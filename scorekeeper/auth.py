"""Accounts: register, log in, log out, change the password (Flask-Login; Werkzeug password hashes).

Every cookie that keeps someone logged in (the session's ``_user_id`` and the "stay logged in"
remember cookie) holds ``User.get_id()``, ``"<user id>:<session token>"``. The loader accepts it
only while the token is the account's current one; logout and a password change replace the
token, which ends every copy of those cookies, on every phone.
"""

from __future__ import annotations

import hmac
import re
import unicodedata
from urllib.parse import urlsplit

from anyascii import anyascii
from sqlalchemy import func
from sqlmodel import select
from flask import Blueprint, current_app, flash, g, jsonify, redirect, render_template, request, url_for
from flask import session as cookie
from flask_limiter.util import get_remote_address
from flask_login import LoginManager, UserMixin, current_user, login_required, login_user, logout_user
from flask_wtf import FlaskForm
from flask_wtf.csrf import generate_csrf
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy.exc import IntegrityError
from werkzeug.security import check_password_hash, generate_password_hash
from wtforms import BooleanField, PasswordField, StringField
from wtforms.validators import EqualTo, InputRequired, Length, ValidationError

from flask_babel import gettext as _

from .db import get_session
from .i18n import _l
from .htmx import client_redirect, is_htmx
from .models import User, new_session_token
from .services import groups, once
from .web import (limiter, message_response, seconds_to_wait, too_many_message, too_many_page,
                  too_many_response)

bp = Blueprint("auth", __name__)
login_manager = LoginManager()


def _trim(value):
    return value.strip() if isinstance(value, str) else value


class LoginForm(FlaskForm):
    username = StringField(_l("Name"), validators=[InputRequired(), Length(max=40)], filters=[_trim],
                           render_kw={"autocomplete": "username", "autocapitalize": "none"})
    password = PasswordField(_l("Password"), validators=[InputRequired()],
                             render_kw={"autocomplete": "current-password"})
    remember = BooleanField(_l("Stay logged in on this phone"), default=True)


#: What a good password is, under the password fields (in the request's language).
PASSWORD_LENGTH = _l("A password has 8 to 200 characters.")
PASSWORD_RULE = _l("8 characters or more, not your name or a common password "
                   "(a few unusual words together work well)")


def password_problem(password: str, name: str) -> str | None:
    """Why ``password`` is refused for the account ``name``, or None if it is good enough.

    Refused: equal to the name or containing it (names of 3 characters or more), and passwords
    zxcvbn rates below 2 of 4 (fewer than about 10^6 guesses: the commonest passwords, keyboard
    runs, a common word with a year). The length is checked by the form (8 to 200).
    The answer is our own sentence in the request's language (zxcvbn's feedback is English and
    is not shown).
    """
    from zxcvbn import zxcvbn

    folded, key = password.casefold(), name.strip().casefold()
    if key and (folded == key or (len(key) >= 3 and key in folded)):
        return _("The password must not contain your name. Use 8 characters or more, not your name or "
                 "a common password (a few unusual words together work well).")
    if zxcvbn(password[:72], user_inputs=[key] if key else [])["score"] < 2:  # zxcvbn 4.5 refuses longer
        return _("That password is among the easiest to guess. Use 8 characters or more, not your name "
                 "or a common password (a few unusual words together work well).")
    return None


def good_password(name_of):
    """A WTForms validator refusing what :func:`password_problem` refuses; ``name_of(form)``
    gives the account's name."""

    def check(form, field):
        if field.data and len(field.data) >= 8:
            problem = password_problem(field.data, name_of(form) or "")
            if problem:
                raise ValidationError(problem)

    return check


#: The letters an account's name may hold; SQLite's ``lower()``, which keeps names unique
#: whatever their case (``uq_user_username_lower``), lowers these only.
ACCOUNT_NAME = re.compile(r"^[A-Za-z0-9._\-]+$")
_SPELLED_OUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"})


def spelled_in_a_to_z(name: str) -> str | None:
    """``name`` in the letters an account's name may hold, as German spells them without umlauts
    (Jörg: Joerg; ß: ss), other Latin letters as anyascii writes them (Zoë: Zoe, Łukasz:
    Lukasz), spaces made dots; None for a name with letters of another script (no spelling of it
    is the person's to guess) or if anything else is left."""
    if any(c.isalpha() and not unicodedata.name(c, "").startswith("LATIN") for c in name):
        return None
    plain = anyascii(name.translate(_SPELLED_OUT)).replace(" ", ".")
    return plain if ACCOUNT_NAME.match(plain) and 2 <= len(plain) <= 40 else None


def account_name(form, field) -> None:
    """An account's name holds letters a-z, digits, dots, dashes and underscores only; a refusal
    of one with umlauts or accents says what it could be instead."""
    if field.data and not ACCOUNT_NAME.match(field.data):
        instead = spelled_in_a_to_z(field.data)
        if instead:
            raise ValidationError(_("Use letters a-z, digits, dots, dashes or underscores: %(name)s, for "
                                    "instance.", name=instead))
        raise ValidationError(_("Use letters a-z, digits, dots, dashes or underscores."))


#: A new password's field: no ``maxlength`` (WTForms sets one from ``Length``), which cut a pasted
#: password of 3,000 characters to 200 without a word while "again" kept it whole, so that the
#: answer was "The passwords differ." (a playtest); the server's answer names the 200 instead.
NEW_PASSWORD = {"autocomplete": "new-password", "maxlength": False}


class RegisterForm(FlaskForm):
    username = StringField(
        _l("Name"),
        filters=[_trim],  # a phone keyboard's trailing space is not part of the name
        validators=[
            InputRequired(),
            Length(min=2, max=40, message=_l("A name has 2 to 40 characters.")),
            account_name,
        ],
        render_kw={"autocomplete": "username", "autocapitalize": "none"},
        description=_l("2 to 40 characters: letters a-z without umlauts or accents (capitals too, but Ann and "
                       "ann are one name), digits, dots, dashes or underscores."),
    )
    password = PasswordField(_l("Password"),
                             validators=[InputRequired(), Length(min=8, max=200, message=PASSWORD_LENGTH),
                                         good_password(lambda form: form.username.data)],
                             render_kw=NEW_PASSWORD, description=PASSWORD_RULE)
    confirm = PasswordField(_l("Password again"),
                            validators=[InputRequired(), EqualTo("password", _l("The passwords differ."))],
                            render_kw={"autocomplete": "new-password"})


class PasswordForm(FlaskForm):
    current = PasswordField(_l("Current password"), validators=[InputRequired(), Length(max=200)],
                            render_kw={"autocomplete": "current-password"})
    password = PasswordField(_l("New password"),
                             validators=[InputRequired(), Length(min=8, max=200, message=PASSWORD_LENGTH),
                                         good_password(lambda form: current_user.username)],
                             render_kw=NEW_PASSWORD, description=PASSWORD_RULE)
    confirm = PasswordField(_l("New password again"),
                            validators=[InputRequired(), EqualTo("password", _l("The passwords differ."))],
                            render_kw={"autocomplete": "new-password"})


class Account(UserMixin):
    """The signed-in account as a request sees it (``current_user``): ``id``, ``username``,
    ``language`` and ``session_token``, read as plain columns (no ORM object: every request
    loads its account, and the ORM tripled the cost). A page that changes the account loads
    its row: ``session.get(User, current_user.id)``."""

    def __init__(self, id: int, username: str, language: str | None, session_token: str):
        self.id, self.username, self.language, self.session_token = id, username, language, session_token

    def get_id(self) -> str:
        """Flask-Login's id for the cookies, as :meth:`User.get_id`."""
        return f"{self.id}:{self.session_token}"


def init_app(app) -> None:
    from .web import secure_cookies

    # Registered before Flask-Login's own handler, so it runs after it and sees its cookie.
    app.after_request(secure_cookies)
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = _l("Log in to see your games.")

    @login_manager.user_loader
    def _load(cookie_id: str):
        """The account of a cookie's ``"<user id>:<session token>"``, None if the token was replaced."""
        user_id, sep, token = cookie_id.partition(":")
        if not sep or not user_id.isdigit() or int(user_id) >= 2**31:
            return None
        # On a game's routes the game is read in the same statement (groups.load_account).
        row = groups.load_account(get_session(), int(user_id))
        if row is None or not hmac.compare_digest(row.session_token.encode(), token.encode()):
            if row is not None:  # logged out elsewhere, or a new password: say so, in the account's language
                g.session_ended = True
                _keep_language(row.language)
            return None
        return Account(*row[:len(groups.ACCOUNT)])

    @login_manager.unauthorized_handler
    def _unauthorized():
        # An entry tapped, a form sent: the login page says it was not kept. Said in its address, not
        # a flashed message: the live poll, refused at the same moment, answers with a session
        # cookie of its own, which could arrive last and drop that message.
        sent = request.method != "GET"
        target = url_for("auth.login", next=_page_to_return_to(), unsaved=1 if sent else None)
        if g.get("session_ended"):
            _say_once(_("You were logged out: on another phone, or the account's password was changed. "
                        "Log in again."))
        elif request.endpoint != "index":  # the app's own address greets a newcomer without a warning
            _say_once(str(login_manager.login_message))
        if is_htmx():
            # Reload the whole page on the login form, never paste it into a panel.
            return client_redirect(target, status=401)
        return redirect(target)


def _say_once(message: str) -> None:
    """Flash ``message`` unless it waits to be shown already: a tap and the live poll refused
    together, one after the other, would show it twice on the login page."""
    # Flask keeps the messages waiting to be shown in the session, as (category, text) pairs.
    if message not in (text for _category, text in cookie.get("_flashes", ())):
        flash(message, "warning")  # not a success: shown as a warning


def _page_to_return_to() -> str | None:
    """The page to come back to after logging in: the address asked for (a GET), else the page
    the request came from (htmx's ``HX-Current-URL``, else the browser's ``Referer``) when it is
    this site's; None if none. A live poll comes back to its game's page, not to the poll."""
    if request.method == "GET" and not is_htmx():
        return request.full_path.removesuffix("?")  # full_path ends in "?" without a query string
    came_from = urlsplit(request.headers.get("HX-Current-URL") or request.referrer or "")
    if came_from.netloc != request.host or not came_from.path.startswith("/"):
        return None
    return came_from.path + (f"?{came_from.query}" if came_from.query else "")


def _keep_language(code: str | None) -> None:
    """Keep the account's language (if it chose one) in the session, so the pages shown once
    logged out (the login page after a logout, here or on another phone) stay in it."""
    from flask_babel import refresh

    from .i18n import valid_language

    if valid_language(code) and cookie.get("lang") != code:
        cookie["lang"] = code
        refresh()  # this request's language is looked up again


def _language_at_login(user: User) -> None:
    """The language a person chose on the login page, logged out, just before logging in is
    theirs from now on (kept with the account: they asked for it last); without such a choice,
    the account's language is kept for the pages shown once logged out (:func:`_keep_language`).
    The account's language came back at login over the one just chosen (found by a review)."""
    from .i18n import valid_language

    chosen = cookie.get("lang")
    if cookie.pop("lang_chosen", False) and valid_language(chosen) and chosen != user.language:
        user.language = chosen
        get_session().commit()
        return
    _keep_language(user.language)


def find_user(name: str) -> User | None:
    """The account named ``name``, case-insensitively."""
    stmt = select(User).where(func.lower(User.username) == name.lower())
    return get_session().exec(stmt).first()


def _browser_timezone(name: str | None) -> str:
    """The browser's IANA zone from the register form if it is a known zone, else "UTC"."""
    from .services.history import valid_timezone

    name = (name or "").strip()
    return name if valid_timezone(name) else "UTC"


def safe_next(target: str | None) -> str:
    """``target`` if it is a path on this site (no scheme, no host, not ``//``), else the games list:
    a login link cannot send anyone to another site."""
    if target and not urlsplit(target).netloc and target.startswith("/") and not target.startswith("//"):
        return target
    return url_for("index")


def _address_key() -> str:
    """The login limits' per-address key: the client's address (the right-most address the
    trusted proxies vouch for, see ``TRUSTED_PROXIES``)."""
    return "address:" + (get_remote_address() or "")


def _as_counted(name: str) -> str:
    """An account name as the limits and the device cookie count it (case-insensitive)."""
    return name.strip().casefold()[:40]


def _tried_name() -> str:
    """The account name a login form tried, as the limits count it."""
    return _as_counted(request.form.get("username") or "")


def _name_key() -> str:
    """The login's per-account key: the name tried (case-insensitive), whoever is logged in
    on the phone (a login sent while logged in to another account counts for the name tried)."""
    return "name:" + _tried_name()


def _account_key() -> str:
    """The password change's per-account key: the logged-in account (a request without one
    is sent to the login page before it counts)."""
    return f"account:{current_user.id}" if current_user.is_authenticated else "account:none"


#: 10 tries a minute per account name, 30 a minute per address (a shared address, such as a
#: school's proxy, is not locked out by one person).
ACCOUNT_LIMIT, ADDRESS_LIMIT = "10 per minute", "30 per minute"

#: The known-device cookie: the accounts that have logged in on this phone (signed, and
#: naming each by a keyed digest of its name and password hash, not by its name). A login from
#: such a phone is not held back by its account's per-name limit, which a stranger's wrong tries
#: could otherwise keep full to lock the account's owner out (the per-address limit still counts
#: it). A password change ends it on every phone: a phone that knew the old password (a lost
#: one, or a stranger's who had it) is held back like any other.
DEVICE_COOKIE = "known_device"
DEVICE_DAYS = 400
DEVICE_ACCOUNTS = 8  # the most recent kept: a shared phone at the table


def _device_serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.secret_key, salt="known-device")


def _device_mark(user: User) -> str:
    """An account as the device cookie keeps it: a digest of its name (as :func:`_as_counted`
    gives it) and its password hash, which a password change replaces."""
    key = str(current_app.secret_key).encode()
    said = b"known-device:" + _as_counted(user.username).encode() + b"\0" + user.password_hash.encode()
    return hmac.new(key, said, "sha256").hexdigest()[:24]


def _known_marks() -> list[str]:
    """The accounts the request's device cookie names (none if it is missing or not ours)."""
    raw = request.cookies.get(DEVICE_COOKIE)
    if not raw:
        return []
    try:
        marks = _device_serializer().loads(raw)
    except BadSignature:
        return []
    return [m for m in marks if isinstance(m, str)] if isinstance(marks, list) else []


def known_device() -> bool:
    """Whether the account of the name tried has logged in on this phone since its password was
    last set: flask-limiter's ``exempt_when`` of the login's per-name limit
    (:data:`DEVICE_COOKIE`). The account is read only when the phone has such a cookie."""
    marks = _known_marks()
    if not marks:
        return False
    user = find_user((request.form.get("username") or "").strip())  # as the login finds it
    return user is not None and _device_mark(user) in marks


def remember_device(response, user: User):
    """Add ``user`` to the answer's device cookie (the most recent :data:`DEVICE_ACCOUNTS`);
    returns ``response``."""
    mark = _device_mark(user)
    marks = [m for m in _known_marks() if m != mark][-(DEVICE_ACCOUNTS - 1):] + [mark]
    response.set_cookie(DEVICE_COOKIE, _device_serializer().dumps(marks), max_age=DEVICE_DAYS * 86400,
                        path=request.script_root or "/", httponly=True, samesite="Lax")
    return response


def refused(response) -> bool:
    """Whether a try counts toward the login and password-change limits: only a refused one
    does (a wrong password, a form with errors: 400). A right password adds nothing, so a
    table logging in on six phones in a minute, or one person on three, is never held back
    (README, ``TRUSTED_PROXIES``).

    flask-limiter's ``deduct_when``: before the view it checks that one more try is left,
    after it counts this one if ``refused(response)``."""
    return response.status_code >= 400

#: A hash of no one's password per hashing method, checked when a name is unknown.
_dummy_hash: dict[str, str] = {}
#: werkzeug's own default: scrypt with n = 2**15, r = 8, p = 1 (some 0.1 s a hash here).
PASSWORD_HASH_METHOD = "scrypt"


def _hash_method() -> str:
    return current_app.config.get("PASSWORD_HASH_METHOD", PASSWORD_HASH_METHOD)


def hash_password(password: str) -> str:
    """``password`` hashed by werkzeug's ``generate_password_hash`` with the app's
    ``PASSWORD_HASH_METHOD`` (default :data:`PASSWORD_HASH_METHOD`; the tests set a cheaper
    scrypt, tests/conftest.py). A stored hash names its method, so any is checked later."""
    return generate_password_hash(password, method=_hash_method())


def check_password(user: User | None, password: str) -> bool:
    """True if ``password`` is ``user``'s. An unknown name (``user`` None) costs the same time:
    a hash made by the same method is checked and the answer is False."""
    if user is None:
        method = _hash_method()
        if method not in _dummy_hash:
            _dummy_hash[method] = hash_password("not a password of anyone")
        check_password_hash(_dummy_hash[method], password)
        return False
    return check_password_hash(user.password_hash, password)


class NameTaken(Exception):
    """Register: an account of that name (whatever the case) exists."""


@bp.route("/register", methods=["GET", "POST"])
@limiter.limit(ADDRESS_LIMIT, key_func=_address_key, methods=["POST"])
def register():
    """Make an account, once per form (:mod:`scorekeeper.services.once`): a repeated sending of
    the same form logs in to the account its first sending made."""
    form = RegisterForm()
    if form.validate_on_submit():
        session = get_session()
        name = form.username.data.strip()
        try:
            token = once.token_from(request.form)
            earlier = once.find(session, token, "register", None)
            if earlier is None and find_user(name):
                # The same form, sent at once from a stuck button, may have made it between the
                # two reads: the account and its token are committed together, so look again.
                earlier = once.find(session, token, "register", None)
                if earlier is None:
                    raise NameTaken(name)

            def make() -> int:
                user = User(username=name, password_hash=hash_password(form.password.data))
                session.add(user)
                session.flush()
                groups.create_group(session, user, name, _browser_timezone(request.form.get("timezone")))
                return user.id

            outcome = earlier or once.create_once(session, "register", token, None, make)
        except once.BadToken as err:
            return message_response(str(err), 400, _("Form expired"))
        except (NameTaken, IntegrityError):  # IntegrityError: another sign-up took it just now
            session.rollback()
            form.username.errors.append(_("That name is taken; choose another."))
        else:
            user = session.get(User, outcome.target_id)
            if outcome.repeated and not check_password(user, form.password.data):
                form.username.errors.append(_("That name is taken; choose another."))
            else:
                login_user(user, remember=True)
                return remember_device(redirect(safe_next(request.args.get("next")), 303), user)
    status = 400 if form.is_submitted() else 200
    return render_template("auth/register.html", form=form), status


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(ACCOUNT_LIMIT, key_func=_name_key, methods=["POST"], deduct_when=refused,
               exempt_when=known_device)
@limiter.limit(ADDRESS_LIMIT, key_func=_address_key, methods=["POST"], deduct_when=refused)
def login():
    """Log in."""
    form = LoginForm()
    if form.validate_on_submit():
        user = find_user(form.username.data.strip())
        if check_password(user, form.password.data):
            if not user.session_token:  # an account made outside the app
                user.session_token = new_session_token()
                get_session().commit()
            login_user(user, remember=form.remember.data)
            _language_at_login(user)
            return remember_device(redirect(safe_next(request.args.get("next")), 303), user)
        form.password.errors.append(_("Wrong name or password."))
    status = 400 if form.is_submitted() else 200
    return render_template("auth/login.html", form=form), status


@bp.errorhandler(429)
def _too_many(err):
    """A login past its limit: the login form again (the name kept), saying to wait; any other
    route of this blueprint: the app's own answer (web.too_many_page)."""
    if request.endpoint != "auth.login" or is_htmx():
        return too_many_page()
    form = LoginForm(formdata=None, username=request.form.get("username", "")[:40])
    form.password.errors = [_login_paused()]
    return too_many_response((render_template("auth/login.html", form=form), 429))


def _login_paused() -> str:
    """What a login past a limit is told: which limit (the name's, or the network's), that its
    password was not checked (it may be right: the owner, after a stranger's tries, must not
    think it wrong), and when to try again."""
    breached = limiter.current_limit
    if breached is None:
        return too_many_message()
    seconds = seconds_to_wait(breached)
    if "name:" in breached.key:
        return _("Logging in as %(name)s is paused for %(seconds)d s after many wrong passwords: this try's "
                 "password was not checked, so it may be right. Try again then; a phone that has logged in "
                 "as %(name)s before is not held back.", name=request.form.get("username", "").strip()[:40],
                 seconds=seconds)
    return _("Logging in from this network is paused for %(seconds)d s after many wrong passwords: this "
             "try's password was not checked, so it may be right. Try again then.", seconds=seconds)


@bp.route("/language", methods=["POST"])
def language():
    """Choose the app's language (kept with the account, or in the session before logging in)."""
    from .i18n import valid_language

    code = request.form.get("language", "")
    if not valid_language(code):
        from .web import message_response

        return message_response(_("There is no language %(code)s here; choose English or Deutsch.",
                                  code=code[:8]), 400)
    cookie["lang"] = code
    if not current_user.is_authenticated:
        cookie["lang_chosen"] = True  # taken to the account at login (_language_at_login)
    else:
        session = get_session()
        user = session.get(User, current_user.id)
        user.language = code
        session.add(user)
        session.commit()
    return redirect(safe_next(request.form.get("next")), 303)


def _revoke_sessions(user: User) -> None:
    """Replace the account's session token (not committed): every session and remember cookie
    made with the old one stops working."""
    user.session_token = new_session_token()


@bp.route("/logout", methods=["POST"])
@login_required
def logout():
    """Log out on every phone: the session token is replaced, so no copy of a cookie opens the
    account any more."""
    session = get_session()
    user = session.get(User, current_user.id)
    _revoke_sessions(user)
    session.commit()
    logout_user()
    flash(_("You are logged out, on this phone and on every other one of this account."))
    # The group in use stays in the phone's cookie: logging in again comes back to it (its
    # membership is checked again then; see groups.current_group).
    return redirect(url_for("auth.login"), 303)


@bp.route("/account/password", methods=["GET", "POST"])
@login_required
@limiter.limit(ACCOUNT_LIMIT, key_func=_account_key, methods=["POST"], deduct_when=refused)
def change_password():
    """Change the password (the current one, the new one twice). Every other session of the
    account ends; this one goes on."""
    form = PasswordForm()
    if form.validate_on_submit():
        session = get_session()
        user = session.get(User, current_user.id)
        if check_password(user, form.current.data):
            user.password_hash = hash_password(form.password.data)
            _revoke_sessions(user)
            session.commit()
            remember = request.cookies.get(current_app.config.get("REMEMBER_COOKIE_NAME", "remember_token"))
            login_user(user, remember=remember is not None)
            flash(_("Password changed. Other phones logged in to this account must log in again."))
            return remember_device(redirect(url_for("history.settings"), 303), user)
        form.current.errors.append(_("That is not the current password."))
    status = 400 if form.is_submitted() else 200
    return render_template("auth/password.html", form=form), status


@bp.route("/csrf-token")
def csrf_token():
    """A fresh CSRF token for this session (JSON ``{"token": ...}``), for a page whose token is out
    of date (a page kept offline while its session ended): app.js fetches it and sends once more."""
    response = jsonify(token=generate_csrf())
    response.headers["Cache-Control"] = "no-store"
    return response


__all__ = ["bp", "current_user", "init_app", "login_manager"]
