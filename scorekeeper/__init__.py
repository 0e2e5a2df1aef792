"""scorekeeper: keep the score of dice games played with real dice.

``create_app(test_config=None)`` builds the Flask app; templates and static
files live at the top of the repository (``templates/``, ``static/``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # no typing import at run time (start-up of `scorekeeper replay`)

if TYPE_CHECKING:  # Flask is imported when an app is built, not with the package:
    from flask import Flask  # `scorekeeper replay` needs only the rules (stdlib).


def _database_id_converter():
    """``<int:...>`` in URLs: at most what a database integer holds, so a huge number in an
    address is a 404, not a server error."""
    from werkzeug.routing import IntegerConverter

    class DatabaseId(IntegerConverter):
        def __init__(self, map, *args, **kwargs):
            kwargs.setdefault("max", 2**31 - 1)
            super().__init__(map, *args, **kwargs)

    return DatabaseId


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app: config, database (migrated to head), login, CSRF, htmx, views."""
    from pathlib import Path  # here, not at the top: `scorekeeper replay` starts without it

    from flask import Flask

    root = Path(__file__).resolve().parent.parent
    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(root / "templates"),
        static_folder=str(root / "static"),
    )
    from . import auth, config, db, htmx, i18n, static, web

    app.jinja_environment = web.TemplateEnvironment  # before app.jinja_env is first made
    from .views import games, groups, live, practice, pwa, records, reference
    from .views import history

    config.configure(app, test_config)
    app.url_map.converters["int"] = _database_id_converter()
    static.init_app(app)  # before ProxyFix, which must see every request first
    if app.config.get("TRUSTED_PROXIES"):
        from werkzeug.middleware.proxy_fix import ProxyFix

        n = app.config["TRUSTED_PROXIES"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)
    db.init_app(app)
    htmx.init_app(app)
    i18n.init_app(app)
    auth.init_app(app)
    web.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(records.bp)
    app.register_blueprint(reference.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(pwa.bp)
    app.register_blueprint(groups.bp)
    app.register_blueprint(live.bp)
    app.register_blueprint(practice.bp)
    app.add_url_rule("/", endpoint="index", view_func=games.index)
    return app
