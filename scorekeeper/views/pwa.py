"""The installable app: service worker, offline page, manifest."""

from __future__ import annotations

import hashlib

from flask import Blueprint, Response, current_app, render_template, request, send_from_directory, url_for

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


@bp.route("/offline")
def offline():
    """Shown by the service worker for a page never visited while online."""
    return render_template("offline.html")


@bp.route("/manifest.webmanifest")
def manifest():
    response = send_from_directory(current_app.static_folder, "manifest.webmanifest",
                                   mimetype="application/manifest+json", max_age=0)
    response.headers["Cache-Control"] = "no-cache"  # revalidated (ETag, Last-Modified): 304 while unchanged
    return response
