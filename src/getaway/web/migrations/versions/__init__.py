"""The revisions, oldest first: 0001 is the schema main created before migrations existed."""
