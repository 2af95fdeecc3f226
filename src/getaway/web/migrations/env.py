"""Alembic's environment: runs the revisions on the connection that :class:`getaway.web.store.Store`
hands over (``config.attributes["connection"]``), or on ``sqlalchemy.url`` when run as
``alembic -c src/getaway/web/migrations/alembic.ini upgrade head``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from getaway.web.store import database_url, metadata

config = context.config
target_metadata = metadata


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(database_url(config.get_main_option("sqlalchemy.url") or None))
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run()
