"""The installable app: service worker, offline page, manifest."""

from __future__ import annotations

import hashlib
import json

from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask_babel import force_locale
from flask_babel import gettext as _

from ..i18n import language, valid_language
from ..web import static_url

bp = Blueprint("pwa", __name__)

#: Cached by the service worker at install; their URLs carry content hashes.
ASSETS = (
    "vendor/simple-2.3.7.min.css",
    "app.css",
    "vendor/htmx-2.0.11.min.js",
    "app.js",
    "dice.svg",
    "icons/icon.svg",
)


@bp.route("/sw.js")
def service_worker():
    """The service worker, at the root so its scope is the whole app."""
    assets = [static_url(name) for name in ASSETS]
    version = hashlib.sha256("".join(assets).encode()).hexdigest()[:12]
    body = render_template("sw.js", version=version, assets=assets, offline_url=url_for("pwa.offline"))
    response = Response(body, mimetype="text/javascript", headers={"Cache-Control": "no-cache"})
    response.add_etag()  # revalidated on every check: a 304 while nothing changed
    return response.make_conditional(request)


@bp.route("/favicon.ico")
def favicon():
    """The icon for a client that asks for ``/favicon.ico`` (pages link the SVG one, which not
    every browser, bookmark or feed reader reads): a redirect to the 32 px PNG, kept a day."""
    response = redirect(static_url("icons/favicon-32.png"), 302)
    response.cache_control.max_age = 86400
    response.cache_control.public = True
    return response


@bp.route("/offline")
def offline():
    """Shown by the service worker for a page never visited while online."""
    return render_template("offline.html")


#: The manifest's fields that read the same in every language.
MANIFEST = {
    "short_name": "scorekeeper",
    "id": "/",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "orientation": "any",  # the table screen is for a tablet or a TV in landscape
    "theme_color": "#0d47a1",
    "background_color": "#ffffff",
    "icons": [
        {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": "/static/icons/maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        {"src": "/static/icons/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"},
    ],
}


def manifest_for(code: str) -> dict:
    """The web app manifest in language ``code`` (one of :data:`scorekeeper.i18n.LANGUAGES`):
    ``name`` and ``description`` translated (``short_name`` is the app's name, "scorekeeper"), ``lang`` set, the rest
    :data:`MANIFEST`. The ``id`` is the same in every language: one installed app."""
    with force_locale(code):
        words = {
            "name": _("scorekeeper: dice games at the table"),
            "description": _("Keep the score of Mitchi, Mia and Mice and Men played with real dice."),
        }
    return {**words, "lang": code, "dir": "ltr", **MANIFEST}


@bp.route("/manifest.webmanifest")
def manifest():
    """The manifest in the language named by ``?lang=`` (every page links the one of its own
    language, so the URL alone decides and caches keep each language apart); without it, or with
    a language the app does not speak, the request's language (then it varies with the browser's
    Accept-Language and the login cookie). Revalidated on every use: 304 while unchanged."""
    asked = request.args.get("lang")
    code = asked if valid_language(asked) else language()
    body = json.dumps(manifest_for(code), ensure_ascii=False, indent=1)
    response = Response(body, content_type="application/manifest+json; charset=utf-8")
    response.cache_control.no_cache = True
    if valid_language(asked):
        response.cache_control.public = True
    else:
        response.cache_control.private = True
        response.vary.update(("Accept-Language", "Cookie"))
    response.add_etag()
    response.make_conditional(request)
    return response
