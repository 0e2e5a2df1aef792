"""What every page shares: CSRF, security headers, error pages, template helpers."""

from __future__ import annotations

import time
from types import FunctionType

from flask import current_app, has_request_context, render_template, request, url_for
from flask.sessions import SecureCookieSessionInterface
from flask.templating import Environment as FlaskEnvironment
from flask_babel import gettext as _
from flask_compress import Compress
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFError, CSRFProtect
from itsdangerous import BadSignature
from jinja2 import pass_context, pass_eval_context
from jinja2.runtime import Context
from jinja2.utils import missing
from markupsafe import Markup, escape

from .htmx import is_htmx, retarget_headers

csrf = CSRFProtect()
compress = Compress()
#: Brotli quality of the pages and panels compressed as they are sent (flask-compress's
#: default is 4). An entry's panel of about 9 KB compresses in 0.03 ms at 1 and 0.13 ms at 4,
#: to about 200 bytes more; below that, its buffers were a tenth of an entry's instructions
#: (docs/speed.md §Entry path). Static files are compressed once, at the highest quality.
BR_LEVEL = 1
limiter = Limiter(get_remote_address, default_limits=[])  # store: see ratelimit.py


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, the cookie marked ``Secure`` whenever the request came
    over HTTPS (directly, or through a trusted proxy's ``X-Forwarded-Proto``)."""

    def get_cookie_secure(self, app) -> bool:
        return super().get_cookie_secure(app) or (has_request_context() and request.is_secure)

    def get_signing_serializer(self, app):
        """Flask's serializer of the cookie, made once per secret key and fallbacks and then
        kept: Flask makes it anew twice a request (reading and writing the cookie), some 12 µs
        each, on every entry and every live poll (docs/speed.md §Entry path). It holds nothing
        but its keys and settings; a new key (or fallback) gets a new one."""
        keys = (app.secret_key, tuple(app.config["SECRET_KEY_FALLBACKS"] or ()))
        kept = app.extensions.get("scorekeeper.session_serializer")
        if kept is None or kept[0] != keys:
            kept = app.extensions["scorekeeper.session_serializer"] = (keys, super().get_signing_serializer(app))
        return kept[1]

    def open_session(self, app, request):
        """Flask's, with each cookie's signature checked once and then remembered
        (docs/speed.md §Entry path): a phone sends the same cookie with every entry and every live
        poll, and checking it (two HMACs, two base64 decodings) was 2 % of an entry's instructions.

        A cookie is remembered only once it passed Flask's own check (itsdangerous' ``loads``
        with the session's maximum age), by its exact text and the serializer it passed with (a
        new secret key or fallback makes a new one, which remembers nothing); what is kept is
        the session's data as JSON, made anew for each request, and when it was signed. Read
        again, it is taken only while younger than the maximum age, as itsdangerous would
        take it; past that, or for any other cookie, Flask's check decides. At most
        :data:`MAX_VERIFIED_COOKIES` are kept (all dropped when full)."""
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        max_age = int(app.permanent_session_lifetime.total_seconds())
        key = (serializer, value)
        kept = _verified_cookies.get(key)
        if kept is not None and 0 <= int(time.time()) - kept[1] <= max_age:
            return self.session_class(serializer.serializer.loads(kept[0]))
        try:
            data, signed = serializer.loads(value, max_age=max_age, return_timestamp=True)
        except BadSignature:
            return self.session_class()
        if len(_verified_cookies) >= MAX_VERIFIED_COOKIES:
            _verified_cookies.clear()
        _verified_cookies[key] = (serializer.serializer.dumps(data), int(signed.timestamp()))
        return self.session_class(data)


#: Session cookies whose signature passed (:meth:`SessionInterface.open_session`):
#: ``{(serializer, cookie): (data as JSON, signed at, in whole seconds)}``.
_verified_cookies: dict[tuple, tuple[str, int]] = {}
MAX_VERIFIED_COOKIES = 4096


#: Sent on every answer: no camera, microphone, location... for anyone; no other site's window
#: keeps a handle on ours.
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"
HSTS = "max-age=31536000"  # one year, only ever sent over HTTPS
#: Sent on every answer that does not set them itself.
SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"),
    ("Permissions-Policy", PERMISSIONS_POLICY),
    ("Cross-Origin-Opener-Policy", "same-origin"),
)


def secure_cookies(response):
    """Over HTTPS, mark every cookie this answer sets ``Secure`` (the "stay logged in" cookie is
    set by Flask-Login, whose flag is fixed in the configuration)."""
    if request.is_secure:
        cookies = response.headers.getlist("Set-Cookie")
        if cookies:
            del response.headers["Set-Cookie"]
            for cookie in cookies:
                if "; secure" not in cookie.lower():
                    cookie += "; Secure"
                response.headers.add("Set-Cookie", cookie)
    return response


def server_error_page() -> str:
    """The answer to a failed request whose error page fails too (the database does not answer,
    so neither the account nor its language can be read): no template, no database, no words
    looked up; in English."""
    home = escape(request.script_root + "/")
    return ('<!doctype html><html lang="en"><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<title>Server error · scorekeeper</title><h1>Server error</h1>'
            '<p role="alert">Something went wrong on the server; nothing was saved. '
            f'Reload the page and try again in a moment.</p><p><a href="{home}">Back to your games</a></p>')


def message_response(message: str, status: int, title: str | None = None):
    """A refusal: the message in place for htmx (a fragment), else a small page."""
    if is_htmx():
        body = render_template("_message.html", message=message, level="error")
        # Shown in the page's message area, never pasted over a panel.
        return body, status, retarget_headers("#messages")
    return render_template("message.html", title=title or _("Not done"), message=message), status


def too_many_message() -> str:
    """What a request past a rate limit is told, in the request's language."""
    return _("Too many tries in a short time; wait a minute and try again.")


def too_many_page():
    """The app's answer to a request past a rate limit: the message (in place for htmx, else a
    small page), with ``Retry-After``."""
    return too_many_response(message_response(too_many_message(), 429, _("Slow down")))


def seconds_to_wait(breached) -> int:
    """Seconds (at least 1) until the window of ``breached`` (flask-limiter's ``current_limit``:
    the limit this request broke) ends, as flask-limiter's own headers count it: ``reset_at`` is
    the window's end rounded up a second."""
    import time

    return max(1, int(breached.reset_at - time.time()))


def too_many_response(answer):
    """``answer`` (a view's return value) to a request a rate limit refused, as a response that
    says in ``Retry-After`` how many seconds until the limit's window ends."""
    from flask import current_app

    response = current_app.make_response(answer)
    breached = limiter.current_limit
    if breached is not None:
        response.headers["Retry-After"] = str(seconds_to_wait(breached))
    return response


def refuse_bad_input():
    """Checks every request meets before any view (and before CSRF) reads its body:

    - no route takes JSON: a JSON body (even 100,000 ``[``) is a 415, never parsed;
    - no text input may hold a NUL character (PostgreSQL cannot store one): 400;
    - no field's name is other than ASCII, as the app's forms name them (WTForms read
      ``players-²`` as row 2 and failed: a 500): 400;
    - no address either (``/join/%00``: a token, a live link): 404, as no page has it.
    Returns a refusal response, or None to go on.
    """
    req = request._get_current_object()  # one look-up through the proxy, not one per question
    if "\x00" in req.path:
        return message_response(_("There is no such page: the address holds a NUL character, which no "
                                  "address here holds. Nothing was saved."), 404, _("Not found"))
    if req.method in ("POST", "PUT", "PATCH", "DELETE") and req.is_json:
        return message_response(_("This address takes a form (as the page sends it), not JSON; "
                                  "nothing was saved."), 415, _("Not a form"))
    sources = [req.args]
    if req.method in ("POST", "PUT", "PATCH", "DELETE"):
        sources += [req.form]
    for source in sources:
        for key, values in source.lists():
            if "\x00" in key or any("\x00" in v for v in values):
                return message_response(
                    _("The field %(field)s holds a NUL character, which no text here may hold; remove it "
                      "and send again. Nothing was saved.", field=repr(key.replace(chr(0), "")[:40])),
                    400, _("Not saved"))
            if not key.isascii():
                return message_response(
                    _("No form here has a field named %(field)s; reload the page and send it again. "
                      "Nothing was saved.", field=repr(key[:40])), 400, _("Not saved"))
    for upload in req.files.values() if req.method == "POST" else ():
        if upload.filename and "\x00" in upload.filename:
            return message_response(_("A file name holds a NUL character; rename the file. "
                                      "Nothing was saved."), 400, _("Not saved"))
    return None


def skip_unlimited_requests(app) -> None:
    """Take flask-limiter's check off the requests no limit applies to (docs/speed.md §Entry path).

    Every limit here is a route's own (``@limiter.limit``), which that route checks as it is
    called; the app sets no default, application or blueprint limit, which only the check
    flask-limiter runs before every request would apply. That check cost every entry and every
    live poll about 0.1 ms for nothing: it is removed. Raises :class:`RuntimeError` if a limit
    that needs it is set (it would then be needed), or if flask-limiter no longer registers it
    that way (an upgrade: look again)."""
    if not limiter.enabled:  # RATELIMIT_ENABLED off (the tests): flask-limiter registered nothing
        return
    limits = limiter.limit_manager
    if limits._default_limits or limits._application_limits or limits._blueprint_limits or limiter._meta_limits:
        raise RuntimeError("a default, application or blueprint rate limit needs flask-limiter's check "
                           "before every request: drop skip_unlimited_requests")
    hooks = app.before_request_funcs.setdefault(None, [])
    check = limiter._check_request_limit
    if check not in hooks:
        raise RuntimeError("flask-limiter's check before every request is not where it was: see "
                           "web.skip_unlimited_requests")
    hooks.remove(check)


def init_app(app) -> None:
    # First of all before_request hooks: nothing else reads a body this refuses.
    app.before_request(refuse_bad_input)
    app.session_interface = SessionInterface()
    csrf.init_app(app)
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_MIN_SIZE", 300)
    app.config.setdefault("COMPRESS_BR_LEVEL", BR_LEVEL)
    app.config.setdefault("COMPRESS_MIMETYPES", [
        "text/html", "text/css", "text/javascript", "application/javascript", "application/json",
        "application/manifest+json", "image/svg+xml",
    ])
    compress.init_app(app)
    app.config.setdefault("RATELIMIT_ENABLED", not app.config.get("TESTING"))
    from . import ratelimit

    ratelimit.configure(app)
    limiter.init_app(app)
    skip_unlimited_requests(app)

    @app.errorhandler(429)
    def _too_many(err):
        return too_many_page()

    @app.errorhandler(CSRFError)
    def _csrf_error(err):
        response = app.make_response(message_response(
            _("This form's security token is missing or out of date, so nothing was saved. "
              "Reload the page and enter it again."),
            400,
            _("Form expired"),
        ))
        # app.js asks /csrf-token for a fresh token and sends an htmx request once more.
        response.headers["SK-CSRF-Refused"] = "1"
        return response

    @app.errorhandler(404)
    def _not_found(err):
        return message_response(_("There is no such page, or it belongs to another group."), 404,
                                _("Not found"))

    @app.errorhandler(405)
    def _wrong_method(err):
        # A page opened with POST, or a form's address opened as a page: the app's own page,
        # with the methods the address takes (HTTP asks for the Allow header).
        response = app.make_response(message_response(
            _("This address does not take a %(method)s request; use the app's own buttons and links. "
              "Nothing was saved.", method=request.method), 405, _("Not done")))
        response.headers["Allow"] = ", ".join(sorted(err.valid_methods or ()))
        return response

    @app.errorhandler(500)
    def _server_error(err):
        try:
            return message_response(_("Something went wrong on the server; nothing was saved. "
                                      "Reload the page and try again."), 500, _("Server error"))
        except Exception:  # the page failed too: its header reads the account, from the database
            app.logger.exception("the error page could not be rendered")  # (down, or restarting)
            return server_error_page(), 500, {"Content-Type": "text/html; charset=utf-8"}

    @app.errorhandler(413)
    def _too_large(err):
        from flask import current_app
        from flask_login import current_user

        message = _("That file is too large (%(mb)d MB at most): load the export zip, which holds far more "
                    "games in that size, or the records in parts. Nothing was loaded.",
                    mb=current_app.config["MAX_CONTENT_LENGTH"] // 2**20)
        if request.endpoint == "history.import_games" and current_user.is_authenticated:
            # the load page again, with its form: another file is one tap away (found by a review)
            return render_template("history/import.html", error=message), 413
        return message_response(message, 413, _("Too large"))

    @app.after_request
    def _headers(response):
        headers = response.headers
        if response.status_code == 204:
            # No content (an unchanged live poll, every second on each phone): nothing to frame,
            # run or type, so no page's headers; only that no cache keeps it.
            headers.pop("Content-Type", None)
            headers.setdefault("Cache-Control", "no-store")
            return response
        have = {name.lower() for name, _value in headers.items()}  # one pass, not one per header
        extra = [(name, value) for name, value in SECURITY_HEADERS if name.lower() not in have]
        if "strict-transport-security" not in have and request.is_secure:
            extra.append(("Strict-Transport-Security", HSTS))
        # Pages, downloads (a record, CSV, the export) and every other answer of the app's own that
        # says nothing of its caching: kept by no cache (the static files and the manifest say theirs).
        if "cache-control" not in have and request.endpoint != "static":
            extra.append(("Cache-Control", "no-store"))
        headers.extend(extra)
        return response

    from .services import once
    from .words import (describe, describe_logged, describe_at, dice_text, game_title, join_names, mia_label,
                        mia_value, next_words, option_help, option_label, players_text, shown_tag, won_words)

    from .forms import field_errors
    from .rules.names import name_key
    from .services.groups import current_group

    app.jinja_env.globals.update(describe=describe, describe_logged=describe_logged, describe_at=describe_at,
                                 dice_text=dice_text, next_words=next_words, static_url=static_url,
                                 die_faces=die_faces, hand=hand, rolled_off=rolled_off, fragment=fragment, game_url=game_url,
                                 pick=pick, send=send, entry_form=entry_form, asked_mode=asked_mode, mia_mode=mia_mode,
                                 quick_owner=quick_owner, recent_items=recent_items,
                                 current_mark=current_mark, current_group=current_group, once_field=once.field,
                                 field_errors=field_errors)
    app.jinja_env.globals.update(game_title=game_title, players_text=players_text, mia_value=mia_value,
                                 mia_label=mia_label, option_label=option_label, option_help=option_help, shown_tag=shown_tag,
                                 won_words=won_words)
    app.jinja_env.filters["names"] = join_names  # "Ann, Ben and Cat" (in the request's language)
    app.jinja_env.filters["bdi"] = isolated
    app.jinja_env.filters["of_player"] = of_player
    app.jinja_env.filters["people"] = people  # "Ann, Ben" / "Ben → Ann", each name isolated
    app.jinja_env.filters["name_key"] = name_key  # "José" and "JOSÉ" are one player (rules.names)


def isolated(name: str) -> Markup:
    """A player's name (escaped) in ``<bdi>``, for a name followed by a figure ("שלום 3"): a name
    in a right-to-left script would otherwise draw the figure to its left, beside the name
    before it."""
    return Markup("<bdi>%s</bdi>") % name


def people(names, separator: str = ", ") -> Markup:
    """Players' names joined by ``separator``, each in ``<bdi>``: two right-to-left names side by
    side would otherwise be drawn swapped ("order: שלום → أحمد" read as the other way round)."""
    return Markup(escape(separator)).join(isolated(n) for n in names)


_versions: dict[str, str] = {}
_urls: dict[tuple[str, str], str] = {}


def static_url(filename: str) -> str:
    """A static file's URL with a content hash, so it can be cached for a year."""
    from flask import current_app, request, url_for

    if filename not in _versions:
        from pathlib import Path

        from .static import content_version

        _versions[filename] = content_version((Path(current_app.static_folder) / filename).read_bytes())
    key = (request.script_root, filename)  # a panel shows a die a dozen times: build each URL once
    if key not in _urls:
        _urls[key] = url_for("static", filename=filename, v=_versions[filename])
    return _urls[key]


_faces: dict[tuple[str, str], tuple] = {}


def die_faces(cls: str = "") -> tuple:
    """The six die faces as ``<svg>`` markup, ``faces[n]`` for ``n`` in 1..6 (``faces[0]`` is
    empty), with the CSS class ``cls``: built once per class and URL root, as a panel shows a
    dozen dice (one macro call each cost more than the rest of the dice pad)."""
    from flask import request

    key = (request.script_root, cls)
    if key not in _faces:
        sprite = static_url("dice.svg")
        _faces[key] = (Markup(""),) + tuple(
            Markup('<svg class="die {}" viewBox="0 0 24 24" aria-hidden="true" focusable="false">'
                   '<use href="{}#d{}"/></svg>').format(cls, sprite, n) for n in range(1, 7))
    return _faces[key]


def hand(dice, spoken: bool = True) -> Markup:
    """A hand as small dice (``dice``: die values 1 to 6), its values said to screen readers
    ("6-5"); ``spoken=False`` where the hand's text follows anyway (it would be read twice).
    A function, not a template macro: importing a macro costs every panel that shows a hand
    (docs/speed.md §Entry path)."""
    faces = die_faces("small")
    inner = Markup("").join(faces[d] for d in dice)
    if spoken:
        inner += Markup('<span class="sr-only">{}</span>').format("-".join(str(d) for d in dice))
    return Markup('<span class="hand">{}</span>').format(inner)


def rolled_off(passes) -> Markup:
    """A roll for who starts so far, as its pages show it: ``passes`` (the opening's
    ``as_dict()["rolloff"]``: a list of passes, each a list of ``{"player", "die"}``) as
    "Ann ⚂, Ben ⚄; then Ann ⚅", each die a small face with its value said to screen readers.
    One function for a game's opening and a practice game's "Who starts" (two copies of one
    loop before)."""
    faces = die_faces("small")
    return Markup.escape(_("; then ")).join(
        Markup(", ").join(Markup('{} {}<span class="sr-only">{}</span>').format(isolated(r["player"]), faces[r["die"]], r["die"])
                          for r in one_pass)
        for one_pass in passes)


def of_player(items, player: str):
    """The first of ``items`` (turns, rolls: objects with a ``player``) that is ``player``'s, or
    None: the templates' ``turns|of_player(p)``, for ``selectattr("player", "equalto", p)|first``,
    which costs a panel several times more (docs/speed.md §Entry path)."""
    for item in items:  # a loop, not next() of a generator: no generator to make and close
        if item.player == player:
            return item
    return None


_CURRENT = Markup(' aria-current="true"')


def page_var(context: Context, name: str):
    """The page's variable ``name``, or None if the page sets none: ``context.get(name)``
    without the KeyError Jinja raises and catches inside for a name not set (a panel sets no
    ``prefill`` and no ``entry_url``)."""
    value = context.resolve_or_missing(name)
    return None if value is missing else value


@pass_context
def current_mark(context, key: str, value, kind: str | None = None) -> Markup | str:
    """`` aria-current="true"`` for the button that sends ``value`` in ``key`` when the page is a
    correction of an entry (the template's ``prefill``, :func:`scorekeeper.forms.prefill`) that
    has that value (and, if given, is of type ``kind``), else "". A function, not a macro: a
    Mia panel asks for forty buttons, and a macro call costs several times more
    (docs/speed.md §Entry path)."""
    prefill = page_var(context, "prefill")
    if prefill and (kind is None or prefill.get("type") == kind) and prefill.get(key) == value:
        return _CURRENT
    return ""


#: What ``pass_eval_context`` marks a function with (Jinja's own value, not imported by its private name).
_WANTS_EVAL_CONTEXT = pass_eval_context(lambda eval_ctx: None).jinja_pass_arg
_WANTS_CONTEXT = pass_context(lambda context: None).jinja_pass_arg


class CallingContext(Context):
    """Jinja's template context, calling a plain function with less ado (the app's
    ``jinja_env.context_class``; docs/speed.md §Entry path).

    Jinja calls every function a template names through :meth:`Context.call`, which asks each
    callable four times whether it wants the context, the evaluation context or the environment
    passed first (about 0.5 µs a call; a game's panel makes some sixty). A function (not a macro,
    a bound method or a callable object) is asked once, by its ``jinja_pass_arg``: none, or the
    evaluation context (Flask-Babel's and the app's ``_()``) or the context (:func:`pick`,
    :func:`entry_form`; not inside a loop or block that set variables, where Jinja hands it a
    context that holds them) is handled here as Jinja handles it; anything else goes to Jinja's
    own ``call``."""

    def call(__self, __obj, *args, **kwargs):  # noqa: N805 - Jinja's own signature
        if type(__obj) is FunctionType:
            wants = getattr(__obj, "jinja_pass_arg", None)
            if wants is None or wants is _WANTS_EVAL_CONTEXT or wants is _WANTS_CONTEXT:
                if kwargs:  # the loop's and block's variables: for a function that takes the context only
                    loop_vars = kwargs.pop("_loop_vars", None)
                    block_vars = kwargs.pop("_block_vars", None)
                    if wants is _WANTS_CONTEXT and (loop_vars or block_vars):
                        # Jinja's own call: it hands over a context that holds them
                        return Context.call(__self, __obj, *args, _loop_vars=loop_vars,
                                            _block_vars=block_vars, **kwargs)
                if wants is _WANTS_EVAL_CONTEXT:
                    args = (__self.eval_ctx, *args)
                elif wants is _WANTS_CONTEXT:
                    args = (__self, *args)
                try:
                    return __obj(*args, **kwargs)
                except StopIteration:  # as Jinja answers it
                    return __self.environment.undefined("value was undefined because a callable raised a"
                                                        " StopIteration exception")
        return Context.call(__self, __obj, *args, **kwargs)


class TemplateEnvironment(FlaskEnvironment):
    """Flask's Jinja environment (the app's ``jinja_environment``), with the app's
    :class:`CallingContext` and each template's globals one plain dict (docs/speed.md §Entry path).

    Jinja gives each template a ``ChainMap`` of its own globals over the environment's, and every
    render copies it into a dict, key by key through ``ChainMap.__getitem__`` (some forty
    globals here: about 30 µs for each page and panel), and every ``{% from … import %}``
    compares it with the importing page's, key by key again. Here a template's globals are the
    environment's copied once, when the template is loaded, under its own: the same names and
    values, as Jinja documents them, since globals are not to change once a template is loaded
    (all of the app's are set in :func:`scorekeeper.create_app`)."""

    context_class = CallingContext

    def make_globals(self, d: dict | None) -> dict:
        return {**self.globals, **(d or {})}


_fragments: dict[tuple, Markup] = {}
#: Fragments kept at most (a few per game, language and entry form); all dropped when full.
MAX_FRAGMENTS = 2048


def fragment(key: tuple, make, *args) -> Markup:
    """``make(*args)`` (a template macro whose markup depends on ``args`` alone, ``key`` naming
    the macro and those arguments) built once per key and URL root, then kept: the dice pad's
    fieldsets are the same in every panel of a language (docs/speed.md §Entry path). Keeps at
    most :data:`MAX_FRAGMENTS` (all dropped when full: whatever the keys, memory stays bounded)."""
    return _kept(_fragments, MAX_FRAGMENTS, (request.script_root, key), lambda: Markup(make(*args)))


def recent_items(game_id: int, count: int, recent: list[dict], removed: bool, make, state=None) -> Markup:
    """The items of a panel's "Last entries": ``make(said, seq, removed, tag)`` (the panel's macro)
    for each of the ``recent`` entries, the last of the game's ``count``, where ``said`` is the
    entry's line (:func:`scorekeeper.words.describe`; a roll of a round's second tie-break or later
    names it, as ``state``, the game's, numbers it: two "Ann: tie-break roll 5-3" in a row read as
    one roll entered twice, a playtest), ``seq`` its position and ``tag`` the plain line's
    :func:`~scorekeeper.words.shown_tag` (its "correct" link's); each built once per game,
    position, language, entry (:func:`entry_key`), tie-break and URL root, as :func:`fragment`
    keeps them, then kept. One call for the list instead of a template loop calling three
    functions an item, some 10 µs an item on every entry (docs/speed.md §Entry path)."""
    from .i18n import language
    from .words import describe, shown_tag

    root, lang = request.script_root, language()
    numbers = (state.tie_break_numbers(recent) if state is not None and any(
        type(e) is dict and e.get("type") == "tiebreak" for e in recent) else None)
    items = []
    for i, (seq, entry) in enumerate(enumerate(recent, start=count - len(recent) + 1)):
        number = numbers[i] if numbers else None
        key = (root, ("recent", game_id, seq, lang, entry_key(entry), removed, number))

        def item(entry=entry, seq=seq, number=number) -> Markup:
            plain = describe(entry)
            said = describe(entry, tie_break=number) if number else plain
            return Markup(make(said, seq, removed, shown_tag(plain)))
        items.append(_kept(_fragments, MAX_FRAGMENTS, key, item))
    return Markup("\n").join(items)


def entry_key(entry) -> tuple | str:
    """What an entry's line (:func:`scorekeeper.words.describe`, in a given language) depends on,
    as a key: its fields in order, a text or whole number as it is and any other value (a list of
    dice, a flag) by its ``repr``, so that entries with one key have one line. About 1 µs, where
    describing the entry took some 5 (a panel lists six). Not a dict: its ``repr``."""
    if type(entry) is not dict:
        return repr(entry)
    return tuple((k, v if type(v) is str or type(v) is int else repr(v)) for k, v in entry.items())


def _kept(store: dict, limit: int, key: tuple, make):
    """``store[key]``, made by ``make()`` the first time; ``store`` is emptied when it holds
    ``limit`` entries (whatever the keys, memory stays bounded)."""
    found = store.get(key)
    if found is None:
        if len(store) >= limit:
            store.clear()
        found = store[key] = make()
    return found


def _dice_macro(name: str, *args) -> Markup:
    """The macro ``name`` of ``games/_dice.html`` called with ``args``: the template imported
    without a page's context, which Jinja builds once and keeps (a name that starts with "_" is
    not exported)."""
    return getattr(current_app.jinja_env.get_template("games/_dice.html").module, name)(*args)


@pass_context
def pick(context, name: str, legend: str, checked: int | None = None) -> Markup:
    """Six die faces as radio buttons for the form field ``name`` (a die: 1 to 6) under
    ``legend``, face ``checked`` checked (None: on a correction page the corrected entry's own,
    from the page's ``prefill``, else none). Built once per name, legend and checked face
    (:func:`fragment`); a function, not a macro imported with the page's context, which cost
    each panel some 90 µs (docs/speed.md §Entry path)."""
    if checked is None:
        prefill = page_var(context, "prefill")
        if prefill:
            checked = prefill.get(name)
    return fragment(("pick", name, legend, checked), _dice_macro, "pick_faces", name, legend, checked)


@pass_context
def send(context, name: str, legend: str) -> Markup:
    """Six die faces as submit buttons for the form field ``name`` under ``legend``: one tap
    picks the face and sends the entry; on a correction page the corrected entry's own face is
    marked current. Built once per name, legend and marked face (:func:`fragment`)."""
    prefill = page_var(context, "prefill")
    chosen = prefill.get(name) if prefill else None
    return fragment(("send", name, legend, chosen), _dice_macro, "send_faces", name, legend, chosen)


@pass_context
def entry_form(context, game, kind: str, player: str | None = None, mode: str | None = None,
               keep: str | None = None) -> Markup:
    """The start of the form of an entry of type ``kind`` (by ``player``) to ``game``: the
    ``<form>`` tag and its hidden fields (``games/_dice.html``'s ``form_start``); the page closes
    it with ``</form>``. On a correction page (the page's ``entry_url``) it posts the correction;
    else the entry, with htmx, marked with the position of the entry it makes (the page's
    ``loaded``). ``mode``: Mia's entry mode to go back to, unless the request names one;
    ``keep``: what app.js keeps picks for (a showdown's reveals)."""
    entry_url = page_var(context, "entry_url")
    loaded = page_var(context, "loaded")
    to = None if entry_url else game_url("games.add_entry", game.id)
    seq = loaded.count + 1 if loaded is not None else None
    mode = asked_mode() or mode
    return _dice_macro("form_start", entry_url, to, seq, keep, game.version, kind, mode, player)


#: Mia's entry modes: the whole trail of a round, or its challenge alone ("Quick entry").
ENTRY_MODES = ("trail", "quick")


def asked_mode() -> str | None:
    """The entry mode the request names (``?mode=`` or a form's hidden ``mode``): one of
    :data:`ENTRY_MODES`, else None (not named, or a value no page sends: not carried on)."""
    mode = request.values.get("mode")
    return mode if mode in ENTRY_MODES else None


def mia_mode(state, entry_mode: str | None = None) -> str:
    """The entry mode a Mia panel shows ("trail" or "quick"): the one the request names
    (:func:`asked_mode`), else ``entry_mode`` (a correction page's: the corrected entry's), else
    the one in the address of the page that asks (htmx's ``HX-Current-URL``: after an undo),
    else the way the game's last round was entered (the games list's "Play on"). The panel's
    live poll then names it, so that a phone keeps the mode it shows when another phone enters
    a round the other way (found by a review)."""
    mode = asked_mode() or entry_mode
    if not mode:
        url = request.headers.get("HX-Current-URL", "")
        if "mode=quick" in url:
            mode = "quick"
        elif "mode=trail" in url:
            mode = "trail"
        else:
            mode = "quick" if state.rounds and state.rounds[-1].quick else "trail"
    return "quick" if mode == "quick" else "trail"


def quick_owner(state, count: int, prefill=None) -> str:
    """The cup owner a Mia quick entry names: the one picked on the page (``?owner=``, while the
    log is still ``count`` entries long, as ``?at=`` says: another phone's correction keeps it,
    any entry or undo drops it), else a correction page's (``prefill``), else the round's
    starter; always a player still in."""
    asked = request.args.get("owner") if request.args.get("at") == str(count) else None
    if asked in state.still_in:
        return asked
    if prefill and prefill.get("owner") in state.still_in:
        return prefill.get("owner")
    return state.round_starter


_game_urls: dict[tuple, str] = {}
#: Game addresses kept at most (a few per game); all dropped when full.
MAX_GAME_URLS = 4096


def game_url(endpoint: str, game_id: int) -> str:
    """``url_for(endpoint, game_id=game_id)``, built once per endpoint, game and URL root, then
    kept: a panel names its game's entry, undo and poll addresses on every answer, and Flask
    builds each anew, some 15 µs apiece (docs/speed.md §Entry path). Keeps at most
    :data:`MAX_GAME_URLS` (all dropped when full). Raises what ``url_for`` raises for an unknown
    endpoint."""
    return _kept(_game_urls, MAX_GAME_URLS, (request.script_root, endpoint, game_id),
                 lambda: url_for(endpoint, game_id=game_id))


def keep_sent_csrf_token() -> None:
    """Let the forms of this answer carry the CSRF token the request was just let through with,
    instead of one signed anew (Flask-WTF's ``generate_csrf`` keeps a request's token in
    ``g.csrf_token``; signing one cost an entry some 70 µs, docs/speed.md §Entry path).

    Only after Flask-WTF found the sent token valid (``g.csrf_valid``), while the session still
    holds the secret it was checked against, with no time limit on tokens
    (``WTF_CSRF_TIME_LIMIT`` None: an older token would expire sooner), and before a token was
    made for this request. Otherwise nothing changes and a token is signed as before.

    Which token ``protect()`` checked, the form's field or a header, Flask-WTF says only by its
    ``_get_csrf_token`` (1.x; pyproject keeps it below 2). Should a version lack it, the answer
    signs a token as before: slower, never a failed entry."""
    from flask import current_app, g, session

    field = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    if (not g.get("csrf_valid") or field in g or field not in session
            or current_app.config.get("WTF_CSRF_TIME_LIMIT", 3600) is not None):
        return
    found = getattr(csrf, "_get_csrf_token", None)  # the token protect() checked: the form's field, else the header
    sent = found() if found is not None else None
    if sent:
        setattr(g, field, sent)
