"""The user's images: a folder of class folders, each image read as reflectance on a card."""

from __future__ import annotations

import os

import numpy as np
from PIL import Image, ImageOps

from mark1.exceptions import InputError, RenderError
from mark1.stimuli.render import _check_card_size

__all__ = ["IMAGE_EXTENSIONS", "decoded_bytes", "list_image_folder", "read_image"]

#: File name endings read as images by :func:`list_image_folder` (case-insensitive).
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")


def list_image_folder(folder: str) -> dict[str, list[str]]:
    """Image files per class: ``{subfolder name: [sorted file paths]}``.

    Hidden entries (starting with ".") are skipped; files are recognised by their ending
    (:data:`IMAGE_EXTENSIONS`).

    Parameters
    ----------
    folder : str
        A folder with one subfolder per class.

    Returns
    -------
    dict of str to list of str
        The image files of each class subfolder (sorted; a subfolder without images maps
        to an empty list).

    Raises
    ------
    RenderError
        ``setting == "folder"`` for a missing or unreadable folder.

    Examples
    --------
    >>> import os, tempfile
    >>> from PIL import Image
    >>> from mark1.stimuli.images import list_image_folder
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     for c in ("cat", "dog"):
    ...         os.mkdir(os.path.join(tmp, c))
    ...         Image.new("L", (8, 4), 0).save(os.path.join(tmp, c, "a.png"))
    ...     _ = open(os.path.join(tmp, "cat", "notes.txt"), "w").write("not an image")
    ...     listing = list_image_folder(tmp)
    ...     print({c: [os.path.basename(f) for f in files] for c, files in listing.items()})
    {'cat': ['a.png'], 'dog': ['a.png']}
    """
    if not os.path.isdir(folder):
        raise RenderError("folder", f"expected an existing folder with one subfolder per class, got {folder!r}"
                                    + (" (not a folder)" if os.path.exists(folder) else " (no such folder)"))
    out = {}
    try:
        for entry in sorted(os.listdir(folder)):
            sub = os.path.join(folder, entry)
            if entry.startswith(".") or not os.path.isdir(sub):
                continue
            out[entry] = sorted(os.path.join(sub, f) for f in os.listdir(sub)
                                if not f.startswith(".") and f.lower().endswith(IMAGE_EXTENSIONS)
                                and os.path.isfile(os.path.join(sub, f)))
    except OSError as exc:
        raise RenderError("folder", f"expected a readable folder, got {folder!r} ({exc.strerror})") from None
    return out


def read_image(path: str, card_size: int, invert: bool = False) -> np.ndarray:
    """Read one image as reflectance on a card.

    Colour is converted to luminance; transparent parts count as white paper; 16-bit
    images keep their range. The image is scaled to fit the card keeping its aspect
    ratio and centred on white paper. ``invert`` turns white-on-black into black-on-white
    (before padding).

    Parameters
    ----------
    path : str
        An image file Pillow can read (PNG, JPEG, ...).
    card_size : int
        Card side in pixels, at least 4.
    invert : bool
        True for white ink on black.

    Returns
    -------
    ndarray of shape (card_size, card_size), float64 in [0, 1]
        Reflectance: 1 is paper white, 0 black ink.

    Raises
    ------
    RenderError
        ``setting == "folder"`` for an unreadable, empty or NaN image; ``"card_size"``
        for a card size that is not an integer >= 4.

    Examples
    --------
    >>> import os, tempfile
    >>> from PIL import Image
    >>> from mark1.stimuli import read_image
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     Image.new("L", (8, 4), 0).save(os.path.join(tmp, "bar.png"))     # black, twice as wide as high
    ...     card = read_image(os.path.join(tmp, "bar.png"), card_size=20)
    ...     inverted = read_image(os.path.join(tmp, "bar.png"), card_size=20, invert=True)
    >>> card.shape, card.dtype, int((card < 0.5).sum())         # 20 x 10 of ink, centred on white paper
    ((20, 20), dtype('float64'), 200)
    >>> card[:, 10]
    array([1., 1., 1., 1., 1., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 1., 1., 1., 1., 1.])
    >>> float(inverted.min())
    1.0
    """
    card_size = _check_card_size(card_size)
    try:
        with Image.open(path) as opened:
            opened.load()
            img = ImageOps.exif_transpose(opened)
            if img.width < 1 or img.height < 1:
                raise InputError("empty image")
            if img.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
                a = np.asarray(img, dtype=np.float64)
                if img.mode == "F":
                    if not np.all(np.isfinite(a)):
                        raise InputError("NaN or infinite pixels")
                    a = np.clip(a, 0.0, 1.0) if a.max() <= 1.0 else a / a.max()
                else:
                    a = a / (65535.0 if a.max() > 255 else 255.0)
                gray = Image.fromarray(np.clip(a * 255.0 + 0.5, 0, 255).astype(np.uint8), "L")
            elif img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
                rgba = img.convert("RGBA")
                white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
                gray = Image.alpha_composite(white, rgba).convert("L")
            else:
                gray = img.convert("L")
            if invert:
                gray = ImageOps.invert(gray)
            w, h = gray.size
            f = card_size / max(w, h)
            nw, nh = max(1, round(w * f)), max(1, round(h * f))
            gray = gray.resize((nw, nh), Image.Resampling.LANCZOS if f < 1 else Image.Resampling.BICUBIC)
            card = Image.new("L", (card_size, card_size), 255)
            card.paste(gray, ((card_size - nw) // 2, (card_size - nh) // 2))
    except Exception as exc:
        raise RenderError("folder", f"expected a readable image ({' '.join(IMAGE_EXTENSIONS)}), "
                                    f"got {path!r} ({exc})") from exc
    return np.asarray(card, dtype=np.float64) / 255.0


def decoded_bytes(path: str) -> int:
    """Bytes one image takes once decoded, from its header alone (nothing is decoded).

    Parameters
    ----------
    path : str
        An image file PIL can open.

    Returns
    -------
    int
        width x height x bands x bytes a band (2 for 16-bit, 4 for 32-bit modes, else 1);
        0 for a file whose header cannot be read (:func:`read_image` reports it).

    Examples
    --------
    >>> import tempfile, os
    >>> from PIL import Image
    >>> p = os.path.join(tempfile.mkdtemp(), "a.png")
    >>> Image.new("I;16", (30, 20)).save(p)
    >>> decoded_bytes(p)
    1200
    """
    try:
        with Image.open(path) as im:
            w, h = im.size
            mode, bands = im.mode, len(im.getbands())
    except Exception:
        return 0
    per = 2 if mode.startswith("I;16") else 4 if mode in ("I", "F", "RGBa") else 1
    return w * h * bands * per

