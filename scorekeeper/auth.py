"""Accounts: register, log in, log out (Flask-Login; Werkzeug password hashes)."""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import func
from sqlmodel import select
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask import session as cookie
from flask_login import LoginManager, current_user, login_required, login_user, logout_user
from flask_wtf import FlaskForm
from werkzeug.security import check_password_hash, generate_password_hash
from wtforms import BooleanField, PasswordField, StringField
from wtforms.validators import EqualTo, InputRequired, Length, Regexp

from flask_babel import gettext as _

from .db import get_session
from .i18n import _l
from .htmx import client_redirect, is_htmx
from .models import User
from .services import groups
from .web import limiter

bp = Blueprint("auth", __name__)
login_manager = LoginManager()


class LoginForm(FlaskForm):
    username = StringField("Name", validators=[InputRequired(), Length(max=40)],
                           render_kw={"autocomplete": "username", "autocapitalize": "none"})
    password = PasswordField("Password", validators=[InputRequired()],
                             render_kw={"autocomplete": "current-password"})
    remember = BooleanField("Stay logged in on this phone", default=True)


class RegisterForm(FlaskForm):
    username = StringField(
        "Name",
        validators=[
            InputRequired(),
            Length(min=2, max=40),
            Regexp(r"^[A-Za-z0-9._\-]+$", message="Use letters a-z, digits, dots, dashes or underscores."),
        ],
        render_kw={"autocomplete": "username", "autocapitalize": "none"},
    )
    password = PasswordField("Password", validators=[InputRequired(), Length(min=8, max=200)],
                             render_kw={"autocomplete": "new-password"})
    confirm = PasswordField("Password again",
                            validators=[InputRequired(), EqualTo("password", "The passwords differ.")],
                            render_kw={"autocomplete": "new-password"})


def init_app(app) -> None:
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = "Log in to see your games."

    @login_manager.user_loader
    def _load(user_id: str):
        try:
            return get_session().get(User, int(user_id))
        except ValueError:
            return None

    @login_manager.unauthorized_handler
    def _unauthorized():
        target = url_for("auth.login", next=request.full_path if request.method == "GET" else None)
        if is_htmx():
            # Reload the whole page on the login form, never paste it into a panel.
            return client_redirect(url_for("auth.login"), status=401)
        flash(login_manager.login_message)
        return redirect(target)


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


@bp.route("/register", methods=["GET", "POST"])
@limiter.limit("10 per minute", methods=["POST"])
def register():
    """Make an account."""
    form = RegisterForm()
    if form.validate_on_submit():
        session = get_session()
        name = form.username.data.strip()
        exists = find_user(name)
        if exists:
            form.username.errors.append("That name is taken; choose another.")
        else:
            user = User(username=name, password_hash=generate_password_hash(form.password.data))
            session.add(user)
            session.flush()
            groups.create_group(session, user, name, _browser_timezone(request.form.get("timezone")))
            session.commit()
            login_user(user, remember=True)
            return redirect(safe_next(request.args.get("next")), 303)
    status = 400 if form.is_submitted() else 200
    return render_template("auth/register.html", form=form), status


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit("10 per minute", methods=["POST"])
def login():
    """Log in."""
    form = LoginForm()
    if form.validate_on_submit():
        user = find_user(form.username.data.strip())
        if user and check_password_hash(user.password_hash, form.password.data):
            login_user(user, remember=form.remember.data)
            return redirect(safe_next(request.args.get("next")), 303)
        form.password.errors.append("Wrong name or password.")
    status = 400 if form.is_submitted() else 200
    return render_template("auth/login.html", form=form), status


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
    if current_user.is_authenticated:
        session = get_session()
        user = session.get(User, current_user.id)
        user.language = code
        session.add(user)
        session.commit()
    return redirect(safe_next(request.form.get("next")), 303)


@bp.route("/logout", methods=["POST"])
@login_required
def logout():
    """Log out."""
    logout_user()
    cookie.pop("group_id", None)
    return redirect(url_for("auth.login"), 303)


__all__ = ["bp", "current_user", "init_app", "login_manager"]
