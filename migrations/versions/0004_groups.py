"""groups: games and players belong to a group; members, invites, live links

Every existing account gets a group of its own, with the same id as the
account, named after it, holding its time zone: its games and players move
to that group (``game.owner_id`` and ``player.owner_id`` become
``group_id`` with the same values), and the account is its owner. So every
game and player keeps its id and every URL that worked still works for its
owner. Also: ``invite`` links, ``game.live_token`` (the read-only live
link) and ``entry.entered_by`` (which account entered it).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes


revision: str = "0004"
down_revision: Union[str, None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "group",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("timezone", sqlmodel.sql.sqltypes.AutoString(length=64), server_default="UTC",
                  nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_group")),
    )
    op.create_table(
        "membership",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["group_id"], ["group.id"], name=op.f("fk_membership_group_id_group")),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], name=op.f("fk_membership_user_id_user")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_membership")),
        sa.UniqueConstraint("group_id", "user_id", name="uq_membership_group_id_user_id"),
    )
    with op.batch_alter_table("membership") as batch_op:
        batch_op.create_index(batch_op.f("ix_membership_group_id"), ["group_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_membership_user_id"), ["user_id"], unique=False)
    op.create_table(
        "invite",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("token", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["group_id"], ["group.id"], name=op.f("fk_invite_group_id_group")),
        sa.ForeignKeyConstraint(["created_by"], ["user.id"], name=op.f("fk_invite_created_by_user")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invite")),
        sa.UniqueConstraint("token", name=op.f("uq_invite_token")),
    )
    with op.batch_alter_table("invite") as batch_op:
        batch_op.create_index(batch_op.f("ix_invite_group_id"), ["group_id"], unique=False)

    # One group per account, same id, holding its time zone; the account owns it.
    conn = op.get_bind()
    conn.execute(sa.text(
        'INSERT INTO "group" (id, name, timezone, created_at) '
        'SELECT id, username, timezone, created_at FROM "user"'))
    conn.execute(sa.text(
        "INSERT INTO membership (group_id, user_id, role, created_at) "
        "SELECT id, id, 'owner', created_at FROM \"user\""))
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text(
            "SELECT setval(pg_get_serial_sequence('\"group\"', 'id'), "
            "COALESCE((SELECT MAX(id) FROM \"group\"), 0) + 1, false)"))

    for table in ("game", "player"):
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(sa.Column("group_id", sa.Integer(), nullable=True))
        conn.execute(sa.text(f"UPDATE {table} SET group_id = owner_id"))

    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_index("ix_game_owner_id_played_at")
        batch_op.drop_index("ix_game_owner_id")
        batch_op.drop_constraint("fk_game_owner_id_user", type_="foreignkey")
        batch_op.drop_column("owner_id")
        batch_op.alter_column("group_id", existing_type=sa.Integer(), nullable=False)
        batch_op.create_foreign_key("fk_game_group_id_group", "group", ["group_id"], ["id"])
        batch_op.create_index("ix_game_group_id", ["group_id"], unique=False)
        batch_op.create_index("ix_game_group_id_played_at", ["group_id", "played_at"], unique=False)
        batch_op.add_column(sa.Column("live_token", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch_op.create_unique_constraint("uq_game_live_token", ["live_token"])

    with op.batch_alter_table("player") as batch_op:
        batch_op.drop_constraint("uq_player_owner_id_name_key", type_="unique")
        batch_op.drop_index("ix_player_owner_id")
        batch_op.drop_constraint("fk_player_owner_id_user", type_="foreignkey")
        batch_op.drop_column("owner_id")
        batch_op.alter_column("group_id", existing_type=sa.Integer(), nullable=False)
        batch_op.create_foreign_key("fk_player_group_id_group", "group", ["group_id"], ["id"])
        batch_op.create_index("ix_player_group_id", ["group_id"], unique=False)
        batch_op.create_unique_constraint("uq_player_group_id_name_key", ["group_id", "name_key"])

    with op.batch_alter_table("entry") as batch_op:
        batch_op.add_column(sa.Column("entered_by", sa.Integer(), nullable=True))
        batch_op.create_foreign_key("fk_entry_entered_by_user", "user", ["entered_by"], ["id"])

    with op.batch_alter_table("user") as batch_op:
        batch_op.drop_column("timezone")
    _keep_lower_name_index(conn)


def _keep_lower_name_index(conn) -> None:
    """SQLite's batch rebuild of ``user`` loses the index on ``lower(username)`` (0003), which
    reflection cannot copy: make it again."""
    if conn.dialect.name == "sqlite":
        conn.execute(sa.text("DROP INDEX IF EXISTS uq_user_username_lower"))
        op.create_index("uq_user_username_lower", "user", [sa.text("lower(username)")], unique=True)


def downgrade() -> None:
    """Back to one owner per game: each group's games and players go to its first owner."""
    conn = op.get_bind()
    with op.batch_alter_table("user") as batch_op:
        batch_op.add_column(sa.Column("timezone", sqlmodel.sql.sqltypes.AutoString(length=64),
                                      server_default="UTC", nullable=False))
    conn.execute(sa.text(
        'UPDATE "user" SET timezone = (SELECT g.timezone FROM "group" g JOIN membership m '
        "ON m.group_id = g.id WHERE m.user_id = \"user\".id AND m.role = 'owner' "
        "ORDER BY g.id LIMIT 1) WHERE EXISTS (SELECT 1 FROM membership m WHERE m.user_id = \"user\".id "
        "AND m.role = 'owner')"))
    _keep_lower_name_index(conn)
    with op.batch_alter_table("entry") as batch_op:
        batch_op.drop_constraint("fk_entry_entered_by_user", type_="foreignkey")
        batch_op.drop_column("entered_by")
    owner = ("(SELECT MIN(m.user_id) FROM membership m WHERE m.group_id = {t}.group_id "
             "AND m.role = 'owner')")
    for table in ("game", "player"):
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(sa.Column("owner_id", sa.Integer(), nullable=True))
        conn.execute(sa.text(f"UPDATE {table} SET owner_id = " + owner.format(t=table)))
    with op.batch_alter_table("player") as batch_op:
        batch_op.drop_constraint("uq_player_group_id_name_key", type_="unique")
        batch_op.drop_index("ix_player_group_id")
        batch_op.drop_constraint("fk_player_group_id_group", type_="foreignkey")
        batch_op.drop_column("group_id")
        batch_op.alter_column("owner_id", existing_type=sa.Integer(), nullable=False)
        batch_op.create_foreign_key("fk_player_owner_id_user", "user", ["owner_id"], ["id"])
        batch_op.create_index("ix_player_owner_id", ["owner_id"], unique=False)
        batch_op.create_unique_constraint("uq_player_owner_id_name_key", ["owner_id", "name_key"])
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_constraint("uq_game_live_token", type_="unique")
        batch_op.drop_column("live_token")
        batch_op.drop_index("ix_game_group_id_played_at")
        batch_op.drop_index("ix_game_group_id")
        batch_op.drop_constraint("fk_game_group_id_group", type_="foreignkey")
        batch_op.drop_column("group_id")
        batch_op.alter_column("owner_id", existing_type=sa.Integer(), nullable=False)
        batch_op.create_foreign_key("fk_game_owner_id_user", "user", ["owner_id"], ["id"])
        batch_op.create_index("ix_game_owner_id", ["owner_id"], unique=False)
        batch_op.create_index("ix_game_owner_id_played_at", ["owner_id", "played_at"], unique=False)
    op.drop_table("invite")
    op.drop_table("membership")
    op.drop_table("group")
