"""CoPE gates, positions and interpolated position logits: the paper's code, naive loops, properties."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.cope import (
    causal_logits,
    cope_attention,
    cope_gates,
    cope_interpolation,
    cope_position_logits,
    cope_positions,
    gate_logits,
    key_gates,
    relative_position_logits,
    scaled_content,
)
from posviz.encodings.tokens import count_tokens, is_sentence_end, is_word, tokenize

# --- references -----------------------------------------------------------------------------------


class PaperCoPE(torch.nn.Module):
    """The paper's appendix module, as printed (seed 004 and facebookresearch/RAM)."""

    def __init__(self, npos_max: int, head_dim: int) -> None:
        super().__init__()
        self.npos_max = npos_max
        self.pos_emb = torch.nn.parameter.Parameter(torch.zeros(1, head_dim, npos_max))

    def forward(self, query: torch.Tensor, attn_logits: torch.Tensor) -> torch.Tensor:
        gates = torch.sigmoid(attn_logits)
        pos = gates.flip(-1).cumsum(dim=-1).flip(-1)
        pos = pos.clamp(max=self.npos_max - 1)
        pos_ceil = pos.ceil().long()
        pos_floor = pos.floor().long()
        logits_int = torch.matmul(query, self.pos_emb)
        logits_ceil = logits_int.gather(-1, pos_ceil)
        logits_floor = logits_int.gather(-1, pos_floor)
        w = pos - pos_floor
        return logits_ceil * w + logits_floor * (1 - w)


def naive_cope(q: torch.Tensor, k: torch.Tensor, pos_emb: torch.Tensor, npos_max: int, temperature: float):
    """One (i, j) at a time, float64, from the definitions in REFERENCES.md."""
    n = q.shape[0]
    gates = torch.zeros(n, n, dtype=torch.float64)
    pos = torch.zeros(n, n, dtype=torch.float64)
    z = torch.zeros(n, n, dtype=torch.float64)
    for i in range(n):
        for j in range(n):
            if j <= i:
                gates[i, j] = 1 / (1 + math.exp(-float(q[i] @ k[j]) / temperature))
    for i in range(n):
        for j in range(n):
            p = sum(float(gates[i, t]) for t in range(j, i + 1)) if j <= i else 0.0
            p = min(p, npos_max - 1)
            pos[i, j] = p
            lo, hi = math.floor(p), math.ceil(p)
            w = p - lo
            e = w * pos_emb[:, hi].double() + (1 - w) * pos_emb[:, lo].double()  # the embedding first
            z[i, j] = float(q[i].double() @ e)
    return gates, pos, z


def vectorised(q, k, pos_emb, npos_max, temperature):
    n = q.shape[0]
    p = torch.arange(n)
    gates = cope_gates(causal_logits(gate_logits(q, k, temperature=temperature), p, p))
    pos = cope_positions(gates, npos_max=npos_max)
    return gates, pos, cope_position_logits(q, pos_emb, pos)


def toy(n: int, dim: int, npos_max: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, dim, generator=g), torch.randn(n, dim, generator=g), torch.randn(dim, npos_max, generator=g)


# --- the paper's code and the naive loop ---------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 12),
    dim=st.integers(1, 8),
    npos_max=st.integers(1, 16),
    seed=st.integers(0, 2**16),
    temperature=st.floats(0.25, 8.0),
)
def test_naive_loop_equals_vectorised(n, dim, npos_max, seed, temperature):
    q, k, e = toy(n, dim, npos_max, seed)
    naive = naive_cope(q, k, e, npos_max, temperature)
    fast = vectorised(q, k, e, npos_max, temperature)
    for a, b in zip(naive, fast, strict=True):
        torch.testing.assert_close(b.double(), a, rtol=1e-4, atol=1e-4)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 16), dim=st.integers(1, 8), npos_max=st.integers(1, 20), seed=st.integers(0, 2**16))
def test_equals_the_papers_module(n, dim, npos_max, seed):
    q, k, e = toy(n, dim, npos_max, seed)
    paper = PaperCoPE(npos_max, dim)
    with torch.no_grad():
        paper.pos_emb.copy_(e[None])
        # the paper's SelfAttn: scaled logits, mask.log() added before CoPE sees them
        mask = torch.tril(torch.ones(n, n))
        logits = (q @ k.T / math.sqrt(dim) + mask.log())[None]  # (1, n, n)
        expected = paper(q[None], logits)[0]
    p = torch.arange(n)
    gates = cope_gates(causal_logits(gate_logits(q, k, temperature=math.sqrt(dim)), p, p))
    got = cope_position_logits(q, e, cope_positions(gates, npos_max=npos_max))
    torch.testing.assert_close(got, expected)


# --- properties from REFERENCES.md -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_all_gates_one_give_relative_positions(n):
    p = torch.arange(n)
    gates = cope_gates(causal_logits(torch.full((n, n), float("inf")), p, p))
    pos = cope_positions(gates, npos_max=n + 1)
    i, j = torch.meshgrid(p, p, indexing="ij")
    expected = torch.where(j <= i, (i - j + 1).float(), torch.zeros(()))
    assert torch.equal(pos, expected)
    assert torch.equal(key_gates(torch.ones(n), p, p), gates)


def test_masked_gates_are_exactly_zero_and_a_finite_mask_leaks():
    q, k, _ = toy(9, 4, 4, 0)
    p = torch.arange(9)
    gates = cope_gates(causal_logits(q @ k.T, p, p))
    future = p[None, :] > p[:, None]
    assert (gates[future] == 0).all()
    assert (gates[~future] > 0).all()
    finite = torch.sigmoid((q @ k.T).masked_fill(future, -30.0))
    assert (finite[future] > 0).all()  # why the mask must be -inf


def test_masked_before_gates_differs_from_after():
    q, k, _ = toy(10, 4, 4, 1)
    p = torch.arange(10)
    right = cope_positions(cope_gates(causal_logits(q @ k.T, p, p)), npos_max=100)
    wrong = cope_positions(cope_gates(q @ k.T), npos_max=100)
    future = p[None, :] > p[:, None]
    leak = (wrong - right).masked_fill(future, 0)
    row_future = cope_gates(q @ k.T).masked_fill(~future, 0).sum(-1)  # each row's future gates
    torch.testing.assert_close(leak, row_future[:, None].expand(-1, 10).masked_fill(future, 0))


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 20), seed=st.integers(0, 2**16), npos_max=st.integers(1, 30))
def test_positions_non_increasing_along_keys_and_clamped(n, seed, npos_max):
    g = torch.Generator().manual_seed(seed)
    gates = torch.rand(n, n, generator=g).tril()
    pos = cope_positions(gates, npos_max=npos_max)
    assert (pos[:, 1:] <= pos[:, :-1] + 1e-6).all()
    assert float(pos.max()) <= npos_max - 1
    assert float(pos.min()) >= 0
    raw = gates.flip(-1).cumsum(-1).flip(-1)
    torch.testing.assert_close(pos, torch.minimum(raw, torch.tensor(float(npos_max - 1))))


def test_clamp():
    pos = cope_positions(torch.ones(1, 10), npos_max=4)
    assert pos.tolist() == [[3.0] * 7 + [3.0, 2.0, 1.0]]
    assert cope_positions(torch.ones(1, 3), npos_max=1).tolist() == [[0.0, 0.0, 0.0]]


@pytest.mark.parametrize("p", [0, 1, 5, 7])
def test_an_integer_position_gives_exactly_that_row_of_z(p):
    q, _, e = toy(3, 6, 8, 2)
    positions = torch.full((3, 4), float(p))
    z = cope_position_logits(q, e, positions)
    expected = (q @ e)[:, p]
    assert torch.equal(z, expected[:, None].expand(-1, 4))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), npos_max=st.integers(2, 12), dim=st.integers(1, 16))
def test_efficient_z_equals_interpolating_the_embeddings_first(seed, npos_max, dim):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(5, dim, generator=g, dtype=torch.float64)
    e = torch.randn(dim, npos_max, generator=g, dtype=torch.float64)
    pos = torch.rand(5, 7, generator=g, dtype=torch.float64) * (npos_max - 1)
    at = cope_interpolation(pos)
    emb = at.w[..., None] * e.T[at.ceil] + (1 - at.w[..., None]) * e.T[at.floor]  # (5, 7, dim)
    slow = torch.einsum("qd,qkd->qk", q, emb)
    torch.testing.assert_close(cope_position_logits(q, e, pos), slow)


def test_interpolation_parts():
    at = cope_interpolation(torch.tensor([0.0, 2.25, 3.0, 4.999]))
    assert at.floor.tolist() == [0, 2, 3, 4]
    assert at.ceil.tolist() == [0, 3, 3, 5]
    torch.testing.assert_close(at.w, torch.tensor([0.0, 0.25, 0.0, 0.999]))


def test_key_gates_mask_and_values():
    p = torch.arange(4)
    g = key_gates(torch.tensor([0.0, 1.0, 0.5, 1.0]), p, p)
    assert g.tolist() == [[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0.5, 0], [0, 1, 0.5, 1]]


def test_relative_position_logits_and_attention():
    q, k, e = toy(6, 4, 3, 3)
    p = torch.arange(6)
    rel = relative_position_logits(q, e, p, p)
    for i in range(6):
        for j in range(6):
            assert float(rel[i, j]) == pytest.approx(float(q[i] @ e[:, min(max(i - j, 0), 2)]), abs=1e-5)
    a = cope_attention(scaled_content(q, k), rel, p, p)
    torch.testing.assert_close(a.sum(-1), torch.ones(6))
    assert (a[p[None, :] > p[:, None]] == 0).all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cope_positions(torch.ones(2, 2), npos_max=0), "npos_max"),
        (lambda: cope_gates(torch.tensor([[float("nan")]])), "NaN"),
        (lambda: cope_gates(torch.ones(2, 2, dtype=torch.long)), "float"),
        (lambda: cope_position_logits(torch.ones(2, 3), torch.ones(4, 5), torch.zeros(2, 2)), "dim = 3"),
        (lambda: cope_position_logits(torch.ones(2, 3), torch.ones(3, 5), torch.full((2, 2), 4.5)), "clamp"),
        (lambda: gate_logits(torch.ones(2, 3), torch.ones(2, 3), temperature=0.0), "temperature"),
        (lambda: key_gates(torch.ones(3), torch.arange(2), torch.arange(2)), "one gate per key"),
        (lambda: key_gates(torch.full((2,), 2.0), torch.arange(2), torch.arange(2)), "[0, 1]"),
    ],
)
def test_invalid_arguments_say_what_to_do(call, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        call()


# --- the tokeniser -----------------------------------------------------------------------------------------


def test_tokenize_words_and_punctuation():
    assert tokenize("It's late. Go, now!") == ["It's", "late", ".", "Go", ",", "now", "!"]
    assert tokenize("  \n\t ") == []
    assert tokenize("<b>x</b>") == ["<", "b", ">", "x", "<", "/", "b", ">"]
    assert tokenize("a b c d", limit=2) == ["a", "b"]
    assert count_tokens("a, b.") == 4
    assert [is_sentence_end(t) for t in tokenize("Hi. Yes? No! ok…")] == [0, 1, 0, 1, 0, 1, 0, 1]
    assert is_word("dog") and is_word("42") and not is_word(",")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_tokens_cover_every_visible_character(text):
    tokens = tokenize(text)
    assert "".join(tokens) == "".join(text.split())
    assert all(t.strip() == t and t for t in tokens)


# --- the gates of chosen rows, as the page computes them ---------------------------------------------------

from posviz.encodings.cope import query_gates, toy_position_embeddings  # noqa: E402


def test_query_gates_equal_the_full_matrix_rows():
    g = torch.Generator().manual_seed(2)
    q, k = torch.randn(6, 4, generator=g), torch.randn(6, 4, generator=g)
    rows = torch.tensor([0, 3, 5])
    full = cope_gates(causal_logits(gate_logits(q, k, temperature=2.0), torch.arange(6), torch.arange(6)))
    assert torch.equal(query_gates(q, k, rows, temperature=2.0), full[rows])
    leaky = query_gates(q, k, rows, temperature=2.0, masked=False)  # the pitfall: no mask before the gates
    assert torch.equal(leaky, torch.sigmoid(gate_logits(q[rows], k, temperature=2.0)))
    values = torch.tensor([1.0, 0.0, 1.0, 0.5, 1.0, 0.0])
    assert torch.equal(
        query_gates(q, k, rows, temperature=2.0, values=values), key_gates(values, rows, torch.arange(6))
    )
    unmasked = query_gates(q, k, rows, temperature=2.0, values=values, masked=False)
    assert torch.equal(unmasked, values.expand(3, 6))  # every key's own gate, the future's too


def test_toy_position_embeddings_give_unit_variance_logits():
    emb = toy_position_embeddings(256, 16, generator=torch.Generator().manual_seed(0))
    assert emb.shape == (256, 16)
    q = torch.randn(2000, 256, generator=torch.Generator().manual_seed(1))
    assert float((q @ emb).var()) == pytest.approx(1.0, abs=0.1)


# --- the toy on a text (posviz.encodings.cope_toy), against the naive loops -------------------------------

from posviz.encodings.cope_toy import (  # noqa: E402
    cope_attention_panels,
    cope_counting,
    cope_pair,
    cope_pitfall,
    cope_row,
    cope_rows,
    cope_toy,
)

TOY_TEXT = tokenize("The cat sat. It slept, then it woke! Who? The dog ran in and sat down too.")


def test_toy_rows_row_and_pair_equal_the_naive_loops():
    n, npos_max, temperature = len(TOY_TEXT), 6, 3.0
    t = cope_toy(TOY_TEXT, mode="random", dim=8, seed=4, npos_max=npos_max, temperature=temperature)
    gates, pos, z = naive_cope(t.q, t.k, t.pos_emb, npos_max, temperature)
    raw = torch.tensor([[float(gates[i, j : i + 1].sum()) for j in range(n)] for i in range(n)])  # before the clamp
    rows = torch.tensor([0, 5, n - 1])
    m = cope_rows(t, rows)
    torch.testing.assert_close(m.gates.double(), gates[rows], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(m.positions.double(), pos[rows], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(m.pos_logits.double(), z[rows], rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(m.clamped, raw[rows] > npos_max - 1)
    assert bool(m.clamped.any()) and not bool(m.clamped.all())
    i = 7
    row = cope_row(t, i)
    assert torch.equal(row.positions, cope_rows(t, torch.tensor([i])).positions[0])
    future = sum(1 / (1 + math.exp(-float(t.q[i] @ t.k[j]) / temperature)) for j in range(i + 1, n))
    assert row.future_sum == pytest.approx(future, rel=1e-5)
    torch.testing.assert_close(row.z_row.double(), (t.q[i] @ t.pos_emb).double())
    for j in range(i + 1):
        pair = cope_pair(row, i, j)
        assert pair.p == pytest.approx(float(pos[i, j]), abs=1e-5)
        assert (pair.floor, pair.ceil) == (math.floor(pair.p), math.ceil(pair.p))
        assert pair.w == pytest.approx(pair.p - pair.floor, abs=1e-6)
        assert pair.value == pytest.approx(float(z[i, j]), abs=1e-4)
        assert (pair.z_floor, pair.z_ceil) == (float(row.z_row[pair.floor]), float(row.z_row[pair.ceil]))
    keys = torch.tensor([0, 3, i])
    distance, counted = cope_counting(row, i, keys)
    assert distance.tolist() == [i, i - 3, 0] and torch.equal(counted, row.positions[keys])


def test_toy_pitfall_shifts_each_row_by_its_future_gates():
    n, npos_max = len(TOY_TEXT), 40  # no clamp: the leak is the whole future sum
    t = cope_toy(TOY_TEXT, mode="random", dim=8, seed=1, npos_max=npos_max, temperature=2.0)
    rows = torch.arange(n)
    p = cope_pitfall(t, rows)
    _, pos, _ = naive_cope(t.q, t.k, t.pos_emb, npos_max, 2.0)
    torch.testing.assert_close(p.right.double(), pos, rtol=1e-5, atol=1e-5)
    for i in range(n):
        future = cope_row(t, i).future_sum
        want = torch.full((i + 1,), future, dtype=torch.float64)
        torch.testing.assert_close(p.leak[i, : i + 1].double(), want, rtol=1e-5, atol=1e-5)
        assert not bool(p.wrong[i, i + 1 :].any())  # the mask, applied too late, still zeroes the future cells
    assert torch.equal(p.leak, p.wrong - p.right)


def test_toy_attention_panels_equal_a_naive_softmax():
    n, npos_max = len(TOY_TEXT), 5
    t = cope_toy(TOY_TEXT, mode="count-sentences", dim=8, seed=2, npos_max=npos_max, temperature=8.0)
    rows = torch.tensor([0, 4, n - 1])
    none, relative, cope = cope_attention_panels(t, rows)
    ends = [float(is_sentence_end(tok)) for tok in TOY_TEXT]
    for r, i in enumerate(rows.tolist()):
        content = [float(t.q[i] @ t.k[j]) / math.sqrt(8) for j in range(i + 1)]
        z_int = t.q[i] @ t.pos_emb  # sentence-end gates are 0 or 1: whole-number positions, no interpolation
        z_cope = [float(z_int[min(int(sum(ends[j : i + 1])), npos_max - 1)]) for j in range(i + 1)]
        z_rel = [float(z_int[min(i - j, npos_max - 1)]) for j in range(i + 1)]
        for panel, term in ((none, [0.0] * (i + 1)), (relative, z_rel), (cope, z_cope)):
            logits = torch.tensor([c + z for c, z in zip(content, term, strict=True)], dtype=torch.float64)
            torch.testing.assert_close(panel[r, : i + 1].double(), torch.softmax(logits, 0), rtol=1e-5, atol=1e-6)
            assert not bool(panel[r, i + 1 :].any())


def test_typed_gates_are_read_and_clamped():
    from posviz.encodings.cope import cope_gate_values

    got = cope_gate_values([0.5, "0.25", None, "abc", float("nan"), -3, 7, "1e-1"])
    assert got.tolist() == pytest.approx([0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 1.0, 0.1])
