"""``python -m mark1``: the command line."""

import sys

from mark1.cli import main

sys.exit(main())
