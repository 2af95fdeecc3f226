"""The schema before migrations (main at f237ac2): rooms, seats, room_log.

A database made by that code already has these tables and no ``alembic_version``: the tables
that exist are kept as they are (their rows too), the missing ones created.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "rooms" not in existing:
        op.create_table(
            "rooms",
            sa.Column("code", sa.String(16), primary_key=True),
            sa.Column("created", sa.Float, nullable=False),
            sa.Column("updated", sa.Float, nullable=False),
            sa.Column("config", sa.Text, nullable=False),
            sa.Column("seed", sa.BigInteger, nullable=False),
            sa.Column("host_hash", sa.String(64), nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("version", sa.Integer, nullable=False),
        )
    if "seats" not in existing:
        op.create_table(
            "seats",
            sa.Column("room", sa.String(16), sa.ForeignKey("rooms.code"), primary_key=True),
            sa.Column("seat", sa.Integer, primary_key=True),
            sa.Column("token_hash", sa.String(64), nullable=False),
        )
    if "room_log" not in existing:
        op.create_table(
            "room_log",
            sa.Column("room", sa.String(16), sa.ForeignKey("rooms.code"), primary_key=True),
            sa.Column("version", sa.Integer, primary_key=True),
            sa.Column("kind", sa.String(16), nullable=False),
            sa.Column("payload", sa.Text, nullable=False),
            sa.Column("time", sa.Float, nullable=False),
        )


def downgrade() -> None:
    op.drop_table("room_log")
    op.drop_table("seats")
    op.drop_table("rooms")
