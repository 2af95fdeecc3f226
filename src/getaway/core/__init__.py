"""The core: the rules of Getaway and nothing else (standard library only).

Cards and bit sets (:mod:`.cards`), rules and options (:mod:`.rules`), actions and events
(:mod:`.events`), explicit positions (:mod:`.position`), the deal state machine (:mod:`.deal`,
compiled with mypyc where it can be; :mod:`._engine` chooses), the player's view (:mod:`.view`),
matches (:mod:`.match`), game records (:mod:`.record`) and the translatable error texts
(:mod:`.messages`). Nothing here imports a satellite (bots, sim, envs, text, web);
tests/test_architecture.py checks it. The public names are re-exported by :mod:`getaway`.

This file imports nothing: ``getaway/__init__.py`` imports :mod:`._engine` first, for its effect.
"""
