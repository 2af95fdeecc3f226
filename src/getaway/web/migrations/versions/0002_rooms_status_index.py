"""An index on ``rooms.status``: the server's start reads the unfinished rooms by status.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rooms_status", "rooms", ["status"])


def downgrade() -> None:
    op.drop_index("ix_rooms_status", table_name="rooms")
