"""What a notebook shows of mark1's objects (issue 26): one-line reprs, HTML with tables and
figures, figures that draw themselves, progress bars chosen when made, no tqdm at import."""

from __future__ import annotations

import html
import subprocess
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

from mark1 import MARK_I, SMALL, MarkI
from mark1._utils import progress
from mark1._utils.html import REPR_LIMIT, clip, html_table
from mark1.lab import ablate, compare, grid_sweep, learning_curves, reenact, sweep
from mark1.specs import PRESETS, describe
from mark1.stimuli import load_scene
from mark1.viz.figure import new_figure

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "scenes" / "demo.toml"
SMALL_RUN = dict(train_count=8, test_count=8)


def one_line(text: str) -> bool:
    return "\n" not in text and 0 < len(text) <= REPR_LIMIT


# -- the machine, its spec, a scene -------------------------------------------------------------

@pytest.fixture(scope="module")
def demo():
    scene = load_scene(DEMO)
    return scene, scene.stimuli("train", seed=0, count=8)


def test_markI_repr_before_and_after_fit(demo):
    scene, train = demo
    m = MarkI(spec=scene.machine_spec(), seed=3)
    assert repr(m) == "MarkI(spec='small', seed=3)"
    assert "not yet" in m._repr_html_()
    m.fit(train.cards, train.labels, epochs=2)
    text = repr(m)
    assert one_line(text) and f"{len(m.history_)} presentations" in text and "fitted" in text
    page = m._repr_html_()
    assert "<table" in page and "data:image/png;base64," in page          # the learning curve
    assert " ".join(map(str, m.mistakes_per_epoch_.tolist())) in page
    m.set_params(seed=4)                      # the weights belong to another board now: not fitted
    assert repr(m) == "MarkI(spec='small', seed=4)"


@pytest.mark.parametrize("spec", [MARK_I, SMALL, MARK_I.ideal(), SMALL.digital(), *PRESETS.values()],
                         ids=lambda s: s.name)
def test_spec_repr_is_one_line_and_names_its_changes(spec):
    text = repr(spec)
    changed = [r for r in describe(spec) if r["changed"]]
    assert one_line(text) and repr(spec.name) in text
    assert (f"{len(changed)} change(s)" in text) if changed else text.endswith("as MARK_I)")
    page = spec._repr_html_()
    for r in changed:                        # every change with its unit and the default's status
        row = page[page.index(f">{html.escape(r['key'])}<"):]
        row = row[:row.index("</tr>")]
        assert f">{html.escape(r['unit'])}<" in row and f">{r['status']}<" in row


def test_spec_repr_was_the_whole_dataclass():
    assert len(repr(MARK_I)) < 60 and len(repr(SMALL)) < 100     # were 892 and 894 characters


@pytest.mark.parametrize("path", sorted((ROOT / "scenes").glob("*.toml")), ids=lambda p: p.name)
def test_every_catalog_scene_shows_itself(path):
    scene = load_scene(path)
    assert one_line(repr(scene))
    page = scene._repr_html_()
    assert "<table" in page and html.escape(scene.name) in page


# -- the studies ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    scene = tmp_path_factory.mktemp("reenact") / "tiny.toml"
    text = DEMO.read_text()
    start, end = text.index("[reported]"), text.index("[stimuli]")
    scene.write_text(text[:start] + '[reported]\nsource = "a test"\nconditions = "demo"\nvalue = 0.9\n\n'
                     + text[end:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "compare": compare(DEMO, seeds=2, learners=["mark1", "lstsq-S"], **SMALL_RUN),
            "ablate": ablate(DEMO, seeds=1, **SMALL_RUN),
            "sweep": sweep(DEMO, "trainer.increment", "0.02,0.2", seeds=2, **SMALL_RUN),
            "grid": grid_sweep(DEMO, "rack.decay_time", "300,inf", "trainer.increment", "0.02,0.2", seeds=1,
                               **SMALL_RUN),
            "curves": learning_curves(DEMO, seeds=2, points=3, **SMALL_RUN),
            "reenact": reenact([scene], seeds=2, **SMALL_RUN),
        }


@pytest.mark.parametrize("name", ["compare", "ablate", "sweep", "grid", "curves", "reenact"])
def test_study_result_repr_and_html(studies, name):
    result = studies[name]
    text = repr(result)
    assert one_line(text) and text.startswith(type(result).__name__ + "(")
    page = result._repr_html_()
    assert page.count("<table") == 1 and page.count("data:image/png;base64,") == 1
    assert page.count("<tr>") >= 2                      # the head and at least one row


def test_study_html_has_the_plain_tables_cells(studies):
    # the HTML is the same table as table(): its cells are the plain text's, escaped
    for name, rows_at in (("compare", 1), ("ablate", 1), ("grid", 2), ("reenact", 1)):
        result = studies[name]
        for cell in result._cells()[rows_at][0]:
            assert f">{html.escape(str(cell))}<" in result._repr_html_()
            assert str(cell) in result.table()


def test_scene_result_repr(studies):
    sc = studies["reenact"].scenes[0]
    text = repr(sc)
    assert one_line(text) and text.startswith(f"SceneResult({sc.name!r}")
    assert "reported 90.0 %" in text and "2 seed(s)" in text


def test_a_sweeps_learned_after_band_lies_inside_the_run(studies):
    # a count of presentations: its interval lies in [0, the run's presentations]
    from mark1 import stats
    result = studies["sweep"]
    for r in result.summary():
        recs = result._by_value(r["value"])
        iv = stats.mean_interval([rec["learned_after"] for rec in recs],
                                 (0.0, max(rec["presentations"] for rec in recs)))
        assert (r["learned_after_mean"], r["learned_after_low"], r["learned_after_high"]) == (iv.mean, iv.low,
                                                                                              iv.high)


# -- helpers, figures, progress bars ---------------------------------------------------------------

def test_html_table_escapes_and_aligns():
    page = html_table(["a<b", "n"], [["x & y", 3]], left=(0,), caption="<c>", notes=["1 < 2"])
    assert "a&lt;b" in page and "x &amp; y" in page and "&lt;c&gt;" in page and "1 &lt; 2" in page
    assert page.count("text-align:left") == 3 and page.count("text-align:right") == 2   # caption, a, x
    assert clip("x" * 200) == "x" * (REPR_LIMIT - 1) + "…" and clip("a\n  b") == "a b"


def test_a_figure_draws_itself_as_png_for_jupyter():
    fig = new_figure(2, 1.5)
    fig.add_subplot().plot([0, 1], [1, 0])
    png = fig._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 500


def fake_kernel(monkeypatch, *, kernel=True):
    shell = types.SimpleNamespace(kernel=object()) if kernel else types.SimpleNamespace()
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    monkeypatch.delenv("CI", raising=False)


def test_progress_in_a_kernel_is_shown_whatever_isatty_says(monkeypatch):
    # without ipywidgets: tqdm's text bar (the widget needs a real kernel: tests/test_notebook.py)
    fake_kernel(monkeypatch)
    monkeypatch.setattr(progress, "_has_widgets", lambda: False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                              # never tqdm's "IProgress not found"
        bar = progress.progress_bar(3, "card")
        bar.update(3)
        bar.close()
    assert type(bar).__module__ == "tqdm.std"


def test_no_bar_outside_a_kernel_when_stderr_is_no_terminal(monkeypatch):
    fake_kernel(monkeypatch, kernel=False)                          # IPython in a terminal, not a kernel
    assert type(progress.progress_bar(3, "card")).__name__ == "_NoBar"
    monkeypatch.setitem(sys.modules, "IPython", None)
    assert type(progress.progress_bar(3, "card")).__name__ == "_NoBar"
    fake_kernel(monkeypatch)
    assert type(progress.progress_bar(0, "card")).__name__ == "_NoBar"
    assert type(progress.progress_bar(3, "card", show=False)).__name__ == "_NoBar"
    monkeypatch.setenv("CI", "1")
    assert type(progress.progress_bar(3, "card")).__name__ == "_NoBar"


def test_importing_mark1_imports_no_tqdm():
    # tqdm.auto at import warned "IProgress not found" in every notebook without ipywidgets
    code = "import sys, mark1, mark1.viz, mark1.lab; print(sorted(m for m in sys.modules if m.startswith('tqdm')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout
    assert out.stderr == ""


def test_markI_progress_bar_counts_every_card(monkeypatch, demo):
    scene, train = demo
    made = []

    class Bar:
        def __init__(self, total):
            self.total, self.n = total, 0
            made.append(self)

        def update(self, n=1):
            self.n += n

        def close(self):
            pass

    monkeypatch.setattr("mark1.machine.mark_i.progress_bar", lambda total, unit, show=True: Bar(total))
    MarkI(spec=scene.machine_spec(), seed=0).fit(train.cards, train.labels, epochs=2, progress=True)
    assert made and made[0].n == made[0].total == 2 * len(train.cards)
    assert np.all([b.n == b.total for b in made])
