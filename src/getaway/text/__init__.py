"""Everything shown as text to a person: the ``getaway`` command line (:mod:`.cli`), the
terminal game (:mod:`.terminal`), the narration of events (:mod:`.narrate`), the rules text
(:mod:`.rules_text`) and the languages (:mod:`.i18n`, catalogs in ``locale/``; docs/cli.md)."""
