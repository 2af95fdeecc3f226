"""The Wilson score interval of a proportion: the one definition, with one ``z``.

Read by the review (:mod:`getaway.bots.review`: the ± of each action's losing chance over the
sampled worlds) and by the simulations (:mod:`getaway.sim.stats`: every loss rate's interval in
``simulate``, the tournaments, the ladder and the lab). It lives in the core (standard library
only) because both the bots and the simulations may import the core, and nothing else of ours.

>>> lo, hi = wilson(25, 100)
>>> round(lo, 3), round(hi, 3)
(0.175, 0.343)
>>> round(half_width(0.5, 100), 3), round(half_width(0.0, 40), 3)
(0.096, 0.044)
"""

from __future__ import annotations

import math
from typing import Final

__all__ = ["Z95", "wilson", "half_width"]

#: The ``z`` of every interval: the standard normal distribution's 97.5 % quantile, so that an
#: interval is 95 % two-sided exactly (not 1.96, a rounding of it: the review used it, the
#: simulations this; the review's ± moves by two parts in 100,000, far below the tenth of a
#: point it is shown with).
Z95: Final = 1.959963984540054


def half_width(p: float, n: int) -> float:
    """The half-width of the 95 % Wilson score interval of a proportion ``p`` (in [0, 1])
    estimated from ``n`` samples, as a fraction in [0, 1]; ``1.0`` for ``n <= 0`` (nothing known).

    It is the interval's half-width before :func:`wilson` clips its bounds at 0 and 1.

    >>> round(half_width(0.1, 100), 4)
    0.0596
    """
    if n <= 0:
        return 1.0
    z2 = Z95 * Z95
    return Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of the proportion ``successes / n``: ``(low, high)``, both
    in [0, 1]; ``(0, 1)`` when there is no trial (``n <= 0``). No success puts ``low`` at 0
    exactly, no failure ``high`` at 1 exactly.

    >>> [round(x, 3) for x in wilson(10, 100)]
    [0.055, 0.174]
    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = half_width(p, n)
    # No success (or no failure) puts that bound at 0 (or 1) exactly, not a rounding error away.
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high
