"""Rebuild the figures of docs/THEORY.md: python docs/theory/build.py (six to eight minutes, one core).

Runs ``mark1 theory --seeds 20 --seed 2024`` and ``mark1 theory curve --seeds 10 --seed 2024``
(the commands that make every number and figure on the page) into a temporary folder, prints
their tables, and copies their figures and CSV tables next to this file. Its ``theory.md`` is not copied: a
Markdown file here would become a page of the Sphinx build. Deterministic.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from mark1.cli import main as mark1

HERE = Path(__file__).resolve().parent
COMMAND = ["theory", "--seeds", "20", "--seed", "2024"]
COPIED = ("p_a.png", "p_c.png", "recall.png", "p_a.csv", "p_c.csv", "recall.csv")
CURVE = ["theory", "curve", "--seeds", "10", "--seed", "2024"]
CURVE_COPIED = ("learning.csv", "curve_ibm704.png", "curve_mark1.png", "fig7.png", "fig8.png", "fig9.png")


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        status = mark1([*COMMAND, "--out", folder]) or mark1([*CURVE, "--out", folder])
        if status == 0:
            for name in COPIED + CURVE_COPIED:
                shutil.copyfile(Path(folder) / name, HERE / name)
    return status


if __name__ == "__main__":
    sys.exit(main())
