"""Simulation and measurement: many seeded deals among bots (:mod:`.simulation`, on all cores
or on Ray: :mod:`.ray_backend`), duplicate tournaments (:mod:`.tournament`) and their
statistics and plots (:mod:`.stats`). Satellites of the core and the bots (docs/bots.md)."""
