"""``python -m getaway``: the command line."""

from .text.cli import main

if __name__ == "__main__":
    main()
