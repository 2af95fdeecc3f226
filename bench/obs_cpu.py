"""The observation path in CPU time: the engine's deals/s and the PettingZoo ``env.last()``
loop's (an observation every step), and the cost of ``last()`` per step, in process time
(steadier than wall time on a shared machine; issue 12, docs/envs.md "Speed").

    .venv/bin/python bench/obs_cpu.py
"""

import random
import time

from getaway import Deal, Rules
from getaway.envs.pettingzoo import raw_env

pt = time.process_time
opts = {"profile": "punjab", "players": 4, "takes": "off"}
rules = Rules.profile("punjab", players=4, takes="off")
# engine deals/s (CPU)
t0 = pt()
deals = 0
rand = random.Random(0).random
while pt() - t0 < 3:
    d = Deal(rules, deals % 4, deals)
    while not d.is_over:
        legal = d.legal_actions()
        d.apply(legal[int(rand() * len(legal))])
    deals += 1
engine = deals / (pt() - t0)
# pettingzoo last() loop deals/s (CPU)
e = raw_env(**opts)
rand = random.Random(0).random
t0 = pt()
deals = 0
steps = 0
obs_t = 0.0
while pt() - t0 < 6:
    e.reset(seed=0 if deals == 0 else None)
    for _agent in e.agent_iter():
        a = pt()
        obs, _, term, trunc, _ = e.last()
        obs_t += pt() - a
        if term or trunc:
            e.step(None)
            continue
        legal = obs["action_mask"].nonzero()[0]
        e.step(int(legal[int(rand() * len(legal))]))
        steps += 1
    deals += 1
loop = deals / (pt() - t0)
print(
    f"engine {engine:,.0f} deals/s; pettingzoo last() loop {loop:,.0f} deals/s = {loop / engine:.1%} of engine;"
    f" last() {obs_t / steps * 1e6:.1f} us/step"
)
