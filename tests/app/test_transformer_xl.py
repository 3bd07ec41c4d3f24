"""AppTest: the Transformer-XL page with default, changed and hostile link parameters."""

from __future__ import annotations

import numpy as np
import pytest

from posviz.encodings.transformer_xl import txl_positional_embedding
from posviz.ui.transformer_xl.settings import TransformerXlSettings
from posviz.ui.transformer_xl.snippets import page_snippets

from .conftest import array, assert_healthy, chart, charts, open_code, open_page, value_of, warnings


@pytest.fixture(scope="module")
def default():
    return open_page("pages/transformer_xl.py")


def test_defaults_render(default):
    assert_healthy(default)
    assert default.title[0].value.startswith("Transformer-XL")
    assert len(charts(default)) == 4 and value_of(default, "mem_len") == 4 and value_of(default, "seq_len") == 8


def test_the_terms_share_the_masked_cells_and_c_depends_on_the_key_only(default):
    data = chart(default, "txl_terms").spec["data"]
    c = array(data[2]["z"]).astype(float)  # (c) u . k_j
    visible = ~np.isnan(c)
    for j in range(c.shape[1]):
        column = c[:, j][visible[:, j]]
        if column.size:
            np.testing.assert_allclose(column, column[0], rtol=1e-6)


def test_r_is_the_sinusoid_of_descending_distances(default):
    import torch

    z = array(chart(default, "txl_r").spec["data"][0]["z"]).astype(float)
    want = txl_positional_embedding(torch.arange(11, -1, -1), 16).numpy()
    np.testing.assert_allclose(z, want, rtol=1e-5, atol=1e-6)


def test_the_shift_leaves_garbage_the_page_shows(default):
    before, after = (array(t["z"]).astype(float) for t in chart(default, "txl_shift").spec["data"][:2])
    q = np.arange(8)[:, None] + 4
    k = np.arange(12)[None, :]
    assert np.abs(after[k > q]).max() > 0  # not zeros above the diagonal
    assert "/skew?variant=rel_shift" in " ".join(m.value for m in default.markdown)


def test_memory_rows_sum_to_one(default):
    z = array(chart(default, "txl_memory").spec["data"][0]["z"]).astype(float)
    np.testing.assert_allclose(np.nansum(z, axis=1), 1, rtol=1e-5)


def test_no_memory_and_hostile_links():
    at = open_page("pages/transformer_xl.py", mem_len="0", seq_len="1")
    assert_healthy(at)
    at = open_page("pages/transformer_xl.py", mem_len="-2", dim="9", seq_len="x")
    assert_healthy(at)
    assert warnings(at) and value_of(at, "mem_len") == 0 and value_of(at, "dim") % 2 == 0


def _shown_code(at) -> list[str]:
    """The text of every "PyTorch code" block, in page order."""
    return [e.code[0].value.strip() for e in open_code(at).expander if e.label == "PyTorch code"]


def test_every_figure_shows_the_code_of_the_settings_in_the_link():
    at = open_page("pages/transformer_xl.py", seq_len="7", mem_len="3", dim="6", seed="2")
    assert_healthy(at)
    s = TransformerXlSettings(seq_len=7, mem_len=3, dim=6, seed=2)
    assert _shown_code(at) == [c.strip() for c in page_snippets(s).values()]


def test_lecture_mode_keeps_cell_values_only_where_they_can_be_read():
    from posviz.figures import transformer_xl as txl

    def texts(chart):
        return ["texttemplate" in t for t in chart.spec["data"] if t["type"] == "heatmap"]

    wide = dict(k_len=12, dim=8)  # 16 components: narrow cells at a projector
    assert all(texts(txl.r_matrix(**wide))) and not any(texts(txl.r_matrix(**wide, lecture=True)))
    assert all(texts(txl.r_matrix(k_len=3, dim=2, lecture=True)))  # 4 columns: wide enough to read
    fig = txl.r_matrix(**wide).spec
    assert fig["layout"]["yaxis"]["autorange"] is True  # the farthest distance on top, as the code's rows run
