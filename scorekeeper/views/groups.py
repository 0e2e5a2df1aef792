"""Groups: switch, rename, members, invite links (with QR codes), joining by invite."""

from __future__ import annotations

from flask import Blueprint, abort, flash, g, make_response, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from flask_babel import gettext as _
from markupsafe import Markup

from .. import forms
from ..db import get_session
from ..models import Group, User
from ..services import groups, once
from ..services.groups import current_group
from ..web import message_response

bp = Blueprint("groups", __name__)


def qr_svg(url: str) -> Markup:
    """``url`` as a QR code, inline SVG drawn by segno (no image from another site)."""
    import segno

    return Markup(segno.make(url, error="m").svg_inline(scale=4, border=2, omitsize=True))


def posted_group_id() -> int | None:
    """The group id a posted form carries (its hidden ``group``), None without one (a page kept
    from before the field); anything but a database id is a 404."""
    raw = request.form.get("group")
    if raw is None:
        return None
    group_id = forms.database_id(raw)
    if group_id is None:
        abort(404)
    return group_id


def form_group():
    """The group a posted form was made for: a form acts in the group its page showed, even if
    another tab switched groups meanwhile (a rename, an invite, a load of records, a new game
    would otherwise land in the other group), and that group becomes the current one, which the
    next page says ("Now in …": the other tab shows that group from then on). Without the field,
    the current group. A group the account is not in (never, or no longer: removed while the
    page was open) is a 404 that says so; whether that group exists, it does not say."""
    group_id = posted_group_id()
    if group_id is None or group_id == current_group().id:
        return current_group()
    before = groups.current_group_id()
    try:
        group = groups.switch_to(get_session(), current_user.id, group_id)
    except groups.NotAllowed:
        abort(make_response(message_response(
            _("Nothing was saved: this page was made for a group you are not in (any more). Open it again "
              "from one of your groups."), 404, _("Not found"))))
    groups.say_now_in(group)
    g.switched_from = (before, group)  # for _refused: a refused form leaves the current group as it was
    return group


def _refused(err: groups.NotAllowed):
    """The answer to an action the account may not take: 404 for another group's invite or
    member, else 403 saying why. Nothing changes, not the current group either: a member's
    rename from a page of another of his groups had moved him there, saying "Now in …" (a
    playtest)."""
    if "switched_from" in g:
        groups.switch_back(*g.pop("switched_from"))
    if isinstance(err, groups.NoSuch):  # another group's invite or member: as another group's games
        return message_response(str(err), 404, _("Not found"))
    return message_response(str(err), 403, _("Not allowed"))


@bp.route("/groups")
@login_required
def index():
    """The account's groups (switch in one tap), and the current group's members and invites."""
    return _page()


def _page(refused: tuple[str, str, str] | None = None):
    """The groups page; ``refused``: ``(form, message, text typed)`` when a name sent by the rename
    (``"rename"``) or new group (``"new"``) form was refused: that form again, with the message
    above it and what was typed, answered 400."""
    session = get_session()
    group = current_group()
    role = groups.current_role()
    invites = groups.open_invites(session, group.id) if role == groups.OWNER else []
    links = [(inv, url_for("groups.invite", token=inv.token, _external=True)) for inv in invites]
    page = render_template("groups/index.html", group=group, role=role,
                           mine=groups.memberships(session, current_user.id),
                           members=groups.members(session, group.id), invites=links, qr_svg=qr_svg,
                           refused=refused)
    return page, 400 if refused else 200


@bp.route("/groups/<int:group_id>/switch", methods=["POST"])
@login_required
def switch(group_id: int):
    """Look at another of the account's groups."""
    try:
        group = groups.switch_to(get_session(), current_user.id, group_id)
    except groups.NotAllowed:
        abort(404)
    groups.say_now_in(group)
    return redirect(url_for("index"), 303)


@bp.route("/groups/new", methods=["POST"])
@login_required
def new():
    """Start another group, with this account as its owner, and switch to it."""
    session = get_session()
    try:
        name = groups.clean_group_name(request.form.get("name"))
    except groups.BadName as err:
        return _page(("new", str(err), request.form.get("name") or ""))
    timezone = current_group().timezone

    def make() -> int:
        return groups.create_group(session, session.get(User, current_user.id), name,
                                   timezone).id

    try:
        # Sent twice (a double tap): one group; the repeat switches to it.
        outcome = once.create_once(session, "group", once.token_from(request.form), current_user.id, make)
    except once.BadToken as err:
        return message_response(str(err), 400)
    group = groups.switch_to(session, current_user.id, outcome.target_id)
    flash(_("Group %(name)s made; you are its owner. Invite the others from here.", name=group.name))
    # An anchor of its own ("#top": the top of the page, HTML's own): without one the browser keeps
    # the form's "#another" and opens the page scrolled down to the empty form, the message out of view.
    return redirect(url_for("groups.index", _anchor="top"), 303)


@bp.route("/groups/rename", methods=["POST"])
@login_required
def rename():
    """Rename the current group (owner)."""
    try:
        group = groups.rename(get_session(), current_user.id, form_group().id, request.form.get("name", ""))
    except groups.NotAllowed as err:
        return _refused(err)
    except groups.BadName as err:
        return _page(("rename", str(err), request.form.get("name") or ""))
    flash(_("The group is now called %(name)s.", name=group.name))
    return redirect(url_for("groups.index"), 303)


@bp.route("/groups/invites", methods=["POST"])
@login_required
def new_invite():
    """Make an invite link for the current group (owner)."""
    try:
        groups.new_invite(get_session(), current_user.id, form_group().id)
    except groups.NotAllowed as err:
        return _refused(err)
    flash(_("Invite link made: show its QR code, or send the link."))
    return redirect(url_for("groups.index"), 303)


@bp.route("/groups/invites/<int:invite_id>/revoke", methods=["POST"])
@login_required
def revoke(invite_id: int):
    """Revoke an invite link (owner): it then adds nobody."""
    try:
        groups.revoke_invite(get_session(), current_user.id, form_group().id, invite_id)
    except groups.NotAllowed as err:
        return _refused(err)
    flash(_("Invite link revoked: it no longer adds anyone."))
    return redirect(url_for("groups.index"), 303)


@bp.route("/groups/members/<int:user_id>/remove", methods=["POST"])
@login_required
def remove(user_id: int):
    """Remove a member from the current group (owner)."""
    try:
        groups.remove_member(get_session(), current_user.id, form_group().id, user_id)
    except groups.NotAllowed as err:
        return _refused(err)
    if groups.open_invites(get_session(), current_group().id):
        flash(_("Member removed. The invite links made so far do not add them again; a new one would."))
    else:
        flash(_("Member removed."))
    return redirect(url_for("groups.index"), 303)


@bp.route("/groups/members/<int:user_id>/owner", methods=["POST"])
@login_required
def hand_over(user_id: int):
    """Make a member the owner of the group the page showed (owner); the owner stays a member."""
    session = get_session()
    group = form_group()
    try:
        owner = groups.hand_over(session, current_user.id, group.id, user_id)
    except groups.NotAllowed as err:
        theirs = groups.membership(session, user_id, group.id)
        if theirs is not None and theirs.role == groups.OWNER and groups.current_role() == groups.MEMBER:
            # Tapped twice (or on two phones): the first one did it.
            name = session.get(User, user_id).username
            flash(_("%(name)s is the owner already; nothing changed.", name=name))
            return redirect(url_for("groups.index"), 303)
        return _refused(err)
    flash(_("%(name)s is now the owner of %(group)s; you are a member and may leave it.",
            name=owner.username, group=group.name))
    return redirect(url_for("groups.index"), 303)


@bp.route("/groups/leave", methods=["POST"])
@login_required
def leave():
    """Leave the group the page showed (members; the owner keeps it)."""
    session = get_session()
    # The group the page named, not switched to first: leaving it twice (a double tap) is
    # "not a member", never a second group left.
    group_id = posted_group_id()
    if group_id is None:
        group = current_group()
    else:  # another account's group and no group at all look the same (404)
        group = session.get(Group, group_id) if groups.membership(session, current_user.id, group_id) else None
    if group is None:  # left already (a double tap, a resend), or never in it: nothing to do
        flash(_("You are not a member of that group (any more); nothing changed."))
        return redirect(url_for("index"), 303)
    try:
        name = group.name
        groups.leave(session, current_user.id, group.id)
    except groups.NotAllowed as err:
        return _refused(err)
    flash(_("You left %(name)s.", name=name))
    return redirect(url_for("index"), 303)


@bp.route("/join/<token>", methods=["GET", "POST"])
def invite(token: str):
    """An invite link: who invites, and a button to join (log in or register first)."""
    session = get_session()
    found = groups.find_invite(session, token)
    if found is None:
        return message_response(_("This invite link is unknown or was revoked, so it adds nobody. Ask the group's owner for a new one."), 404, _("Invite not valid"))
    group = session.get(groups.Group, found.group_id)
    member = current_user.is_authenticated and groups.membership(session, current_user.id, group.id)
    try:
        if request.method == "POST" and current_user.is_authenticated:
            groups.join(session, current_user.id, found)
        elif current_user.is_authenticated and not member:  # one the owner removed is told so at once
            groups.refuse_if_removed(session, current_user.id, found)
    except groups.NotAllowed as err:
        return message_response(str(err), 403, _("Invite not valid"))
    if request.method == "POST":
        if not current_user.is_authenticated:
            return redirect(url_for("auth.login", next=request.path), 303)
        groups.switch_to(session, current_user.id, group.id)
        flash(_("You joined %(name)s: its games, players and history are here.", name=group.name))
        return redirect(url_for("index"), 303)
    # The header's "Log in" and "Register" lead back here too, not only the page's own buttons (a
    # playtest: logged in from the header, the invite was gone).
    return render_template("groups/join.html", group=group, token=token, member=member, come_back=request.path)
