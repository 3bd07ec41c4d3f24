"""FIRE against a port of the reference module (mcleish7/arithmetic, FIRE), a naive loop, and its properties."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.fire import fire_bias, fire_mlp, fire_normalized_distance


class ReferenceFIRE(torch.nn.Module):
    """cramming/architectures/embeddings.py, class FIRE, at evaluation (positions 0 .. T - 1)."""

    def __init__(self, num_heads=12, mlp_width=32, init_c=0.1, init_L=512.0, eps=1e-6):  # noqa: N803
        super().__init__()
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(1, mlp_width), torch.nn.ReLU(), torch.nn.Linear(mlp_width, num_heads)
        )
        self.c = torch.nn.Parameter(torch.tensor(init_c))
        self.init_L = torch.nn.Parameter(torch.tensor(init_L), requires_grad=False)
        self.L_multiplier = torch.nn.Parameter(torch.tensor(1.0))
        self.eps = eps

    def forward(self, seq_length: int) -> torch.Tensor:
        positions = torch.arange(seq_length, dtype=torch.float64)
        relative_distances = positions[:, None] - positions[None, :]
        threshold = torch.abs(self.L_multiplier * self.init_L)
        position_normalizer = torch.max(positions, threshold)[:, None]
        relative_distances = torch.log(torch.abs(self.c * relative_distances) + 1)
        position_normalizer = torch.log(torch.abs(self.c * position_normalizer) + 1)
        normalized_distances = relative_distances / (position_normalizer + self.eps)
        fire_bias = self.mlp(normalized_distances.unsqueeze(-1)).unsqueeze(0)
        return fire_bias.permute(0, 3, 1, 2)


@pytest.mark.parametrize(("length", "threshold"), [(20, 512.0), (40, 8.0), (1, 512.0)])
def test_equals_the_reference_module(length, threshold):
    mlp = fire_mlp(3, generator=torch.Generator().manual_seed(length))
    ref = ReferenceFIRE(num_heads=3, init_c=0.125, init_L=threshold).double()  # c exact in float32
    with torch.no_grad():
        ref.mlp[0].weight.copy_(mlp.w1)
        ref.mlp[0].bias.copy_(mlp.b1)
        ref.mlp[2].weight.copy_(mlp.w2)
        ref.mlp[2].bias.copy_(mlp.b2)
        want = ref(length)[0]
    pos = torch.arange(length)
    got = fire_bias(fire_normalized_distance(pos, pos, c=0.125, threshold=threshold), mlp)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_a_naive_loop():
    u = fire_normalized_distance(torch.tensor([3, 600]), torch.tensor([0, 3]), c=0.5, threshold=10)
    psi = lambda x: math.log(abs(0.5 * x) + 1)  # noqa: E731
    assert float(u[0, 0]) == pytest.approx(psi(3) / (psi(10) + 1e-6))  # below L: normalised by psi(L)
    assert float(u[1, 1]) == pytest.approx(psi(597) / (psi(600) + 1e-6))  # past L: by psi(i)


@given(i=st.integers(0, 100_000), j=st.integers(0, 100_000), threshold=st.floats(0, 4096))
@settings(max_examples=60, deadline=None)
def test_a_key_before_its_query_lies_in_unit_interval(i, j, threshold):
    i, j = max(i, j), min(i, j)
    u = float(fire_normalized_distance(torch.tensor([i]), torch.tensor([j]), threshold=threshold)[0, 0])
    assert 0 <= u <= 1


def test_one_distance_means_less_as_the_query_moves_on():
    """Progressive interpolation: the same distance 64 at later and later queries (past L) shrinks."""
    q = torch.tensor([600, 1200, 5000, 50000])
    u = fire_normalized_distance(q, q - 64, threshold=512).diagonal()
    assert bool((u[1:] < u[:-1]).all())


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="c > 0"):
        fire_normalized_distance(torch.arange(2), torch.arange(2), c=0)
    with pytest.raises(ValueError, match="heads"):
        fire_mlp(0, generator=torch.Generator())
