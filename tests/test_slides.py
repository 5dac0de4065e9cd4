"""Figures for a projected slide (mark1.viz.style): no text under 20 px once the saved image is
fitted to a 1280x720 slide, data lines at least 3 px, and the page style untouched outside.

A text's height on the slide is measured from the saved file, not from the style's own
reckoning: its size in points times the file's dpi / 72 is its height in the image's pixels,
and fitting the image to the slide scales every pixel by min(1280 / width, 720 / height).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.text import Text
from PIL import Image

import mark1
from mark1.cli import main
from mark1.viz import learning_curve, retina_figure, save_figure, slides
from mark1.viz.style import SLIDE_LINE_PX, SLIDE_MIN_PX, for_slide, slide_style

ROOT = Path(__file__).resolve().parents[1]


def _machine(seed: int):
    cards = np.ones((6, 20, 20))
    cards[0::2, 4:16, 9:11] = 0.05
    cards[1::2, 9:11, 4:16] = 0.05
    return mark1.MarkI(spec=mark1.SMALL, seed=seed).fit(cards, ["|", "-"] * 3, epochs=3), cards


def _px_on_slide(fig, path: Path, dpi: float) -> list[tuple[float, str]]:
    """(height on the slide in px, text) of every text drawn, from the saved file's size."""
    with Image.open(path) as im:
        width, height = im.size
    fit = min(1280 / width, 720 / height)
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return [(float(t.get_fontsize()) * dpi / 72 * fit, t.get_text()) for t in texts]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("dpi", [80, 150])
def test_slide_figures_have_no_text_under_20_px_on_the_slide(tmp_path, seed, dpi):
    m, cards = _machine(seed)
    with slides():
        figures = {"learning_curve": learning_curve(m, title="what the machine learned"),
                   "retina": retina_figure(m, cards[0])}
        for name, fig in figures.items():
            out = tmp_path / f"{name}.png"
            save_figure(fig, out, dpi=dpi)
            sizes = _px_on_slide(fig, out, dpi)
            assert sizes, name
            least = min(sizes)
            assert least[0] >= SLIDE_MIN_PX - 0.05, f"{name}: {least}"
            scale = dpi / 72 * min(1280 / Image.open(out).width, 720 / Image.open(out).height)
            for ax in fig.axes:
                for line in ax.lines:
                    if line.get_linestyle() not in ("None", "", " "):
                        assert line.get_linewidth() * scale >= SLIDE_LINE_PX - 0.05, name
    assert slide_style() is None                      # the block ends, the page style is back


def test_the_page_style_is_untouched_outside_the_block(tmp_path):
    m, _ = _machine(0)
    fig = learning_curve(m, title="a page figure")
    out = tmp_path / "page.png"
    save_figure(fig, out, dpi=80)
    assert fig.axes[0].title.get_fontsize() == 11                      # the page's own size
    assert min(size for size, _ in _px_on_slide(fig, out, 80)) < SLIDE_MIN_PX  # too small for a slide: why slides exist
    for_slide(fig)                                                     # made for a slide after the fact
    fig.savefig(out, dpi=80, bbox_inches="tight")
    assert min(size for size, _ in _px_on_slide(fig, out, 80)) >= SLIDE_MIN_PX - 0.05


def test_slides_refuses_a_slide_of_no_size():
    with pytest.raises(mark1.Mark1Error, match="slides"):
        with slides((0, 720)):
            pass


def test_the_command_line_draws_for_a_slide(tmp_path, capsys):
    assert main(["run", str(ROOT / "scenes" / "demo.toml"), "--style", "slides", "--out", str(tmp_path)]) == 0
    with Image.open(tmp_path / "learning_curve.png") as im:
        width, height = im.size
    assert width / height < 2.0                     # grown towards the slide's 16:9 (the page's is 2.26:1)
    with pytest.raises(SystemExit) as exit_:                 # argparse's refusal: one line, status 2
        main(["run", "demo", "--style", "poster", "--out", str(tmp_path / "x")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--style" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()
