"""AppTest: the NoPE page with default, changed and hostile link parameters."""

from __future__ import annotations

import numpy as np
import pytest

from posviz.ui.nope.settings import DROPE_LEN, NopeSettings
from posviz.ui.nope.snippets import page_snippets

from .conftest import array, assert_healthy, chart, charts, open_code, open_page, value_of, warnings


@pytest.fixture(scope="module")
def default():
    return open_page("pages/nope.py")


def test_defaults_render(default):
    assert_healthy(default)
    assert default.title[0].value.startswith("NoPE")
    assert len(charts(default)) == 5 and value_of(default, "seq_len") == 16


def test_the_marker_heatmap_is_one_over_t(default):
    z = array(chart(default, "nope_marker").spec["data"][0]["z"]).astype(float)
    t = np.arange(1, 17)
    np.testing.assert_allclose(z.sum(1), 1, rtol=1e-6)
    np.testing.assert_allclose(z[:, 0], 1 / t, rtol=1e-6)  # the first key's weight: the output 1/t


def test_the_permutation_changes_only_with_the_mask(default):
    free, masked = (array(t["y"]).astype(float) for t in chart(default, "nope_permutation").spec["data"])
    assert free.max() < 1e-6 < masked.max()


def test_the_layer_strips_mark_every_fourth_layer(default):
    z = array(chart(default, "nope_layers").spec["data"][0]["z"]).astype(float)
    assert z[0, 3] == 0 and z[0, 0] == 1 and z[1, 7] == 0 and z[2, 3] == 0  # Llama 4, SmolLM3, Cohere2


def test_links_to_the_models_page(default):
    prose = " ".join(m.value for m in default.markdown)
    assert "/models?model=llama-4-scout" in prose and "/models?model=smollm3-3b" in prose


def test_hostile_links_get_notices():
    at = open_page("pages/nope.py", seq_len="100000", dim="3", base="0.5")
    assert_healthy(at)
    assert warnings(at) and value_of(at, "seq_len") <= 512 and value_of(at, "dim") % 2 == 0


def test_drope_shows_rope_favouring_near_keys(default):
    rope, dropped = (array(t["y"]).astype(float) for t in chart(default, "nope_drope").spec["data"])
    assert rope[0] > 3 * dropped[0]  # distance 1: RoPE's tilt towards the near key
    assert dropped.max() / dropped.min() < rope.max() / rope.min()  # dropped: flatter over distance


def _shown_code(at) -> list[str]:
    """The text of every "PyTorch code" block, in page order."""
    return [e.code[0].value.strip() for e in open_code(at).expander if e.label == "PyTorch code"]


def test_every_figure_shows_the_code_of_the_settings_in_the_link():
    at = open_page("pages/nope.py", seq_len="37", dim="6", base="500", seed="1")
    assert_healthy(at)
    s = NopeSettings(seq_len=37, dim=6, base=500.0, seed=1)
    assert _shown_code(at) == [c.strip() for c in page_snippets(s, drope_len=DROPE_LEN).values()]
