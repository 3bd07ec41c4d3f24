"""``pip install .`` gives a posviz a notebook can use: the encodings and the figure builders, no streamlit.

The wheel is built from pyproject.toml (setuptools, no network), unpacked, and imported in a fresh
interpreter whose ``import streamlit`` fails, from a directory outside the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("build")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
        env={**os.environ, "TMPDIR": str(build)},
    )
    (found,) = out.glob("posviz-*.whl")
    return found


def test_the_wheel_holds_the_package_and_its_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "posviz/encodings/rope.py" in names and "posviz/figures/rope.py" in names
    assert {
        "posviz/deck/assets/deck.js",
        "posviz/deck/assets/deck.css",
        "posviz/ui/front/clicker.js",
        "posviz/ui/front/plot.js",
        "posviz/locale/zh/LC_MESSAGES/posviz.po",  # a notebook reads in Chinese too
    } <= names
    assert any(n.startswith("posviz/model_configs/") and n.endswith(".json") for n in names)
    assert not any(n.startswith(("tests/", "pages/", "tools/")) for n in names)


def test_encodings_and_figures_import_without_streamlit(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import sys; sys.modules['streamlit'] = None\n"  # import streamlit raises ImportError
        f"sys.path.insert(0, {str(site)!r})\n"
        "import posviz, posviz.encodings.alibi as a, posviz.figures.alibi as f\n"
        f"assert posviz.__file__.startswith({str(site)!r}), posviz.__file__\n"
        "chart = f.slopes(heads=8)\n"  # the app's own figure function
        "fig = chart.figure()\n"
        "drawn = [float(row.split(',')[1]) for row in chart.csv().splitlines()[1:]]\n"
        "assert drawn == a.alibi_slopes(8).tolist(), drawn\n"
        "from posviz.i18n import use\n"
        "with use('zh'):\n"
        "    title = f.slopes(heads=8).spec['layout']['title']['text']\n"
        "assert any('\\u4e00' <= ch <= '\\u9fff' for ch in title), title\n"
        "print(type(fig).__module__, len(fig.to_dict()['data']), chart.csv().splitlines()[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["plotly.graph_objs._figure", "1", "head,slope"]
