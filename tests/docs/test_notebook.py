"""The example notebook (docs/posviz-in-a-notebook.ipynb) runs in a real kernel and draws its four figures.

Executed by nbclient with ipykernel's ``python3`` kernel (its own spec: this interpreter), from the
repository's root so ``import posviz`` is this checkout's. Its outputs are checked against the encodings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "posviz-in-a-notebook.ipynb"
PLOTLY = "application/vnd.plotly.v1+json"


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    return nb


def _outputs(nb, kind: str) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == kind]


def test_the_notebook_runs_without_an_error(executed):
    assert not _outputs(executed, "error")


def test_each_view_is_a_plotly_figure_of_the_app(executed):
    shown = _outputs(executed, "execute_result") + _outputs(executed, "display_data")
    figures = [o["data"][PLOTLY] for o in shown if PLOTLY in o.get("data", {})]
    assert len(figures) == 4
    titles = [json.dumps(f["layout"].get("title", {})) for f in figures]
    assert "Slopes of 12 heads" in titles[2]
    assert all(f["data"] for f in figures)


def test_the_printed_values_match_the_encodings(executed):
    import torch

    from posviz.encodings.alibi import alibi_slopes

    printed = [o["text"].strip() for o in _outputs(executed, "stream")]
    assert printed[0] == "(128, 64)"
    assert printed[1] == "True"
    closest, first = printed[2].split(" ", 1)
    assert int(closest) == 8
    assert json.loads(first) == [round(float(m), 5) for m in alibi_slopes(12)[:3]]
    assert float(alibi_slopes(12)[0]) == pytest.approx(2 ** (-8 / 8))  # the paper's first slope of 8 heads
    from posviz.encodings.t5 import t5_bucket

    pos = torch.arange(32)
    bucket = t5_bucket(pos[None, :] - pos[:, None], bidirectional=True, num_buckets=32, max_distance=128)
    assert printed[3] == f"{int(bucket.min())} {int(bucket.max())}"
    assert int(bucket.max()) < 32
