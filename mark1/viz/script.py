"""The command line of a script that writes figures: the examples', or a teacher's own.

Every script in ``examples/`` takes ``--out DIR`` (where its figures go, ``output/``
beside the script unless told) and most a ``--seed``; this is that command line once,
so a script's ``main`` starts with what it is about, not with its plumbing.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["script_parser"]


def _folder(text: str) -> Path:
    """``--out``: the folder, made if it is not there yet."""
    path = Path(text)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot make the folder {text}: {e.strerror or e}") from None
    return path


def script_parser(doc: str, script: str | os.PathLike, *, seed: bool = False) -> argparse.ArgumentParser:
    """An argument parser for a script that writes figures, with ``--out`` (and ``--seed``).

    Parameters
    ----------
    doc : str
        The script's docstring; its title (the first line that is not blank, as in a
        sphinx-gallery example) describes the script in ``--help``.
    script : str or path-like
        The script's ``__file__``: ``--out`` defaults to the folder ``output`` beside it.
    seed : bool
        Add ``--seed N`` (an integer, default 0): the seed of the cards and of the
        machine, as ``mark1 run --seed N`` takes it.

    Returns
    -------
    argparse.ArgumentParser
        Add the script's own options to it, then ``parse_args``. ``--out`` parses to a
        :class:`pathlib.Path` of a folder that exists (it is made, parents and all).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> doc = '''
    ... Parity: what the Mark I cannot learn
    ... ====================================
    ... '''
    >>> with tempfile.TemporaryDirectory() as d:
    ...     ap = script_parser(doc, pathlib.Path(d) / "parity.py", seed=True)
    ...     args = ap.parse_args(["--seed", "3"])
    ...     print(ap.description, args.seed, args.out.name, args.out.is_dir())
    Parity: what the Mark I cannot learn 3 output True
    """
    title = next((line.strip() for line in doc.splitlines() if line.strip()), "")
    ap = argparse.ArgumentParser(description=title)
    if seed:
        ap.add_argument("--seed", type=int, default=0, help="seed of the cards and of the machine (default 0)")
    ap.add_argument("--out", type=_folder, default=str(Path(script).resolve().parent / "output"),
                    help="folder for what the script writes (default: output/ beside the script)")
    return ap
