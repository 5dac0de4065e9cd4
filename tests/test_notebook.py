"""examples/classroom.ipynb runs headless in a real Jupyter kernel, and what a student sees there
is what issue 26 asked for: no warning on import, figures and tables drawn, a progress bar.

Needs nbclient, nbformat and ipykernel (skipped without them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def execute(nb):
    client = nbclient.NotebookClient(nb, timeout=300, startup_timeout=180, kernel_name="python3",
                                     resources={"metadata": {"path": str(EXAMPLES)}})
    client.execute()
    return nb


def outputs(cell):
    return cell.get("outputs", [])


def stderr_of(nb) -> str:
    return "".join(o.get("text", "") for c in nb.cells for o in outputs(c)
                   if o.output_type == "stream" and o.name == "stderr")


@pytest.fixture(scope="module")
def classroom():
    return execute(nbformat.read(EXAMPLES / "classroom.ipynb", as_version=4))


def test_the_classroom_notebook_runs_without_errors_or_warnings(classroom):
    errors = [o for c in classroom.cells for o in outputs(c) if o.output_type == "error"]
    assert not errors, errors[0]
    # a text bar (no ipywidgets) writes '\r'-separated progress to stderr; nothing else may
    warned = [line for line in stderr_of(classroom).replace("\r", "\n").splitlines()
              if line.strip() and "card" not in line]
    assert not warned, warned


def test_the_classroom_notebook_shows_tables_figures_and_the_lesson(classroom):
    rich = [o.get("data", {}) for c in classroom.cells for o in outputs(c)]
    html_outputs = [d["text/html"] for d in rich if "text/html" in d]
    assert any("MachineSpec" in d.get("text/plain", "") and "patchboard.n_associators" in d.get("text/html", "")
               for d in rich)
    assert any("<table" in h and "data:image/png;base64," in h and "learning curve" in h for h in html_outputs)
    assert any("<table" in h and "lstsq-phi" in h and "data:image/png;base64," in h for h in html_outputs)
    assert any("image/png" in d for d in rich)                       # the bare figure, no pyplot imported
    lesson = [h for h in html_outputs if "<iframe srcdoc=" in h]
    assert lesson and "lesson-data" in lesson[0]                    # the page itself, escaped in srcdoc
    printed = "".join(o.get("text", "") for c in classroom.cells for o in outputs(c) if o.output_type == "stream")
    assert "least squares (4.1.3)" in printed and "Fisher (4.1.4)" in printed


def test_in_a_kernel_import_warns_nothing_a_bar_shows_and_a_figure_draws():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import warnings\nwarnings.simplefilter('always')\nimport mark1"),
        nbformat.v4.new_code_cell("import os\nos.environ.pop('CI', None)      # a class's kernel, not CI (where bars stay silent)\n"
                                  "from mark1._utils import progress\n"
                                  "progress._has_widgets = lambda: False      # as without ipywidgets\n"
                                  "bar = progress.progress_bar(5, 'card')\nbar.update(5)\nbar.close()\n"
                                  "type(bar).__module__"),
        nbformat.v4.new_code_cell("from mark1.viz.figure import new_figure\n"
                                  "fig = new_figure(2, 2)\nfig.add_subplot().plot([0, 1])\nfig"),
    ])
    execute(nb)
    first, bar, figure = nb.cells
    assert outputs(first) == []                                      # no TqdmWarning, nothing at all
    assert "0/5 [" in "".join(o.get("text", "") for o in outputs(bar) if o.output_type == "stream")
    assert any(o.get("data", {}).get("text/plain") == "'tqdm.std'" for o in outputs(bar))
    assert any("image/png" in o.get("data", {}) for o in outputs(figure))


@pytest.mark.slow
def test_the_history_notebook_runs_and_shows_sources_machine_experiment_and_verdicts():
    """examples/mark1_at_work.ipynb, the 30-minute history segment, runs headless: the parameters'
    statuses in a table, the lesson page inline, the experiment's learning curve, the re-enactment's
    table and figure."""
    nb = execute(nbformat.read(EXAMPLES / "mark1_at_work.ipynb", as_version=4))
    errors = [o for c in nb.cells for o in outputs(c) if o.output_type == "error"]
    assert not errors, errors[0]
    warned = [line for line in stderr_of(nb).replace("\r", "\n").splitlines()
              if line.strip() and "card" not in line and "job" not in line and "%|" not in line]
    assert not warned, warned
    rich = [o.get("data", {}) for c in nb.cells for o in outputs(c)]
    html_outputs = [d["text/html"] for d in rich if "text/html" in d]
    statuses = next(h for h in html_outputs if "<th>status</th>" in h)
    assert "documented" in statuses and "contradictory" in statuses and "rack.drive" in statuses
    assert any("<iframe srcdoc=" in h and "lesson-data" in h for h in html_outputs)
    assert sum("image/png" in d for d in rich) >= 2                 # the learning curve and the re-enactment
    printed = "".join(o.get("text", "") for c in nb.cells for o in outputs(c) if o.output_type == "stream")
    assert "50 trials; on 200 new cards" in printed
    assert any("within" in h or "OUT OF BAND" in h or "unclear" in h for h in html_outputs)   # the verdicts
