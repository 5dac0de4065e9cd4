"""Every script in examples/ runs, prints its key figures, and writes figures that open.

Each example runs in a subprocess (``sys.executable examples/X.py --out DIR`` with
``MPLBACKEND=Agg``, working directory a temporary folder), so nothing is written into
the repository. The printed numbers are parsed and checked against bounds that say
what the example is meant to show.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from PIL import Image

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_example(name: str, tmp_path: Path, *args: str) -> tuple[str, Path]:
    out = tmp_path / "out"
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, str(EXAMPLES / name), "--out", str(out), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
    assert "\r" not in proc.stderr, f"{name}: a progress bar was written to a pipe"   # logs stay clean
    return proc.stdout, out


def number(pattern: str, text: str) -> float:
    """The first number captured by ``pattern`` (a regex with one group) in ``text``."""
    m = re.search(pattern, text)
    assert m, f"no match for {pattern!r} in:\n{text}"
    return float(m.group(1))


def check_images(out: Path, names) -> None:
    for name in names:
        path = out / name
        assert path.is_file(), f"{name} was not written; found {sorted(p.name for p in out.iterdir())}"
        with Image.open(path) as im:
            im.load()
            assert im.size[0] > 100 and im.size[1] > 100


# -- the set of examples --------------------------------------------------------------------

TESTED = {"reenact_x_vs_e.py", "analog_vs_digital.py", "ablation.py", "prml_fig4_4.py", "prml_fig4_5.py",
          "prml_fig4_6.py", "prml_fig4_7.py", "prml_fig4_10.py", "prml_logistic_posterior.py", "parity.py",
          "animation.py",
          "decay.py",                                    # tested in test_sweep.py
          "device_study.py",                             # tested in test_device_fit.py
          "ideal_environment.py", "mu_vs_sigma.py", "spontaneous_concepts.py"}   # in test_cli_theory.py


def test_every_example_is_tested_and_documented():
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    assert scripts == TESTED
    for name in scripts:
        source = (EXAMPLES / name).read_text()
        tree = ast.parse(source)
        doc = ast.get_docstring(tree, clean=False)
        assert doc and len(doc.split()) > 20, f"{name}: expected a module docstring saying what it shows"
        title, underline = doc.lstrip("\n").splitlines()[:2]          # sphinx-gallery: a title underlined
        assert underline == "=" * len(title), f"{name}: expected the title underlined with '=' to its length"
        assert "script_parser(__doc__, __file__" in source              # --out, default examples/output/
        assert 'matplotlib.use("Agg")' in source
        assert "np.random.seed" not in source and "np.random.rand" not in source
        for node in ast.walk(tree):                                     # the package's public names only
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mark1"):
                names = node.module.split(".") + [a.name for a in node.names]
                assert not any(n.startswith("_") for n in names), f"{name}: imports a private name of mark1"
            if isinstance(node, (ast.Import, ast.ImportFrom)):           # no example leans on another
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not {m.split(".")[0] + ".py" for m in modules} & scripts, f"{name}: imports an example"


# -- each example ---------------------------------------------------------------------------

def test_reenact_x_vs_e(tmp_path):
    text, out = run_example("reenact_x_vs_e.py", tmp_path)
    assert number(r"test accuracy: ([\d.]+) %", text) >= 90
    assert number(r"train accuracy: ([\d.]+) %", text) >= 90
    assert number(r"reported accuracy: ([\d.]+) %", text) == 100
    assert re.search(r"machine time: [\d.]+ (s|min|h)$", text, flags=re.M)          # by its size, not 0.02 h
    check_images(out, ["x_vs_e_learning_curve.png", "x_vs_e_retina.png", "x_vs_e_weights_on_retina.png",
                       "x_vs_e_rack.png"])


def test_analog_vs_digital(tmp_path):
    text, out = run_example("analog_vs_digital.py", tmp_path, "--seeds", "2")
    for v in ("analog", "digital", "ideal"):
        # E vs F: 60 cards shown once (the historical reading); the ideal machine reaches about 70 %
        assert number(rf"{v} test accuracy: ([\d.]+) ± [\d.]+ %", text) >= 60
        assert number(rf"{v} train accuracy: ([\d.]+) %", text) >= 75
        assert number(rf"{v} machine time: ([\d.]+) (?:s|min|h) ", text) > 0
    assert len(re.findall(r"mistakes per epoch \[", text)) == 6          # 3 learners x 2 seeds
    assert "[digital] " in text and "(digital)" in text                  # spec.digital(), by its name
    check_images(out, ["analog_vs_digital.png"])


def test_ablation(tmp_path):
    text, out = run_example("ablation.py", tmp_path, "--seeds", "2", "--test-count", "40")
    rows = re.findall(r"^(.+?)\s+test accuracy: ([\d.]+) ± ([\d.]+) %", text, flags=re.M)
    names = [r[0].strip() for r in rows]
    assert names[:2] == ["full", "ideal"] and len(names) >= 5
    assert all(n.startswith("without ") for n in names[2:])
    accs = {n: float(a) for n, a, _ in rows}
    assert all(0.0 <= a <= 100.0 for a in accs.values())
    assert accs["full"] >= 75
    check_images(out, ["ablation.png"])


def test_prml_fig4_4(tmp_path):
    text, out = run_example("prml_fig4_4.py", tmp_path)
    without = number(r"least squares without extra points: ([\d.]+) %", text)
    with_ = number(r"least squares with extra points: ([\d.]+) %", text)
    assert without >= 99
    assert with_ <= without - 3                    # pulled by points on the correct side
    assert number(r"perceptron with extra points: ([\d.]+) %", text) >= 99
    check_images(out, ["prml_fig4_4.png"])


def test_prml_fig4_5(tmp_path):
    text, out = run_example("prml_fig4_5.py", tmp_path)
    ls = number(r"least squares accuracy: ([\d.]+) %", text)
    gauss = number(r"Gaussian classifier accuracy: ([\d.]+) %", text)
    assert gauss >= 90
    assert ls <= gauss - 15                        # the middle class is masked
    assert number(r"middle class recognised: least squares ([\d.]+) %", text) < 50
    check_images(out, ["prml_fig4_5.png"])


def test_prml_fig4_6(tmp_path):
    text, out = run_example("prml_fig4_6.py", tmp_path)
    j_mean = number(r"mean difference direction .*?J = ([\d.]+)", text)
    j_fisher = number(r"Fisher direction .*?J = ([\d.]+)", text)
    e_mean = number(r"mean difference direction .*?threshold = ([\d.]+) %", text)
    e_fisher = number(r"Fisher direction .*?threshold = ([\d.]+) %", text)
    assert j_fisher > j_mean
    assert e_fisher < e_mean
    check_images(out, ["prml_fig4_6.png"])


def test_prml_fig4_7(tmp_path):
    text, out = run_example("prml_fig4_7.py", tmp_path)
    assert number(r"updates: (\d+)", text) >= 3
    assert "converged: True" in text
    assert number(r"at the end: ([\d.]+) %", text) == 100
    assert number(r"at the start: ([\d.]+) %", text) < 100
    check_images(out, ["prml_fig4_7.png"])


def test_prml_fig4_10(tmp_path):
    text, out = run_example("prml_fig4_10.py", tmp_path)
    # the generative model's posterior is the logistic sigmoid of a linear function (PRML 4.57, 4.65-4.67)
    assert number(r"over the points: ([\d.e+-]+)", text) < 1e-9
    assert number(r"Gaussian classifier accuracy: ([\d.]+) %", text) >= 80
    check_images(out, ["prml_fig4_10.png"])


def test_prml_logistic_posterior(tmp_path):
    text, out = run_example("prml_logistic_posterior.py", tmp_path)
    assert "converged: True" in text
    assert number(r"largest \|component\| = ([\d.e+-]+)", text) < 1e-6          # a maximum of the likelihood
    assert number(r"logistic regression accuracy: ([\d.]+) %", text) >= 85
    check_images(out, ["prml_logistic_posterior.png"])


def test_parity(tmp_path):
    text, out = run_example("parity.py", tmp_path)
    for name in ("analog", "ideal"):
        assert number(rf"\[{re.escape(name)}\] test accuracy: ([\d.]+) %", text) < 75
        mistakes = re.search(rf"\[{re.escape(name)}\] mistakes per epoch: \[([\d, ]+)\]", text).group(1)
        assert int(mistakes.split(",")[0]) >= 50         # a quarter of the 200 cards wrong at first
    assert number(r"epochs\] .*?test accuracy: ([\d.]+) %", text) < 75    # memorised, still near chance
    assert "not of bounded order" in text
    check_images(out, ["parity_errors.png", "parity_cards.png"])


def test_animation(tmp_path):
    text, out = run_example("animation.py", tmp_path, "--every", "25")
    frames = int(number(r"frames: (\d+)", text))
    assert frames == 200 // 25                                     # evenly spaced, ending on the last
    assert number(r"frames: \d+ \((\d+)x", text) >= 1000
    assert number(r"test accuracy: ([\d.]+) %", text) >= 80
    with Image.open(out / "demo_training.gif") as im:
        assert im.format == "GIF"
        assert im.n_frames == frames
    assert sorted(p.name for p in out.iterdir()) == ["demo_training.gif"]
