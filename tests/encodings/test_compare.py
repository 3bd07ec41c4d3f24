"""Every scheme on one toy sequence (posviz.encodings.compare), checked against each scheme's own functions."""

from __future__ import annotations

import math

import pytest
import torch

from posviz.encodings.alibi import alibi_bias
from posviz.encodings.compare import ALIBI_HEAD, ALIBI_HEADS, ToySettings, compare_schemes, toy
from posviz.schemes import COMPARED, compared_in

SETTINGS = ToySettings(seq_len=12, dim=8, base=10000.0, causal=True, seed=3)
KEYS = tuple(c.key for c in COMPARED)
ALWAYS_CAUSAL = {c.key for c in COMPARED if c.compared and c.compared.always_causal}
SOFTMAX = [c.compared is not None and c.compared.softmax for c in COMPARED]
CORE = {c.key for c in compared_in("core")}


@pytest.mark.parametrize("causal", [True, False])
def test_every_scheme_runs_with_the_same_toy(causal):
    run = compare_schemes(KEYS, seq_len=12, dim=8, base=10000.0, causal=causal, seed=3)
    assert run.terms.shape == run.weights.shape == (len(KEYS), 12, 12)
    assert torch.equal(run.mask, ~torch.ones(12, 12, dtype=torch.bool).tril() if causal else torch.zeros(12, 12) > 0)
    sums = run.weights.sum(-1)  # (schemes, L): 1 for a softmax, at most 1 for stick-breaking's breaks
    assert torch.allclose(sums[SOFTMAX], torch.ones(sum(SOFTMAX), 12))
    assert (sums <= 1 + 1e-6).all() and not all(SOFTMAX)
    none = KEYS.index("none")
    assert torch.nan_to_num(run.terms[none]).abs().max() == 0  # no position term at all
    assert run.nbytes[none] == 0 and all(
        b > 0 for key, b in zip(KEYS, run.nbytes, strict=True) if key in CORE - {"none"}
    )
    for i, key in enumerate(KEYS):
        if key in ALWAYS_CAUSAL or causal:
            assert torch.equal(run.weights[i].triu(1), torch.zeros(12, 12)), key  # no weight on the future
    # CoPE counts the keys up to the query: causal whatever the setting
    assert torch.equal(run.weights[KEYS.index("cope")].triu(1), torch.zeros(12, 12))
    finite = run.terms[torch.isfinite(run.terms)]
    assert run.term_scale == pytest.approx(float(finite.abs().max()))


def test_the_alibi_term_is_its_bias_and_the_weights_its_softmax():
    run = compare_schemes(("alibi",), seq_len=12, dim=8, base=10000.0, causal=True, seed=3)
    pos = torch.arange(12)
    bias = alibi_bias(pos, pos, ALIBI_HEADS, causal=True)[ALIBI_HEAD]
    allowed = torch.ones(12, 12, dtype=torch.bool).tril()
    assert torch.allclose(run.terms[0][allowed], bias[allowed], atol=1e-6)
    t = toy(SETTINGS)
    logits = (t.q @ t.k.T / math.sqrt(8) + bias).masked_fill(~allowed, float("-inf"))
    assert torch.allclose(run.weights[0], torch.softmax(logits, -1), atol=1e-6)


def test_only_compared_schemes_run():
    with pytest.raises(ValueError, match="skew"):
        compare_schemes(("skew",), seq_len=4, dim=8, base=10000.0, causal=True, seed=0)
