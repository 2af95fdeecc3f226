"""Alembic migrations of the web store (:mod:`getaway.web.store`): ``Store`` upgrades every
database to the newest revision when it opens it (docs/web.md, "Migrations")."""
