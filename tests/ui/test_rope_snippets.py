"""Every generated RoPE snippet runs and rebuilds the tensors the page draws.

The snippets use the reference forms (Meta's complex numbers, Hugging Face's
``rotate_half``), so this also checks the package against a second
implementation; the scaling step is the method's own function from the registry,
shown as it runs (tests/encodings check it against the published formulas).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from posviz.ui.rope.settings import SCORE_LEN, RopeSettings, keys
from posviz.ui.rope.snippets import rope_snippet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from posviz.ui.rope import charts
    from posviz.ui.rope import views as ui

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


def views(s: RopeSettings):
    """Every view the page draws, each from the key the page gives it."""
    k = keys(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return k, dict(
            scaling=ui.scaling_view(k.scaling),
            matrix=ui.matrix_view(k.matrix),
            circles=ui.circles_view(k.pairs),
            scores=ui.scores_view(k.vectors),
            relative=ui.relative_view(k.relative),
            decay=ui.decay_view(k.decay),
            attention=ui.attention_view(k.attention),
        )


def close(a, b, atol=1e-9) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), atol=atol, rtol=1e-9)


@pytest.mark.parametrize("name", SETTINGS)
def test_snippets_rebuild_the_page(name):
    s = SETTINGS[name]
    k, v = views(s)
    sv = v["scaling"]
    ns = run(rope_snippet(s, part="freq"))
    close(ns["inv_freq"], sv.inv_freq, atol=0)
    close(ns["default_inv_freq"], sv.default_inv_freq, atol=0)
    assert ns["attention_factor"] == pytest.approx(sv.attention_factor, rel=1e-12)

    ns = run(rope_snippet(s, part="matrix"))
    close(ns["R_m"], v["matrix"].rotation, atol=1e-6)  # the page draws float32
    close(ns["perm"], charts.permutation_of(k.permutation), atol=0)

    circles = v["circles"]
    ns = run(rope_snippet(s, part="circles", pairs=[int(p) for p in circles.pairs]))
    for key in ("at_zero", "at_m", "at_n"):
        close(ns[key], getattr(circles, key), atol=1e-6)  # the snippet's q is float32 before rotation

    rel = v["relative"]
    ns = run(rope_snippet(s, part="relative", shifts=[int(t) for t in rel.shifts], score_len=SCORE_LEN))
    close(ns["scores"], v["scores"].scores, atol=1e-6)
    close(ns["shifted"], rel.shifted, atol=1e-6)
    assert float(ns["gap"]) < 1e-12 and rel.gap64 < 1e-12

    decay = v["decay"]
    ns = run(rope_snippet(s, part="decay", distances=[int(r) for r in decay.distances]))
    close(ns["bound"], decay.bound)
    close(ns["aligned"], decay.aligned, atol=1e-6)
    close(ns["independent"], decay.independent, atol=1e-6)

    ns = run(rope_snippet(s, part="angles", pairs=sv.pairs, positions=[int(p) for p in sv.positions]))
    close(ns["pos"], sv.positions, atol=0)
    close(ns["default_angles"], sv.default_angles)
    close(ns["scaled_angles"], sv.scaled_angles)

    ns = run(rope_snippet(s, part="attention", toy_len=k.attention.length))
    close(ns["weights"], v["attention"], atol=1e-6)


def test_unknown_part_is_refused():
    with pytest.raises(ValueError, match="unknown snippet part"):
        rope_snippet(RopeSettings(), part="nope")
