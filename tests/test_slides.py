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


# -- one message a figure -------------------------------------------------------------------------------

def _curves():
    from mark1.lab import LearningCurves
    acc = {"analog": np.array([[0.6, 0.8, 0.9]] * 3), "ideal": np.array([[0.7, 0.9, 1.0]] * 3)}
    hours = {v: np.array([[0.1, 0.2, 0.3]] * 3) for v in acc}
    return LearningCurves(scene="made up", seeds=[0, 1, 2], epochs=np.array([1, 2, 3]), cards=np.array([20, 40, 60]),
                          accuracy=acc, train_accuracy=acc, machine_hours=hours, reported=0.95)


def _check_file(path: Path, fig, dpi: float) -> None:
    """No text under 20 px and no data line under 3 px once the file is fitted to the slide."""
    with Image.open(path) as im:
        fit = min(1280 / im.width, 720 / im.height)
    sizes = _px_on_slide(fig, path, dpi)
    assert min(sizes)[0] >= SLIDE_MIN_PX - 0.05, f"{path.name}: {min(sizes)}"
    for ax in fig.axes:
        for line in ax.lines:
            if line.get_linestyle() not in ("None", "", " "):
                assert line.get_linewidth() * dpi / 72 * fit >= SLIDE_LINE_PX - 0.05, path.name


@pytest.mark.parametrize("dpi", [80, 120])
def test_a_figure_of_panels_is_a_file_a_panel_on_slides(tmp_path, dpi):
    from mark1.viz.studies import learning_curves_figure
    page = learning_curves_figure(_curves())
    assert len(save_figure(page, tmp_path / "page.png", dpi=dpi)) == 1      # the page: one file, both panels
    with slides():
        fig = learning_curves_figure(_curves())
        written = save_figure(fig, tmp_path / "curves.png", dpi=dpi)
    assert [p.name for p, _ in written] == ["curves.png", "curves-time.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curves-time.png", "curves.png", "page.png"]
    assert len(fig.axes) == 2                                              # the figure itself is not changed
    for path, part in written:
        assert len(part.axes) == 1                                         # one panel, one message
        ax = part.axes[0]
        assert ax.get_ylabel() == "test accuracy" or "accuracy" in ax.get_ylabel()   # shared: its label kept
        assert [t.get_text() for t in ax.get_yticklabels() if t.get_visible()]      # and its tick labels shown
        assert ax.get_title() and len(ax.get_lines()) >= 3                  # titled; analog, ideal, reported
        assert part.legends or ax.get_legend() is not None                  # the key goes with every panel
        _check_file(path, part, dpi)
        with Image.open(path) as im:
            assert 1.3 < im.width / im.height < 2.6                        # about the slide's shape


def test_panels_take_their_colorbars_and_one_message_figures_stay_whole(tmp_path):
    from mark1.viz.figure import new_figure
    from mark1.viz.style import headline, one_message, panel_figures, slide_panels
    fig = new_figure(9, 3)
    a, b, c = fig.subplots(1, 3)
    a.plot([0, 1], [0, 1])
    fig.colorbar(b.imshow([[0, 1], [2, 3]]), ax=b)
    c.set_axis_off()                                                       # draws nothing: no file
    assert slide_panels(fig) == [a, b] and slide_panels(headline(fig, b, "image")) == [b, a]
    parts = panel_figures(fig)
    assert [name for name, _ in parts] == ["", "panel-2"]
    assert len(parts[0][1].axes) == 2 and parts[0][1].axes[0].images      # the image with its colorbar
    assert len(parts[1][1].axes) == 1 and parts[1][1].axes[0].lines
    assert len(slide_panels(one_message(fig))) == 1 and len(panel_figures(fig)) == 1


def test_the_contact_sheet_on_a_slide_is_one_large_picture(tmp_path):
    from mark1.viz.cards import contact_sheet
    scene = mark1.load_scene(ROOT / "scenes" / "demo.toml")
    with slides():
        fig = contact_sheet(scene, seed=0, out=tmp_path / "sheet.png")
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.png"]
    assert len(fig.axes) == 3 * 2 * 2                                      # 2 classes x 2 cards x 3 stages
    _check_file(tmp_path / "sheet.png", fig, 110)
    with Image.open(tmp_path / "sheet.png") as im:
        fit = min(1280 / im.width, 720 / im.height)
    card = fig.axes[0].get_window_extent()
    assert card.width * 110 / fig.dpi * fit >= 100                # each card at least 100 px on the slide


def test_the_command_line_writes_a_panel_a_file_and_says_so(tmp_path, capsys):
    assert main(["device", "photocell", "--style", "slides", "--out", str(tmp_path)]) == 0
    said = capsys.readouterr().out
    panels = sorted(p.name for p in tmp_path.glob("photocell-*.png"))
    assert (tmp_path / "photocell.png").exists() and len(panels) == 2            # three panels, three files
    assert "slides: one panel a file" in said and all(name in said for name in panels)
    for name in ["photocell.png", *panels]:
        with Image.open(tmp_path / name) as im:
            assert 1.3 < im.width / im.height < 2.6, name                        # each about the slide's shape
    assert main(["device", "photocell", "--out", str(tmp_path / "page")]) == 0   # the page: one file
    assert [p.name for p in (tmp_path / "page").glob("*.png")] == ["photocell.png"]
    assert "slides:" not in capsys.readouterr().out
