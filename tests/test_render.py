"""Card rendering: determinism, declared variation ranges, sources, image reading, contact sheet."""

from __future__ import annotations

import subprocess
import sys
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1.exceptions import RenderError
from mark1.stimuli import Jitter, read_image, render_characters, render_images, render_marks, render_predicate, \
    render_shapes
from mark1.stimuli.fonts import check_font, font_file, missing_characters
from mark1.stimuli.masks import glyph_mask

ROOT = Path(__file__).resolve().parents[1]
SEEDS = (0, 1, 7)


def ink_centroid(card: np.ndarray) -> tuple[float, float]:
    """(x, y) centroid of the ink (1 - reflectance) relative to the card centre, in pixels."""
    ink = 1.0 - card
    h, w = card.shape
    ys, xs = np.mgrid[0:h, 0:w]
    m = ink.sum()
    return (float((ink * (xs + 0.5)).sum() / m - w / 2), float((ink * (ys + 0.5)).sum() / m - h / 2))


def components(mask: np.ndarray) -> int:
    """Number of 8-connected components of a boolean image (plain BFS)."""
    seen = np.zeros_like(mask, dtype=bool)
    h, w = mask.shape
    n = 0
    for y0, x0 in zip(*np.nonzero(mask)):
        if seen[y0, x0]:
            continue
        n += 1
        seen[y0, x0] = True
        q = deque([(y0, x0)])
        while q:
            y, x = q.popleft()
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    yy, xx = y + dy, x + dx
                    if 0 <= yy < h and 0 <= xx < w and mask[yy, xx] and not seen[yy, xx]:
                        seen[yy, xx] = True
                        q.append((yy, xx))
    return n


# ---------------------------------------------------------------------------------------
# determinism and basic contract


@pytest.mark.parametrize("seed", SEEDS)
def test_same_seed_same_bits_other_seed_other_cards(seed):
    j = Jitter(shift=(-0.1, 0.1), rotation=(-30, 30), scale=(0.9, 1.1), noise=(0, 0.05),
                 smudges=(0, 2), blur=(0, 1))
    a = render_characters(list("XEXE"), seed=seed, jitter=j)
    b = render_characters(list("XEXE"), seed=seed, jitter=j)
    c = render_characters(list("XEXE"), seed=seed + 1, jitter=j)
    assert a.cards.dtype == np.float64 and a.cards.shape == (4, 60, 60)
    assert np.array_equal(a.cards, b.cards)
    assert not np.array_equal(a.cards, c.cards)
    assert a.cards.min() >= 0.0 and a.cards.max() <= 1.0


def test_noise_stream_does_not_move_the_glyphs():
    plain = render_characters(list("XE"), seed=3, jitter=Jitter(shift=(-0.1, 0.1), rotation=(-20, 20)))
    noisy = render_characters(list("XE"), seed=3, jitter=Jitter(shift=(-0.1, 0.1), rotation=(-20, 20),
                                                                    noise=(0.05, 0.05)))
    for k in ("shift_x", "shift_y", "rotation"):
        assert np.array_equal(plain.variation[k], noisy.variation[k])
    assert 0.03 < np.std(noisy.cards - plain.cards) < 0.07


def test_glyph_masks_are_cached_and_read_only():
    a = glyph_mask("X", "default", 40.0, 0.0, 4)
    b = glyph_mask("X", "default", 40.0, 0.0, 4)
    assert a is b
    assert not a.array.flags.writeable
    assert a.array.dtype == np.float32 and a.array.max() <= 1.0


def test_identity_jitter_centres_the_shape():
    r = render_shapes(["square", "circle"], seed=0, size=30)
    for card in r.cards:
        cx, cy = ink_centroid(card)
        assert abs(cx) < 0.05 and abs(cy) < 0.05
        # a 30-px solid square/circle: the middle is fully inked, the corners are paper
        assert card[30, 30] == pytest.approx(0.0, abs=1e-6)
        assert card[0, 0] == 1.0


# ---------------------------------------------------------------------------------------
# sampled variation stays in the declared ranges


@pytest.mark.parametrize("seed", SEEDS)
def test_measured_shift_within_declared_range(seed):
    shift = 0.12
    r = render_shapes(["circle", "square"] * 20, seed=seed, size=20,
                        jitter=Jitter(shift=(-shift, shift)))
    for card, sx, sy in zip(r.cards, r.variation["shift_x"], r.variation["shift_y"]):
        cx, cy = ink_centroid(card)
        assert abs(cx) <= shift * 60 + 0.1 and abs(cy) <= shift * 60 + 0.1
        assert cx == pytest.approx(sx * 60, abs=0.1) and cy == pytest.approx(sy * 60, abs=0.1)
    # the range is actually used, not just respected
    assert np.ptp(r.variation["shift_x"]) > shift


@pytest.mark.parametrize("seed", SEEDS)
def test_measured_rotation_matches_and_turns_counter_clockwise(seed):
    r = render_shapes(["hbar"] * 12, seed=seed, size=40, jitter=Jitter(rotation=(-60, 60)))
    for card, rot in zip(r.cards, r.variation["rotation"]):
        ink = 1.0 - card
        ys, xs = np.mgrid[0:60, 0:60]
        m = ink.sum()
        mx, my = (ink * xs).sum() / m, (ink * ys).sum() / m
        cxx = (ink * (xs - mx) ** 2).sum()
        cyy = (ink * (ys - my) ** 2).sum()
        cxy = (ink * (xs - mx) * (ys - my)).sum()
        angle = np.degrees(0.5 * np.arctan2(2 * cxy, cxx - cyy))   # image axes: y down
        assert -60 <= rot <= 60
        assert -angle == pytest.approx(rot, abs=1.5)               # counter-clockwise as seen


def test_measured_scale_and_slant():
    r = render_shapes(["square"] * 10, seed=2, size=20, jitter=Jitter(scale=(0.7, 1.4)))
    area = (1.0 - r.cards).sum(axis=(1, 2))
    assert np.all((0.7 <= r.variation["scale"]) & (r.variation["scale"] <= 1.4))
    np.testing.assert_allclose(area, 400 * r.variation["scale"] ** 2, rtol=0.03)
    bar = render_shapes(["vbar"], seed=0, size=40, slant=20).cards[0]
    top, bottom = ink_centroid(np.where(np.arange(60)[:, None] < 30, bar, 1.0)), \
        ink_centroid(np.where(np.arange(60)[:, None] >= 30, bar, 1.0))
    assert top[0] > bottom[0] + 3        # positive slant leans the top to the right


def test_contrast_paper_noise_blur_smudges():
    solid = render_shapes(["square"] * 6, seed=0, size=30,
                            jitter=Jitter(contrast=(0.5, 0.8), paper=(0.7, 0.9)))
    for card, c, p in zip(solid.cards, solid.variation["contrast"], solid.variation["paper"]):
        assert 0.5 <= c <= 0.8 and 0.7 <= p <= 0.9
        assert card[0, 0] == pytest.approx(p)
        assert card[30, 30] == pytest.approx(p * (1 - c), abs=1e-6)
    blurred = render_shapes(["square"], seed=0, size=30, jitter=Jitter(blur=(2, 2))).cards[0]
    sharp = render_shapes(["square"], seed=0, size=30).cards[0]
    assert np.abs(np.diff(blurred, axis=1)).max() < 0.5 * np.abs(np.diff(sharp, axis=1)).max()
    assert abs(blurred.sum() - sharp.sum()) < 1.0                  # blur moves ink, keeps it
    smudged = render_shapes(["square"] * 20, seed=0, size=10, jitter=Jitter(smudges=(1, 3)))
    assert set(smudged.variation["smudges"]) <= {1, 2, 3}
    assert np.all(smudged.cards.sum(axis=(1, 2)) < sharp.size - 100)   # square + blots


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), shift=st.floats(0, 0.3), rot=st.floats(0, 180),
       s_lo=st.floats(0.5, 1.0), s_hi=st.floats(1.0, 1.5), noise=st.floats(0, 0.2),
       blur=st.floats(0, 2), smudges=st.integers(0, 3))
def test_property_variation_within_ranges_and_cards_valid(seed, shift, rot, s_lo, s_hi, noise, blur, smudges):
    j = Jitter(shift=(-shift, shift), rotation=(-rot, rot), scale=(s_lo, s_hi), noise=(0, noise),
                 blur=(0, blur), smudges=(0, smudges))
    r = render_characters(list("AXE"), seed=seed, jitter=j)
    v = r.variation
    assert np.all(np.abs(v["shift_x"]) <= shift) and np.all(np.abs(v["shift_y"]) <= shift)
    assert np.all(np.abs(v["rotation"]) <= rot)
    assert np.all((v["scale"] >= s_lo) & (v["scale"] <= s_hi))
    assert np.all(v["noise"] <= noise) and np.all(v["blur"] <= blur) and np.all(v["smudges"] <= smudges)
    assert r.cards.shape == (3, 60, 60) and np.all(np.isfinite(r.cards))
    assert r.cards.min() >= 0 and r.cards.max() <= 1


# ---------------------------------------------------------------------------------------
# sources


@pytest.mark.parametrize("seed", SEEDS)
def test_marks_sit_on_their_half(seed):
    r = render_marks(["left", "right"] * 15, seed=seed, size=8, jitter=Jitter(rotation=(-45, 45)))
    for card, label in zip(r.cards, ["left", "right"] * 15):
        ink = 1.0 - card
        left, right = ink[:, :30].sum(), ink[:, 30:].sum()
        assert (left > 30 and right < 1e-9) if label == "left" else (right > 30 and left < 1e-9)
    with pytest.raises(RenderError):
        render_marks(["left"], seed=0, jitter=Jitter(shift=(-0.1, 0.1)))


@pytest.mark.parametrize("seed", SEEDS)
def test_parity_cards_have_the_labelled_parity(seed):
    labels = ["even", "odd"] * 6
    r = render_predicate(labels, seed=seed, predicate="parity", size=8, blobs=(1, 6))
    for card, label, n in zip(r.cards, labels, r.variation["blobs"]):
        counted = components(card < 0.5)
        assert counted == n and 1 <= n <= 6
        assert counted % 2 == (0 if label == "even" else 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_connectedness_cards_are_what_they_say(seed):
    labels = ["connected", "disconnected"] * 5
    r = render_predicate(labels, seed=seed, predicate="connectedness", thickness=3)
    for card, label in zip(r.cards, labels):
        assert components(card < 0.5) == (1 if label == "connected" else 2)


def test_unknown_inputs_raise_render_error():
    with pytest.raises(RenderError) as e:
        render_shapes(["hexagon"], seed=0)
    assert e.value.setting == "classes"
    with pytest.raises(RenderError) as e:
        render_characters(["X"], font="/no/such/font.ttf")
    assert e.value.setting == "font"
    with pytest.raises(RenderError):
        render_characters([" "], seed=0)          # blank glyph
    assert missing_characters("Xж") == ["ж"]


# ---------------------------------------------------------------------------------------
# the user's images


def _png(path: Path, array, mode="L"):
    from PIL import Image
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.asarray(array), mode).save(path)


def test_read_image_gray_rgba_invert_16bit_and_aspect(tmp_path):
    gray = np.full((20, 40), 255, np.uint8)
    gray[5:15, 10:30] = 0
    _png(tmp_path / "g.png", gray)
    card = read_image(str(tmp_path / "g.png"), 40)
    assert card.shape == (40, 40) and card.dtype == np.float64
    assert card[0, 0] == 1.0 and card[20, 20] == 0.0            # padded with paper, ink kept
    _png(tmp_path / "wb.png", 255 - gray)                      # white ink on black
    inv = read_image(str(tmp_path / "wb.png"), 40, invert=True)
    assert inv[20, 5] == 1.0 and inv[20, 20] == 0.0           # becomes black ink on white paper
    rgba = np.zeros((10, 10, 4), np.uint8)                      # transparent black: paper
    rgba[4:6, 4:6] = (0, 0, 0, 255)
    _png(tmp_path / "a.png", rgba, "RGBA")
    a = read_image(str(tmp_path / "a.png"), 10)
    assert a[0, 0] == 1.0 and a[5, 5] == 0.0
    from PIL import Image
    Image.fromarray(np.full((8, 8), 65535, np.uint16)).save(tmp_path / "w16.png")
    assert read_image(str(tmp_path / "w16.png"), 8).min() == 1.0
    (tmp_path / "bad.png").write_bytes(b"not an image")
    with pytest.raises(RenderError) as e:
        read_image(str(tmp_path / "bad.png"), 8)
    assert e.value.setting == "folder" and "bad.png" in e.value.reason


def test_render_images_identity_is_exact_and_jitter_moves():
    img = np.ones((2, 30, 30))
    img[0, 10:20, 10:20] = 0.25
    r = render_images(img, [0, 1, 0], seed=0)
    assert np.allclose(r.cards, img[[0, 1, 0]], atol=1e-6)
    moved = render_images(img, [0] * 5, seed=0, jitter=Jitter(shift=(0.1, 0.1)))
    assert np.allclose(moved.cards[:, 13:23, 13:23], 0.25, atol=1e-5)


# ---------------------------------------------------------------------------------------
# import hygiene and the contact sheet


def test_pillow_and_matplotlib_stay_where_they_belong():
    code = ("import sys, mark1.stimuli, mark1.machine; "
            "print('matplotlib' in sys.modules, 'mark1.viz' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["False", "False"]
    for room in ("machine", "linear_model", "lab", "_utils"):     # Pillow: the cards, the figures, the classroom
        for f in (ROOT / "mark1" / room).rglob("*.py"):
            text = f.read_text()
            assert "from PIL" not in text and "import PIL" not in text, f


def test_contact_sheet_writes_atomically(tmp_path):
    from matplotlib.figure import Figure

    from mark1.stimuli import load_scene
    from mark1.viz import contact_sheet
    scene = load_scene(ROOT / "scenes" / "demo.toml")
    out = tmp_path / "sheets" / "demo.png"
    fig = contact_sheet(scene, seed=0, per_class=2, out=out)
    assert isinstance(fig, Figure)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in out.parent.iterdir()] == ["demo.png"]      # no temp file left
    assert len(fig.axes) == 2 * 2 * 3                                  # 2 classes x 2 cards x 3 panels
    with pytest.raises(ValueError):
        contact_sheet(scene, per_class=0)


def test_a_matplotlib_face_is_a_font_everywhere_a_font_is_taken():
    face = "matplotlib:DejaVuSerif.ttf"
    check_font(face)
    assert missing_characters("E", face) == []
    assert np.array_equal(glyph_mask("E", face, size=20).array, glyph_mask("E", font_file(face), size=20).array)
    with pytest.raises(RenderError, match="font"):
        check_font("matplotlib:NoSuchFace.ttf")
