"""Languages: Flask-Babel catalogs in ``translations/``, the language of each request.

The language is the account's setting (``User.language``), else the one kept in
the session (chosen on the login page, or the account's own, kept there at login
and when the session is ended from another phone, so the pages shown logged out
stay in it), else the browser's ``Accept-Language``, else English. The rules
package stays stdlib-only and English; what a person reads is translated here, in
the web layer.

Add a language: ``LANGUAGES`` below, then (docs/translations.md)::

    .venv/bin/pybabel extract -F babel.cfg -k _l -o translations/messages.pot .
    .venv/bin/pybabel init -i translations/messages.pot -d translations -l xx
    .venv/bin/pybabel compile -d translations
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from flask import current_app, g, request, session
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header
from jinja2 import pass_eval_context
from markupsafe import Markup, escape
from babel import Locale, negotiate_locale
from babel.numbers import format_decimal
from babel.support import NullTranslations
from flask_babel import Babel, get_locale, get_translations, lazy_gettext
from flask_login import current_user

from .rules.base import Phrase

ROOT = Path(__file__).resolve().parent.parent
#: Language code -> its own name, as shown in the language switch.
LANGUAGES = {"en": "English", "de": "Deutsch"}

babel = Babel()
_l = lazy_gettext


def valid_language(code: str | None) -> bool:
    """True for a language the app speaks ("en", "de")."""
    return code in LANGUAGES


def select_language() -> str:
    """The language of this request: account setting, session choice, browser, English."""
    try:
        if current_user.is_authenticated and valid_language(getattr(current_user, "language", None)):
            return current_user.language
    except Exception:  # outside a request with a user (CLI, errors before login is set up)
        pass
    chosen = session.get("lang")
    if valid_language(chosen):
        return chosen
    return browser_language(request.headers.get("Accept-Language", ""))


@lru_cache(maxsize=1024)
def browser_language(header: str) -> str:
    """The language of :data:`LANGUAGES` an ``Accept-Language`` header (its text) picks, else
    "en": the languages it lists by quality (Werkzeug's parser; quality 0 is "not this one"),
    the first that is one of ours, or whose main tag is ("de-AT" is "de"), wins (Babel's
    ``negotiate_locale``). Werkzeug's ``best_match`` looked for an exact match first, so
    "de-AT,en-US;q=0.7,en;q=0.3" (Firefox with German and English) got English. Worked out
    once per header text and kept (``functools.lru_cache``, at most 1,024 headers): a phone
    sends the same header with every entry and every live poll, and parsing it cost each
    request some 12 µs (docs/speed.md §Entry path)."""
    wanted = [value.lower() for value, quality in parse_accept_header(header, LanguageAccept) if quality > 0]
    return negotiate_locale(wanted, list(LANGUAGES), sep="-") or "en"


def catalog():
    """The request's translations (a ``babel.support.Translations``), looked up once per request.

    Flask-Babel finds them anew on every call (four context look-ups, about 10 µs), and a game
    panel asks some thirty times (docs/speed.md §Entry path). The catalog is kept where
    Flask-Babel keeps its own per-request values (``g._flask_babel.babel_translations``), so
    ``flask_babel.refresh()`` and ``force_locale()`` drop it with the locale. The first call of
    a request takes the locale's catalog from the app's own dict, filled from Flask-Babel's
    ``get_translations()`` the first time each locale is asked for (its domain and cache
    look-ups cost each request some 10 µs more).
    """
    try:
        here = g._get_current_object()  # the app context's g: one look-up through the proxy
    except RuntimeError:  # outside an app context (as Flask-Babel answers there)
        return NullTranslations()
    ctx = here.get("_flask_babel")
    found = getattr(ctx, "babel_translations", None)
    if found is None:
        locale = get_locale()  # the request's, or force_locale()'s
        kept = current_app.extensions["scorekeeper.catalogs"]
        found = kept.get(locale)
        if found is None:
            found = get_translations()
            if locale is not None:  # Flask-Babel keeps each language's catalog for good too
                kept[locale] = found
        ctx = here.get("_flask_babel")
        if ctx is not None:
            ctx.babel_translations = found
    return found


def gettext(string: str, **variables) -> str:
    """Flask-Babel's ``gettext`` (``string`` translated, then ``% variables``) on :func:`catalog`."""
    found = catalog().ugettext(string)
    return found % variables if variables else found


def ngettext(singular: str, plural: str, num: int, **variables) -> str:
    """Flask-Babel's ``ngettext`` (``num`` is also ``%(num)d``) on :func:`catalog`."""
    variables.setdefault("num", num)
    return catalog().ungettext(singular, plural, num) % variables


def pgettext(context: str, string: str, **variables) -> str:
    """Flask-Babel's ``pgettext`` (``string`` in ``context``) on :func:`catalog`."""
    found = catalog().upgettext(context, string)
    return found % variables if variables else found


def language() -> str:
    """The current request's language code."""
    return str(get_locale() or "en")


def translated(message, sentence: bool = True) -> str:
    """``message`` in the request's language: a :class:`~scorekeeper.rules.base.Phrase` (the rules'
    refusals: template and values) or an exception carrying one (``err.message``, else its first
    argument), else ``str(message)`` as it is (docs/translations.md §Refusals).

    The template is looked up in the catalog (``ngettext`` with ``values["count"]`` for a plural
    phrase) and filled with its values, each value that is a phrase translated the same way;
    names are shown as they are, numbers of five digits or more grouped as the language groups
    them. A translation that does not fit its values (a broken catalog) falls back to the English
    text rather than failing the answer. The rules' phrases start in lower case, as they are also
    put inside other phrases ("… illegal: a die shows 1 to 6"); shown on their own, their first
    word gets a capital (``sentence=False``: not, for a text that follows a label, "games.json:
    entry 3: …").
    """
    return _filled(message, sentence=sentence)


def _capital(text: str) -> str:
    """``text`` with its first letter a capital."""
    return text[:1].upper() + text[1:]


def _filled(message, sentence: bool = False) -> str:
    """:func:`translated`; with ``sentence`` a text or a phrase starting with a lower-case
    letter starts with a capital (a phrase starting with a name or a field's key stays as it is)."""
    if isinstance(message, BaseException):
        phrase = getattr(message, "message", None)
        if not isinstance(phrase, Phrase) and message.args and isinstance(message.args[0], Phrase):
            phrase = message.args[0]
        message = phrase if isinstance(phrase, Phrase) else str(message)
    if not isinstance(message, Phrase):  # a form's refusal, already in the request's language
        return _capital(str(message)) if sentence else str(message)
    found = catalog()
    if message.plural is not None:
        text = found.ngettext(message.template, message.plural, message.values.get("count", 0))
    else:
        text = found.gettext(message.template)
    if sentence:
        text = _capital(text)
    if not message.values:
        return text
    # A template that starts with a value: a phrase there ("a reveal") starts the sentence; a name
    # or a field's key is shown as written.
    first = text[1:text.find("}")] if sentence and text.startswith("{") else None
    values = {k: _filled(v, sentence=k == first) if isinstance(v, Phrase) else _number(v)
              for k, v in message.values.items()}
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        return str(message)


def _number(value):
    """A value of a phrase as the request's language writes it: a whole number of five digits or
    more grouped ("999,999,999"; German "999.999.999"), as the app's own messages write the
    ranges; anything else as it is."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10_000:
        try:
            locale = get_locale()  # Flask-Babel's: force_locale() holds too
        except RuntimeError:  # no request (a command line's message): as it is
            locale = None
        if locale is not None:
            return format_decimal(value, locale=locale)
    return value


#: Where a catalog keeps the markup of its texts that fill in nothing (see :func:`_template_gettext`).
_MARKUP = "_scorekeeper_markup"


@pass_eval_context
def _template_gettext(eval_ctx, string: str, **variables) -> str:
    """``_()`` in a template: Jinja's newstyle ``gettext`` (docs/speed.md §Entry path).

    A text with nothing to fill in, in an autoescaped template, is made into markup once per
    catalog and then kept on it: a panel shows some twenty ("Round", "Pot", …) on every entry
    and every changed poll. The catalog is Flask-Babel's, one per language, kept across
    requests; the texts kept are the templates' own, so they are bounded."""
    cat = catalog()
    if not variables and eval_ctx.autoescape:
        kept = cat.__dict__.get(_MARKUP)
        if kept is None:
            kept = cat.__dict__[_MARKUP] = {}
        markup = kept.get(string)
        if markup is None:
            found = cat.ugettext(string)
            # nothing to fill: as %-formatting would leave it ("%%" in a text says "%")
            markup = kept[string] = Markup(found) if "%" not in found else Markup(found) % {}
        return markup
    found = cat.ugettext(string)
    if not variables and "%" not in found:  # nothing to fill: as %-formatting would leave it
        return Markup(found) if eval_ctx.autoescape else found
    return markup_filled(found, variables) if eval_ctx.autoescape else found % variables


@pass_eval_context
def _template_ngettext(eval_ctx, singular: str, plural: str, num: int, **variables) -> str:
    """``ngettext()`` in a template: Jinja's newstyle ``ngettext`` (``%(num)d`` is ``num``)."""
    variables.setdefault("num", num)
    found = catalog().ungettext(singular, plural, num)
    return markup_filled(found, variables) if eval_ctx.autoescape else found % variables


@pass_eval_context
def _template_pgettext(eval_ctx, context: str, string: str, **variables) -> str:
    """``pgettext()`` in a template: Jinja's newstyle ``pgettext``."""
    variables.setdefault("context", context)
    found = catalog().upgettext(context, string)
    return markup_filled(found, variables) if eval_ctx.autoescape else found % variables


def markup_filled(text: str, variables: dict) -> Markup:
    """``Markup(text) % variables``: the translated ``text`` (trusted: the catalog's) with each
    value escaped, as Jinja's newstyle gettext fills it in an autoescaped template.

    When every value is a plain ``int``, ``str`` or ``Markup`` (nearly always: names, numbers,
    dice), the strings are escaped first and the text filled as a plain string, which gives the
    same markup in half the time: markupsafe wraps each value in a helper object that escapes it
    on the way (some 3 µs a text, about ten texts a Mitchi panel; docs/speed.md §Entry path). Anything
    else (a bool, a float, None, an object with ``__html__``) goes to ``Markup``'s own ``%``."""
    escaped = {}
    for key, value in variables.items():
        kind = type(value)
        if kind is int:
            escaped[key] = value
        elif kind is str or kind is Markup:
            escaped[key] = escape(value)
        else:
            return Markup(text) % variables
    return Markup(text % escaped)


_LOCALES: dict[str, Locale] = {}


def request_locale() -> Locale:
    """Flask-Babel's locale selector: :func:`select_language` as a ``babel.Locale``, made once per
    language and then kept. Given a code, Flask-Babel parses it anew on every request
    (``Locale.parse``, which also looks for the locale's data file on disk); given a ``Locale``, it
    takes it as it is (docs/speed.md §Entry path)."""
    code = select_language()
    found = _LOCALES.get(code)
    if found is None:
        found = _LOCALES[code] = Locale.parse(code)
    return found


def init_app(app) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(ROOT / "translations"))
    babel.init_app(app, locale_selector=request_locale)
    app.extensions["scorekeeper.catalogs"] = {}  # each locale's catalog as Flask-Babel first found it
    # The templates' _(), ngettext(), pgettext(): as Jinja's "newstyle" gettext (autoescaped,
    # always %-formatted), on the catalog looked up once per request, one call each.
    app.jinja_env.install_gettext_callables(gettext=gettext, ngettext=ngettext, pgettext=pgettext,
                                            npgettext=None, newstyle=True)
    app.jinja_env.globals.update(_=_template_gettext, gettext=_template_gettext,
                                 ngettext=_template_ngettext, pgettext=_template_pgettext)
    app.jinja_env.globals.update(languages=LANGUAGES, language=language)
