"""The web app (``getaway serve``, docs/web.md): a satellite of the core, imported by nobody in it.

- :mod:`getaway.web.store`: the database (rooms, seat token hashes, the append-only room log).
- :mod:`getaway.web.rooms`: :class:`~getaway.web.rooms.state.Room` (pure state) and
  :class:`~getaway.web.rooms.service.RoomService` (one queue and one worker per room), a
  package of small modules (its ``__init__`` lists them).
- :mod:`getaway.web.botpool`: :class:`~getaway.web.botpool.BotPool`, the searching bots' worker processes.
- :mod:`getaway.web.app`: :func:`~getaway.web.app.create_app`, the FastAPI app, from
  :class:`~getaway.web.settings.ServeSettings` (every serve setting once) and the routers of
  :mod:`getaway.web.routes` (one per area).
- :mod:`getaway.web.offline`: the offline table (one deal against bots), which the page runs in
  Pyodide from a zip of the core, the bots and this file (:mod:`getaway.web.routes.offline`):
  so this ``__init__`` imports nothing.
- ``static/``: the page (plain HTML, CSS and JavaScript modules; no build step).
"""
