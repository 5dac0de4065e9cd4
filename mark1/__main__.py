"""``python -m mark1``: the command line."""

import sys

from .cli import main

sys.exit(main())
