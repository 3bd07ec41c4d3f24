"""KERPLE against the reference's own lines (chijames/KERPLE, megatron/mpu/layers.py) and a naive loop."""

from __future__ import annotations

import math

import pytest
import torch

from posviz.encodings.kerple import causal_distance, kerple_log_bias, kerple_parameters, kerple_power_bias


def reference_diff(seq_len_k: int) -> torch.Tensor:
    """ParallelKerpleLog.forward, lines 250-253: the causal distance matrix."""
    return torch.tril(
        torch.arange(seq_len_k).view(seq_len_k, 1).repeat(1, seq_len_k) + torch.arange(0, -seq_len_k, -1)
    ).to(torch.float64)


def test_the_distance_is_the_references_tril():
    pos = torch.arange(11)
    torch.testing.assert_close(causal_distance(pos, pos), reference_diff(11))


def test_log_and_power_kernels_equal_the_reference_lines():
    g = torch.Generator().manual_seed(0)
    p, a = kerple_parameters(4, generator=g)
    diff = reference_diff(13)
    pos = torch.arange(13)
    log_ref = -p[:, None, None] * torch.log(1 + a[:, None, None] * diff)  # line 262
    torch.testing.assert_close(kerple_log_bias(pos, pos, p=p, a=a), log_ref)
    power_p = p.clamp(max=2)
    power_ref = -(diff.pow(power_p[:, None, None])) * a[:, None, None]  # lines 399, 404
    torch.testing.assert_close(kerple_power_bias(pos, pos, a=a, p=power_p), power_ref)


def test_a_naive_loop_with_the_name_swap():
    q_pos, k_pos = torch.tensor([0, 5, 9]), torch.tensor([0, 2, 9])
    p, a = torch.tensor([1.5]), torch.tensor([0.3])
    log = kerple_log_bias(q_pos, k_pos, p=p, a=a)[0]
    power = kerple_power_bias(q_pos, k_pos, a=a, p=p)[0]
    for x, i in enumerate(q_pos.tolist()):
        for y, j in enumerate(k_pos.tolist()):
            d = max(i - j, 0)
            assert float(log[x, y]) == pytest.approx(-1.5 * math.log(1 + 0.3 * d))  # p multiplies, a inside
            assert float(power[x, y]) == pytest.approx(-0.3 * d**1.5)  # a multiplies, p the exponent


def test_the_references_initial_parameters_are_in_range():
    p, a = kerple_parameters(64, generator=torch.Generator().manual_seed(1))
    assert float(p.min()) >= 0.01 and float(p.max()) <= 2 and float(a.min()) >= 0.01 and float(a.max()) <= 1


def test_out_of_range_parameters_are_refused_with_the_range():
    pos = torch.arange(3)
    with pytest.raises(ValueError, match="from 0.01 to 2"):
        kerple_power_bias(pos, pos, a=torch.tensor([1.0]), p=torch.tensor([2.5]))
    with pytest.raises(ValueError, match="at least 0.01"):
        kerple_log_bias(pos, pos, p=torch.tensor([0.0]), a=torch.tensor([1.0]))
    with pytest.raises(ValueError, match="one value per head"):
        kerple_log_bias(pos, pos, p=torch.tensor([1.0, 1.0]), a=torch.tensor([1.0]))
