"""``python -m mark1``: the command line."""

import sys

from mark1.cli import main

if __name__ == "__main__":
    sys.exit(main())
