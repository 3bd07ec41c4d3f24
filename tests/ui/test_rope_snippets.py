"""Every generated RoPE snippet runs and rebuilds the data the page draws: each figure's CSV, and the
numbers the page writes.

The snippets use the reference forms (Meta's complex numbers, Hugging Face's
``rotate_half``), so this also checks the package against a second
implementation; the scaling step is the method's own function from the registry,
shown as it runs (tests/encodings check it against the published formulas).
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from posviz.figures import rope, rope_scaling, rope_scores
from posviz.figures.chart import Chart
from posviz.ui.rope.settings import RopeSettings, scaling_options
from posviz.ui.rope.snippets import rope_snippet

SETTINGS = {
    "default": RopeSettings(),
    "half_linear": RopeSettings(dim=8, layout="half", method="linear", factor=2.5, m=7, n=3, seed=4, seq_len=300),
    "dynamic_past_context": RopeSettings(dim=16, method="dynamic", factor=4.0, original_max_position=256, seq_len=2000),
    "yarn_options": RopeSettings(
        dim=32,
        layout="half",
        method="yarn",
        factor=8.0,
        original_max_position=512,
        beta_fast=16.0,
        beta_slow=2.0,
        truncate=False,
        mscale=0.707,
        mscale_all_dim=1.0,
        seq_len=5000,
        base=500000.0,
    ),
    "yarn_given_factor": RopeSettings(dim=16, method="yarn", attention_factor=1.5, seq_len=100),
    "llama3": RopeSettings(dim=128, method="llama3", factor=8.0, original_max_position=8192, base=500000.0),
    "dim_2_tiny": RopeSettings(dim=2, seq_len=3, m=0, n=1000),
}


def run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own generated code, the point of the test
    return ns


def frame(chart: Chart, **kw) -> pd.DataFrame:
    """The chart's CSV, parsed back."""
    assert chart.csv() is not None
    return pd.read_csv(io.StringIO(chart.csv()), **kw)


def matrix(chart: Chart) -> np.ndarray:
    """A (rows, columns) CSV with its positions as the index and the header: the matrix drawn."""
    return frame(chart, index_col=0).to_numpy()


def page(s: RopeSettings) -> dict:
    """What the page draws and writes for ``s``: each figure's data (its CSV) and the numbers of its notes,
    from the functions and arguments the page calls."""
    freq = dict(
        dim=s.dim,
        base=s.base,
        method=s.method,
        factor=s.factor,
        original_max_position=s.original_max_position,
        options=scaling_options(s),
    )
    vectors = dict(**freq, layout=s.layout, seed=s.seed)
    return dict(
        frequencies=frame(rope_scaling.frequencies(**freq, seq_len=s.seq_len)),
        ratios=frame(rope_scaling.scaling_frequencies(**freq, seq_len=s.seq_len)),
        notes=rope_scaling.frequency_notes(**freq, seq_len=s.seq_len),
        rotation=matrix(rope.rotation(**freq, layout=s.layout, m=s.m)),
        permutation=frame(rope.permutation(dim=s.dim)),
        circles=frame(rope.circles(**vectors, m=s.m, n=s.n)),
        scores=matrix(rope_scores.scores(**vectors)),
        shift=frame(rope_scores.shift(**vectors, m=s.m, n=s.n, seq_len=s.seq_len)),
        relative=rope_scores.relative_numbers(**vectors, m=s.m, n=s.n, seq_len=s.seq_len),
        decay=frame(rope_scores.decay(**vectors, seq_len=s.seq_len)),
        angles=frame(rope_scaling.angles(**freq, seq_len=s.seq_len)),
        attention=frame(rope_scores.attention(**vectors, length=rope_scores.toy_length(s.seq_len))),
    )


def close(a, b, atol=1e-9) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), atol=atol, rtol=1e-9)


@pytest.mark.parametrize("name", SETTINGS)
def test_snippets_rebuild_the_page(name):
    s = SETTINGS[name]
    p = page(s)
    ns = run(rope_snippet(s, part="freq"))
    close(ns["inv_freq"], p["frequencies"]["theta_k"], atol=0)
    close(ns["wavelength"], p["frequencies"]["wavelength"], atol=0)
    close(ns["inv_freq"] / ns["default_inv_freq"], p["ratios"][s.method], atol=0)  # the bold line of section 7
    assert ns["attention_factor"] == pytest.approx(p["notes"].attention_factor, rel=1e-12)

    ns = run(rope_snippet(s, part="matrix"))
    close(ns["R_m"], p["rotation"], atol=1e-6)  # the page draws float32
    close(ns["perm"], p["permutation"]["interleaved component"], atol=0)

    circles = p["circles"]
    ns = run(rope_snippet(s, part="circles", pairs=circles["pair k"].tolist()))
    for key, where in (("at_zero", "0"), ("at_m", "m"), ("at_n", "n")):
        drawn = circles[[f"x at {where}", f"y at {where}"]].to_numpy()
        close(ns[key], drawn, atol=1e-6)  # the snippet's q is float32 before rotation

    shift = p["shift"]
    ns = run(rope_snippet(s, part="relative", shifts=shift["t"].tolist(), score_len=rope_scores.SCORE_LEN))
    close(ns["scores"], p["scores"], atol=1e-6)
    close(ns["shifted"], shift["score"], atol=1e-6)
    rel = p["relative"]
    assert float(ns["gap"]) < 1e-12 and rel.gap64 < 1e-12
    assert rel.last_shift == shift["t"].iloc[-1] and rel.shifted == pytest.approx(shift["score"].iloc[-1], abs=0)

    decay = p["decay"]
    ns = run(rope_snippet(s, part="decay", distances=decay["distance"].tolist()))
    close(ns["bound"], decay["bound"])
    close(ns["aligned"], decay["mean |q.R_r q|"], atol=1e-6)
    close(ns["independent"], decay["mean |q.R_r k|"], atol=1e-6)

    angles = p["angles"]
    pairs = rope_scaling.angle_pairs(s.dim)
    ns = run(rope_snippet(s, part="angles", pairs=pairs, positions=angles["position"].tolist()))
    close(ns["pos"], rope_scaling.angle_positions(s.seq_len), atol=0)
    close(ns["default_angles"], angles[[f"pair {k} default" for k in pairs]].to_numpy())
    close(ns["scaled_angles"], angles[[f"pair {k} {s.method}" for k in pairs]].to_numpy())

    length = rope_scores.toy_length(s.seq_len)
    ns = run(rope_snippet(s, part="attention", toy_len=length))
    panels = p["attention"]
    drawn = [panels.pivot(index="query i", columns="key j", values=t).to_numpy() for t in rope_scores.ATTENTION_TITLES]
    assert drawn[0].shape == (length, length)
    close(ns["weights"], np.stack(drawn), atol=1e-6)


def test_unknown_part_is_refused():
    with pytest.raises(ValueError, match="unknown snippet part"):
        rope_snippet(RopeSettings(), part="nope")
