"""Issue 13: each room's deal secret (128-bit deal seeds), and what reads serve without a replay.

``rooms.secret`` (hex of the room's 32-byte deal secret; NULL for rooms made before it, which
keep their old 32-bit deal seeds), ``rooms.snapshot`` (JSON ``{"public", "history"}`` as of the
last deal end or close), and ``room_deals`` (each finished deal's record, written once).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("secret", sa.String(64), nullable=True))
        batch.add_column(sa.Column("snapshot", sa.Text(), nullable=True))
    op.create_table(
        "room_deals",
        sa.Column("room", sa.String(16), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("deal", sa.Integer(), primary_key=True),
        sa.Column("record", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("room_deals")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("snapshot")
        batch.drop_column("secret")
