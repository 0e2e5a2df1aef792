"""Configuration: safe defaults, overridden by environment variables.

- ``DATABASE_URL``: SQLAlchemy URL; default a SQLite file in the instance folder.
- ``SECRET_KEY``: if unset, generated once and kept in ``instance/secret_key``.
- ``TRUSTED_PROXIES``: how many reverse proxies (an HTTPS front) stand before the app;
  their ``X-Forwarded-*`` headers are then believed (client address for rate limits,
  https scheme). Default 0.
- ``PRACTICE_SEED``: when set, practice games roll repeatable dice from it (tests);
  unset, they use the operating system's randomness.
- ``STATIC_CACHE``: the folder where the compressed copies of ``static/`` are built
  (:mod:`scorekeeper.static`); default ``instance/static-cache``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def default_database_url(instance_path: str) -> str:
    return "sqlite:///" + str(Path(instance_path) / "scorekeeper.sqlite3")


def load_secret_key(instance_path: str) -> str:
    """The key from ``instance/secret_key``, created (mode 600) on first use."""
    path = Path(instance_path) / "secret_key"
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key)
    return key


def configure(app, test_config: dict | None) -> None:
    """Fill ``app.config`` from defaults, the environment, then ``test_config``."""
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.update(
        DATABASE_URL=os.environ.get("DATABASE_URL") or default_database_url(app.instance_path),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_HTTPONLY=True,
        WTF_CSRF_TIME_LIMIT=None,  # a game evening is long; the token lives with the session
        # an upload (records to load): a JSON list of some 800 full-length games, or an export zip
        # of 2,000 (history.ZIP_MAX_BYTES bounds what it unpacks to)
        MAX_CONTENT_LENGTH=16 * 1024 * 1024,
        SEND_FILE_MAX_AGE_DEFAULT=60 * 60 * 24 * 365,  # static URLs carry a version
        MIGRATE_ON_START=True,
        GAMES_PER_PAGE=20,
    )
    app.config["TRUSTED_PROXIES"] = int(os.environ.get("TRUSTED_PROXIES", "0") or 0)
    if os.environ.get("PRACTICE_SEED"):
        app.config["PRACTICE_SEED"] = os.environ["PRACTICE_SEED"]
    if os.environ.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ["SECRET_KEY"]
    if os.environ.get("STATIC_CACHE"):  # README §Configuration (it was documented, never read)
        app.config["STATIC_CACHE"] = os.environ["STATIC_CACHE"]
    if test_config:
        app.config.update(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_secret_key(app.instance_path)
