"""Fonts: Pillow's bundled face, the faces matplotlib ships, or a TTF/OTF file.

A font is named by a string: ``"default"`` (Pillow's bundled scalable face),
``"matplotlib:NAME"`` (a TrueType face shipped with matplotlib, so that a scene can use a
second typeface on any machine) or the path of a TTF/OTF file. Loaded faces are cached.
"""

from __future__ import annotations

import functools
import os

from PIL import ImageFont

from mark1.exceptions import RenderError

__all__ = ["MATPLOTLIB_FONT", "font_file", "check_font", "missing_characters"]

#: Font names starting with this prefix name a TrueType face shipped with matplotlib, so that a
#: scene can use a second typeface on any machine: ``"matplotlib:DejaVuSerif.ttf"``.
MATPLOTLIB_FONT = "matplotlib:"


def font_file(font: str) -> str:
    """The font file a font name means.

    ``"matplotlib:NAME"`` is the TrueType face ``NAME`` shipped with matplotlib (in
    ``matplotlib.get_data_path()/fonts/ttf``: DejaVu Sans, Serif and Sans Mono, STIX, and
    Computer Modern such as ``cmr10.ttf``); any other name is returned unchanged.

    Parameters
    ----------
    font : str
        ``"default"``, ``"matplotlib:NAME"`` or the path of a TTF/OTF file.

    Returns
    -------
    str
        The path of the face's file for ``"matplotlib:NAME"``, else ``font`` unchanged.

    Raises
    ------
    RenderError
        ``setting == "font"`` when matplotlib ships no such face.

    Examples
    --------
    >>> import os
    >>> from mark1.stimuli.fonts import font_file
    >>> os.path.basename(font_file("matplotlib:DejaVuSerif.ttf"))
    'DejaVuSerif.ttf'
    >>> font_file("default"), font_file("fonts/mine.ttf")
    ('default', 'fonts/mine.ttf')
    """
    if not font.startswith(MATPLOTLIB_FONT):
        return font
    import matplotlib  # only for the location of its fonts

    folder = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    name = font[len(MATPLOTLIB_FONT):]
    shipped = sorted(f for f in os.listdir(folder) if f.lower().endswith((".ttf", ".otf"))) \
        if os.path.isdir(folder) else []
    if name not in shipped:
        examples = [f for f in ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "STIXGeneral.ttf",
                                "cmr10.ttf") if f in shipped]
        raise RenderError("font", f"expected a face shipped with matplotlib, e.g. "
                                  f"{', '.join(MATPLOTLIB_FONT + f for f in examples)} "
                                  f"({len(shipped)} faces in {folder}), got {font!r}")
    return os.path.join(folder, name)


@functools.lru_cache(maxsize=64)
def _load_font(font: str, px: int):
    font = font_file(font)                       # "matplotlib:NAME" means a file too
    if font == "default":
        try:
            return ImageFont.load_default(size=px)
        except Exception as exc:  # pragma: no cover - Pillow without FreeType
            raise RenderError("font", f"expected Pillow with FreeType for the default font, got {exc}") from exc
    if not os.path.isfile(font):
        raise RenderError("font", f"expected 'default' or an existing TTF/OTF file, got {font!r} (no such file)")
    try:
        return ImageFont.truetype(font, px)
    except Exception as exc:
        raise RenderError("font", f"expected a readable TTF/OTF font, got {font!r} ({exc})") from exc


def check_font(font: str) -> None:
    """Raise :class:`~mark1.exceptions.RenderError` unless ``font`` can be loaded.

    Parameters
    ----------
    font : str
        ``"default"``, ``"matplotlib:NAME"`` or the path of a TTF/OTF file.

    Raises
    ------
    RenderError
        ``setting == "font"`` for a missing or unreadable font.

    Examples
    --------
    >>> from mark1.exceptions import RenderError
    >>> from mark1.stimuli.fonts import check_font
    >>> check_font("matplotlib:DejaVuSans.ttf")                   # loads: nothing to say
    >>> try:
    ...     check_font("no/such.ttf")
    ... except RenderError as e:
    ...     print(e.setting, "|", e.reason)
    font | expected 'default' or an existing TTF/OTF file, got 'no/such.ttf' (no such file)
    """
    _load_font(font, 20)


def missing_characters(text: str, font: str = "default") -> list[str]:
    """Characters of ``text`` the font has no glyph for (drawn as its 'missing' box).

    Parameters
    ----------
    text : str
        The characters to look up (white space is never missing).
    font : str
        ``"default"``, ``"matplotlib:NAME"`` or the path of a TTF/OTF file.

    Returns
    -------
    list of str
        Each missing character once, in the order of ``text``.

    Examples
    --------
    >>> from mark1.stimuli.fonts import missing_characters
    >>> missing_characters("XE"), missing_characters("Xé")
    ([], ['é'])
    >>> missing_characters("Xé", "matplotlib:DejaVuSans.ttf")
    []
    """
    notdef = _char_signature("\uffff", font)   # a noncharacter: never in any font
    return [ch for ch in dict.fromkeys(text) if not ch.isspace() and _char_signature(ch, font) == notdef]


@functools.lru_cache(maxsize=4096)
def _char_signature(ch: str, font: str) -> bytes:
    f = _load_font(font, 24)
    try:
        img = f.getmask(ch)
        return bytes([img.size[0] % 256, img.size[1] % 256]) + bytes(img)
    except Exception:
        return b""
