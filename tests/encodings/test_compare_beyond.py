"""The newer schemes on the compare page's toy sequence: each one's row is what its own page computes.

For random toy sequences, each scheme's position term and attention on the compare page
(:func:`posviz.encodings.compare.compare_schemes`) are checked against a naive computation from the
scheme's definition and against the function its own page draws with the same settings.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.compare import ToySettings, compare_schemes, toy
from posviz.encodings.fire import COMPARE_HEAD as FIRE_HEAD
from posviz.encodings.fire import COMPARE_HEADS as FIRE_HEADS
from posviz.encodings.fire import fire_mlp
from posviz.encodings.kerple import COMPARE_HEAD as KERPLE_HEAD
from posviz.encodings.kerple import COMPARE_HEADS as KERPLE_HEADS
from posviz.encodings.kerple import kerple_parameters
from posviz.encodings.xpos import xpos_score_by_distance
from posviz.figures import kerple as kerple_page
from posviz.figures import stickbreaking as stickbreaking_page
from posviz.figures import transformer_xl as transformer_xl_page
from posviz.schemes import BY_KEY, COMPARE_SETS, compared_in

toys = st.fixed_dictionaries(
    {
        "seq_len": st.integers(2, 20),
        "dim": st.sampled_from([2, 4, 8, 16, 32]),
        "base": st.sampled_from([10.0, 500.0, 10000.0]),
        "causal": st.booleans(),
        "seed": st.integers(0, 2**31 - 1),
    }
)
EXAMPLES = settings(max_examples=12, deadline=None)


def run_one(key: str, s: dict):
    """The compare page's run of one scheme: (term (L, L), weights (L, L), the toy)."""
    run = compare_schemes((key,), **s)
    return run.terms[0].double(), run.weights[0].double(), toy(ToySettings(**s))


def past(length: int) -> torch.Tensor:
    """(L, L) bool, True where the key is not after the query."""
    return torch.ones(length, length, dtype=torch.bool).tril()


def causal_softmax(logits: torch.Tensor) -> torch.Tensor:
    return torch.softmax(logits.masked_fill(~past(logits.shape[0]), -math.inf), -1)


@EXAMPLES
@given(toys)
def test_xpos_term_is_its_score_by_distance(s):
    """Every score, from the xPos page's per-pair formula for one query and one key at distance i - j."""
    term, weights, t = run_one("xpos", s)
    length, d = s["seq_len"], s["dim"]
    scores = torch.zeros(length, length, dtype=torch.float64)
    for i in range(length):
        for j in range(length):
            scores[i, j] = xpos_score_by_distance(t.q[i], t.k[j], torch.tensor([i - j]))[1][0] / math.sqrt(d)
    seen = past(length) if s["causal"] else torch.ones(length, length, dtype=torch.bool)
    content = t.content.double()
    assert torch.allclose(term[seen], (scores - content)[seen], atol=1e-4)
    assert torch.isnan(term[~seen]).all()
    expected = causal_softmax(scores) if s["causal"] else torch.softmax(scores, -1)
    assert torch.allclose(weights, expected, atol=1e-5)


@EXAMPLES
@given(toys)
def test_kerple_term_is_the_log_kernel_of_its_page(s):
    """The naive -p log(1 + a (i - j)) with the page's parameters, and the KERPLE page's own curve for that head."""
    term, weights, t = run_one("kerple", s)
    length = s["seq_len"]
    p, a = kerple_parameters(KERPLE_HEADS, generator=torch.Generator().manual_seed(s["seed"]))
    pk, ak = float(p[KERPLE_HEAD]), float(a[KERPLE_HEAD])
    naive = torch.tensor(
        [[-pk * math.log(1 + ak * max(i - j, 0)) for j in range(length)] for i in range(length)], dtype=torch.float64
    )
    seen = past(length)  # always causal
    assert torch.allclose(term[seen], naive[seen], atol=1e-5) and torch.isnan(term[~seen]).all()
    assert torch.allclose(weights, causal_softmax(t.content.double() + naive), atol=1e-5)
    # the page's curve (its link: these heads and seed) for the last query, against distance
    page = kerple_page.family_biases(heads=KERPLE_HEADS, seq_len=length, seed=s["seed"])
    curve = dict(zip(page["distance"].tolist(), page[kerple_page.PANELS[1]][KERPLE_HEAD].tolist(), strict=True))
    last = length - 1
    np.testing.assert_allclose([curve[last - j] for j in range(length)], term[last].numpy(), atol=1e-5)


@EXAMPLES
@given(toys)
def test_fire_term_is_its_mlp_of_the_normalised_distance(s):
    """The MLP, written out per cell: psi(i - j) / psi(max(i, 512)), then Linear -> ReLU -> Linear."""
    term, _, _ = run_one("fire", s)
    length = s["seq_len"]
    mlp = fire_mlp(FIRE_HEADS, generator=torch.Generator().manual_seed(s["seed"]))
    naive = torch.zeros(length, length, dtype=torch.float64)
    for i in range(length):
        for j in range(length):
            u = math.log(1 + 0.1 * abs(i - j)) / (math.log(1 + 0.1 * max(i, 512)) + 1e-6)
            hidden = [max(0.0, u * float(mlp.w1[h, 0]) + float(mlp.b1[h])) for h in range(mlp.w1.shape[0])]
            row = mlp.w2[FIRE_HEAD].tolist()
            naive[i, j] = sum(w * x for w, x in zip(row, hidden, strict=True)) + float(mlp.b2[FIRE_HEAD])
    seen = past(length) if s["causal"] else torch.ones(length, length, dtype=torch.bool)
    assert torch.allclose(term[seen], naive[seen], atol=1e-5)


@EXAMPLES
@given(toys)
def test_nope_is_none_under_the_causal_mask(s):
    term, weights, t = run_one("nope", s)
    seen = past(s["seq_len"])
    assert torch.equal(term[seen], torch.zeros(int(seen.sum()), dtype=torch.float64))
    assert torch.allclose(weights, causal_softmax(t.content.double()), atol=1e-6)


@EXAMPLES
@given(toys)
def test_stickbreaking_weights_are_the_breaks_of_its_page(s):
    """A_ij = sigmoid(z_ij) prod_{j<k<i} (1 - sigmoid(z_ik)), by loops; and the stick-breaking page's weights."""
    term, weights, t = run_one("stickbreaking", s)
    length = s["seq_len"]
    z = t.q.double() @ t.k.double().T / math.sqrt(s["dim"])
    naive = torch.zeros(length, length, dtype=torch.float64)
    for i in range(length):
        for j in range(i):
            share = torch.sigmoid(z[i, j])
            for k in range(j + 1, i):
                share = share * (1 - torch.sigmoid(z[i, k]))
            naive[i, j] = share
    assert torch.allclose(weights, naive, atol=1e-6)
    assert (weights.sum(-1) <= 1 + 1e-6).all()
    before = torch.ones(length, length, dtype=torch.bool).tril(-1)
    assert torch.allclose(term[before], (naive.log() - z)[before], atol=1e-4)
    assert torch.isnan(term[~before]).all()  # the query itself and later keys get no share
    chart = stickbreaking_page.weights(length=length, dim=s["dim"], seed=s["seed"])
    panel = [trace for trace in chart.spec["data"] if trace["type"] == "heatmap"][1]  # softmax, then stick-breaking
    np.testing.assert_allclose(heatmap_z(panel, length), weights.numpy(), atol=1e-6)


@EXAMPLES
@given(toys)
def test_transformer_xl_is_its_page_without_memory(s):
    """The Transformer-XL page's head at mem_len 0: its weights, and its terms (b) + (c) + (d) over sqrt(d)."""
    term, weights, _ = run_one("transformer_xl", s)
    length, d = s["seq_len"], s["dim"]
    page = transformer_xl_page._terms(length, 0, d, s["seed"])
    seen = past(length)
    position = (page.position + page.content_bias + page.position_bias) / math.sqrt(d)
    assert torch.allclose(term[seen], position[seen], atol=1e-4) and torch.isnan(term[~seen]).all()
    assert torch.allclose(weights, page.weights, atol=1e-5)


def heatmap_z(trace: dict, length: int) -> np.ndarray:
    """A heatmap trace's ``z`` as an (L, L) array (a list, or Plotly's base64 numpy)."""
    import base64

    z = trace["z"]
    if isinstance(z, dict):
        z = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
    return np.nan_to_num(np.asarray(z, dtype=np.float64).reshape(length, length))


def test_every_selection_is_in_the_registry_and_the_default_is_the_first_eight():
    assert list(COMPARE_SETS)[-1] == "all" and len(compared_in("all")) == len({c.key for c in compared_in("all")})
    assert len(compared_in("core")) == 8
    later = [c for c in compared_in("all") if c not in compared_in("core")]
    assert {c.short for c in later} == {"xPos", "KERPLE", "FIRE", "NoPE", "stick-breaking", "Transformer-XL"}
    assert all(c in compared_in("beyond") for c in later)
    assert {c.short for c in compared_in("beyond")} - {c.short for c in later} == {"none", "RoPE", "ALiBi"}
    assert all(BY_KEY[c.key] is c for c in later)
    for c in compared_in("all"):  # each names known selections; "all" is implied, never named
        assert c.compared and set(c.compared.sets) <= set(COMPARE_SETS) - {"all"}, c.key
    with pytest.raises(ValueError, match="selection"):
        compared_in("everything")
