"""Environments for game-AI research: thin adapters over the engine (docs/envs.md).

- :mod:`getaway.envs.encoding`: the one observation encoding, from a player's view;
- :mod:`getaway.envs.pettingzoo`: a PettingZoo AEC environment (``pip install getaway[pettingzoo]``);
- :mod:`getaway.envs.openspiel`: the OpenSpiel Python game ``python_getaway`` (``getaway[openspiel]``);
- :mod:`getaway.envs.gym`: a Gymnasium single-agent environment against bots (``getaway[gym]``);
- :mod:`getaway.envs.vector`: its Gymnasium vector environment, B deals against random bots
  stepped together in compiled code (``getaway[gym]``).

The simulation runner on a Ray cluster is :mod:`getaway.sim.ray_backend` (``getaway[ray]``).

Satellites: they import the core, nothing in the core imports them. Only
:mod:`~getaway.envs.encoding` (numpy) is imported here; each adapter imports its framework.
"""
