"""Languages: Flask-Babel catalogs in ``translations/``, the language of each request.

The language is the account's setting (``User.language``), else the one chosen
on the login page (kept in the session), else the browser's ``Accept-Language``,
else English. The rules package stays stdlib-only and English; what a person
reads is translated here, in the web layer.

Add a language: ``LANGUAGES`` below, then (docs/translations.md)::

    .venv/bin/pybabel extract -F babel.cfg -k _l -o translations/messages.pot .
    .venv/bin/pybabel init -i translations/messages.pot -d translations -l xx
    .venv/bin/pybabel compile -d translations
"""

from __future__ import annotations

from pathlib import Path

from flask import request, session
from flask_babel import Babel, get_locale, lazy_gettext
from flask_login import current_user

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
    return request.accept_languages.best_match(list(LANGUAGES)) or "en"


def language() -> str:
    """The current request's language code."""
    return str(get_locale() or "en")


def init_app(app) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(ROOT / "translations"))
    babel.init_app(app, locale_selector=select_language)
    app.jinja_env.globals.update(languages=LANGUAGES, language=language)
