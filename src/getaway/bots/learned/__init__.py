"""A learned evaluation for the expert's search: a small value network over a whole deal.

The expert's search (:mod:`getaway.bots.expert`) scores each legal action in sampled worlds, in
which every hand is known. With ``leaf="value"`` a world is played on with the heuristic only to
the end of the current trick and ``leaf_tricks`` more, and the position reached is scored by
:class:`ValueModel`: the chance that a seat loses the deal from there. So the search stops
paying for every rollout to the deal's end, and can sample more worlds in the same time.

- :mod:`.features`: the one encoding of a position for the value network (:func:`leaf_key`, a
  tuple of bit sets taken in the search's inner loop, and :func:`features`, the batch of
  vectors numpy builds from them at once).
- :mod:`.model`: :class:`ValueModel` (numpy only: the shipped model loads without the ``train``
  extra) and :func:`shipped`, the model packaged for a profile and player count.
- :mod:`.train`: ``python -m getaway.bots.learned.train``, the resumable self-play training
  (docs/bots.md "The learned evaluation").
"""

from __future__ import annotations

from .features import feature_size, features, leaf_key
from .model import ModelError, ValueModel, shipped

__all__ = ["ModelError", "ValueModel", "feature_size", "features", "leaf_key", "shipped"]
