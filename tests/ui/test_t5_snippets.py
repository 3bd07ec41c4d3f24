"""Every generated T5 snippet runs and rebuilds exactly the tensors the page draws."""

from __future__ import annotations

import io
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pytest
import torch

from posviz.encodings.positions import relative_positions
from posviz.encodings.t5 import t5_bias, t5_bucket, t5_bucket_steps
from posviz.figures import t5, t5_pipeline
from posviz.figures import t5_attention as attention_figures
from posviz.figures import t5_bias as bias_figures
from posviz.figures.t5_pipeline import PIPELINE_STEPS, pipeline_matrix
from posviz.ui.t5.settings import T5Settings
from posviz.ui.t5.snippets import T5_STEP_VARIABLES, t5_snippet

SETTINGS = {
    "default": T5Settings(),
    "decoder": T5Settings(bidirectional=False, heads=4, head=3, seed=7),
    "end_decoder_strided_keys": T5Settings(
        q_len=50, k_len=300, align="end", bidirectional=False, num_buckets=16, max_distance=40, heads=3, head=1
    ),
    "end_encoder": T5Settings(q_len=20, k_len=70, align="end", num_buckets=9, max_distance=13, heads=2, scale=-0.75),
    "start_short_queries": T5Settings(q_len=30, k_len=200, align="start", scale=2.5, seed=11),
    "long_strided": T5Settings(q_len=1000, k_len=1000, num_buckets=64, max_distance=300, heads=6, head=5, seed=3),
    "long_decoder_end": T5Settings(q_len=400, k_len=1500, align="end", bidirectional=False, heads=2, scale=0.35),
    # zoomed: a full-resolution window far into a long view, and a strided window past the end of the keys
    "window_far": T5Settings(q_len=131072, k_len=131072, window=64, q_start=100000, k_start=99950, heads=2),
    "window_end_strided": T5Settings(
        q_len=300, k_len=5000, align="end", bidirectional=False, window=1000, q_start=4900, k_start=4500
    ),
}

# The seed notebooks' decoder: small enough to check by hand.
SEEDS = T5Settings(q_len=15, k_len=15, bidirectional=False, num_buckets=6, max_distance=20)
STEP_SETTINGS = {
    **SETTINGS,
    "start_decoder_short_queries": T5Settings(q_len=30, k_len=200, bidirectional=False, num_buckets=10),
    "long_strided_decoder": T5Settings(q_len=1000, k_len=1000, bidirectional=False, max_distance=300),
    "seeds": SEEDS,
}
INT64_MIN = torch.iinfo(torch.int64).min


def run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own generated code, the point of the test
    return ns


def seeded(s: T5Settings) -> np.ndarray:
    """The page's seeded table."""
    return bias_figures.seeded_table(num_buckets=s.num_buckets, heads=s.heads, seed=s.seed)


def custom_table(s: T5Settings) -> np.ndarray:
    """An edited table: distinct from the seeded one, with awkward float32 values."""
    rng = np.random.default_rng(s.seed + 100)
    return (rng.standard_normal((s.num_buckets, s.heads)) * 1e-3 + 1 / 3).astype(np.float32)


def cells(s: T5Settings) -> dict:
    return dict(q_len=s.q_len, k_len=s.k_len, align=s.align, window=s.window, q_start=s.q_start, k_start=s.k_start)


def bias_args(s: T5Settings, table: np.ndarray) -> dict:
    """The arguments the page gives the bias figures, the table as the page passes it (None when seeded)."""
    given = None if np.array_equal(table, seeded(s)) else table.tobytes()
    return dict(
        cells(s), bidirectional=s.bidirectional, num_buckets=s.num_buckets, max_distance=s.max_distance,
        heads=s.heads, head=s.head, scale=s.scale, seed=s.seed, table=given,
    )  # fmt: skip


def matrix_of(chart, ax) -> np.ndarray:
    """A matrix figure's CSV as an array, checked to sit on the shown positions."""
    frame = pd.read_csv(io.StringIO(chart.csv()), index_col=0)
    assert list(frame.index) == list(ax.q_pos) and [int(c) for c in frame.columns] == list(ax.k_pos)
    return frame.to_numpy()


def panels_of(chart, ax, *names: str) -> list[np.ndarray]:
    """A small-multiples figure's CSV, one (q shown, k shown) array per named panel."""
    frame = pd.read_csv(io.StringIO(chart.csv()))
    q, k = np.meshgrid(ax.q_pos, ax.k_pos, indexing="ij")
    assert np.array_equal(frame["query i"], q.ravel()) and np.array_equal(frame["key j"], k.ravel())
    return [frame[name].to_numpy().reshape(q.shape) for name in names]


@dataclass(frozen=True)
class PageBias:
    bias: np.ndarray
    pitfall: tuple[np.ndarray, np.ndarray] | None


def page_bias_view(s: T5Settings, table: np.ndarray) -> PageBias:
    """What the page draws for the bias: the CSVs of its head_bias and (square views) pitfall charts."""
    args = bias_args(s, table)
    bias = matrix_of(bias_figures.head_bias(**args), shown_axes(s, t5.MAIN_POINTS)[0])
    if s.q_len != s.k_len:
        return PageBias(bias, None)
    chart, px = bias_figures.pitfall(**args), shown_axes(s, bias_figures.PITFALL_POINTS)[0]
    return PageBias(bias, tuple(panels_of(chart, px, "permute(2, 0, 1)", "transpose(0, 2)")))


def page_attention_view(s: T5Settings, table: np.ndarray):
    """What the page draws for the toy attention: the CSV of its attention chart, at ``s``'s (capped) lengths."""
    chart, px = attention_figures.attention(**bias_args(s, table)), shown_axes(s, attention_figures.PAIR_POINTS)[0]
    return panels_of(chart, px, "without bias", "with bias")


def toy_settings(s: T5Settings) -> T5Settings:
    """The settings as the page caps them for the toy attention."""
    q_len, k_len = attention_figures.toy_lengths(s.q_len, s.k_len)
    return replace(s, q_len=q_len, k_len=k_len)


def shown_axes(s: T5Settings, points: int):
    ax = t5.shown_axes(**cells(s), points=points)
    return ax, torch.from_numpy(ax.q_pos), torch.from_numpy(ax.k_pos)


@pytest.mark.parametrize("name", list(SETTINGS))
@pytest.mark.parametrize("part", ["bucket", "bias", "attention"])
def test_snippet_positions_and_buckets(name, part):
    s = SETTINGS[name]
    ax, q_pos, k_pos = shown_axes(s, attention_figures.PAIR_POINTS if part == "attention" else t5.MAIN_POINTS)
    ns = run(t5_snippet(s, part=part, axes=ax, toy_dim=attention_figures.TOY_DIM))
    assert torch.equal(ns["q_pos"], q_pos)
    assert torch.equal(ns["k_pos"], k_pos)
    assert torch.equal(ns["rel_pos"], relative_positions(q_pos, k_pos))
    want = t5_bucket(
        relative_positions(q_pos, k_pos),
        bidirectional=s.bidirectional,
        num_buckets=s.num_buckets,
        max_distance=s.max_distance,
    )
    assert torch.equal(ns["bucket"], want)


def test_strided_settings_really_are_strided():
    ax, _, _ = shown_axes(SETTINGS["long_strided"], t5.MAIN_POINTS)
    assert ax.q_stride > 1
    assert ax.k_stride > 1
    ax, _, _ = shown_axes(SETTINGS["end_decoder_strided_keys"], t5.MAIN_POINTS)
    assert ax.q_stride == 1
    assert ax.k_stride > 1
    assert ax.q_pos[0] == 250  # queries at the end of the keys


@pytest.mark.parametrize("name", list(SETTINGS))
@pytest.mark.parametrize("custom", [False, True])
def test_snippet_bias(name, custom):
    s = SETTINGS[name]
    ax, q_pos, k_pos = shown_axes(s, t5.MAIN_POINTS)
    table = custom_table(s) if custom else seeded(s)
    listed = table.tolist() if custom else None
    ns = run(t5_snippet(s, part="bias", axes=ax, table=listed))
    assert torch.equal(ns["table"], torch.from_numpy(table))
    want = t5_bias(
        torch.from_numpy(table), q_pos, k_pos, bidirectional=s.bidirectional, max_distance=s.max_distance, scale=s.scale
    ).unsqueeze(0)
    assert ns["bias"].shape == (1, s.heads, len(q_pos), len(k_pos))
    assert torch.allclose(ns["bias"], want, atol=1e-6, rtol=0)
    # and what the page draws (bias_view) is the same tensor
    view = page_bias_view(s, table)
    assert np.allclose(view.bias, ns["bias"][0, s.head].numpy(), atol=1e-6, rtol=0)


def test_seeded_snippet_table_is_the_page_table():
    s = SETTINGS["decoder"]
    ns = run(t5_snippet(s, part="bias"))
    assert torch.equal(ns["table"], torch.from_numpy(seeded(s)))
    assert not torch.equal(ns["table"], torch.from_numpy(seeded(T5Settings(heads=4, seed=8))))


@pytest.mark.parametrize("name", list(SETTINGS))
@pytest.mark.parametrize("custom", [False, True])
def test_snippet_attention(name, custom):
    table = custom_table(SETTINGS[name]) if custom else seeded(SETTINGS[name])
    s = toy_settings(SETTINGS[name])  # as the page caps it (a no-op up to 2048)
    ax, q_pos, k_pos = shown_axes(s, attention_figures.PAIR_POINTS)
    code = t5_snippet(
        s,
        part="attention",
        axes=ax,
        toy_dim=attention_figures.TOY_DIM,
        table=table.tolist() if custom else None,
    )
    ns = run(code)
    without, with_bias = page_attention_view(s, table)
    shape = (len(q_pos), len(k_pos))
    assert ns["weights"].shape == ns["weights_no_bias"].shape == without.shape == with_bias.shape == shape
    assert np.allclose(ns["weights_no_bias"].numpy(), without, atol=1e-5, rtol=0)
    assert np.allclose(ns["weights"].numpy(), with_bias, atol=1e-5, rtol=0)
    if s.scale != 0:
        assert not np.allclose(without, with_bias, rtol=1e-4, atol=0)  # the bias does something (weights ~1/L)
    if not s.bidirectional:
        future = ax.k_pos[None, :] > ax.q_pos[:, None]
        assert (with_bias[future] == 0).all()
        assert (ns["weights"].numpy()[future] == 0).all()


def test_bucket_snippet_defines_no_bias():
    ns = run(t5_snippet(T5Settings(), part="bucket"))
    assert "bucket" in ns
    assert "bias" not in ns
    assert "weights" not in ns


def end_encoder_code(part: str) -> str:
    """The snippet of ``part`` at the ``end_encoder`` settings, checked to state the lengths and the buckets."""
    code = t5_snippet(SETTINGS["end_encoder"], part=part)
    assert "q_len, k_len, offset = 20, 70, 50" in code
    assert "num_buckets, max_distance, bidirectional = 9, 13, True" in code
    return code


def test_snippet_states_the_settings():
    code = end_encoder_code("bias")
    assert "heads, scale, seed = 2, -0.75, 0" in code


@pytest.mark.parametrize(
    "s",
    [
        T5Settings(q_len=5000, k_len=131072, align="end", bidirectional=False, heads=2, head=1, seed=4),
        T5Settings(q_len=3000, k_len=3000, num_buckets=16, max_distance=1000, heads=1, scale=-1.5),
    ],
    ids=["decoder_131072", "encoder_3000"],
)
def test_snippet_attention_of_long_settings_as_the_page_caps_them(s):
    toy = toy_settings(s)
    assert toy.q_len <= toy.k_len <= attention_figures.TOY_MAX_LEN
    assert (toy.num_buckets, toy.max_distance, toy.bidirectional, toy.scale) == (
        s.num_buckets,
        s.max_distance,
        s.bidirectional,
        s.scale,
    )
    ax, q_pos, k_pos = shown_axes(toy, attention_figures.PAIR_POINTS)
    assert ax.q_stride > 1
    assert ax.k_stride > 1
    table = seeded(s)
    ns = run(t5_snippet(toy, part="attention", axes=ax, toy_dim=attention_figures.TOY_DIM))
    without, with_bias = page_attention_view(toy, table)
    assert torch.equal(ns["q_pos"], q_pos)
    assert torch.equal(ns["k_pos"], k_pos)
    assert np.allclose(ns["weights_no_bias"].numpy(), without, atol=1e-5, rtol=0)
    assert np.allclose(ns["weights"].numpy(), with_bias, atol=1e-5, rtol=0)


def test_step_variables_follow_the_pipeline_figures():
    assert len(T5_STEP_VARIABLES) == len(PIPELINE_STEPS)


@pytest.mark.parametrize("name", list(STEP_SETTINGS))
def test_snippet_steps(name):
    s = STEP_SETTINGS[name]
    ax, q_pos, k_pos = shown_axes(s, t5.MAIN_POINTS)
    code = t5_snippet(s, part="steps", axes=ax)
    assert "relative_position_bucket" not in code  # the intermediates, not the function that hides them
    ns = run(code)
    assert torch.equal(ns["q_pos"], q_pos)
    assert torch.equal(ns["k_pos"], k_pos)
    steps = t5_bucket_steps(
        relative_positions(q_pos, k_pos),
        bidirectional=s.bidirectional,
        num_buckets=s.num_buckets,
        max_distance=s.max_distance,
    )
    assert ns["max_exact"] == steps.max_exact
    fields = {
        "rel_pos": steps.relative_position,
        "direction_offset": steps.direction_offset,
        "n": steps.n,
        "is_small": steps.is_small,
        "log_ratio": steps.log_ratio,
        "val_if_large_float": steps.max_exact + steps.log_ratio,
        "val_if_large_long": steps.val_if_large_raw,
        "val_if_large": steps.val_if_large,
        "within": steps.within,
        "bucket": steps.bucket,
    }
    for var, want in fields.items():
        assert ns[var].dtype == want.dtype, var
        assert ns[var].shape == (len(q_pos), len(k_pos)), var
        assert torch.equal(ns[var], want), var  # -inf equals -inf; no NaN anywhere
    # exactly what the six step figures draw: the package's steps, and the CSV of the page's own chart
    for step, var in enumerate(T5_STEP_VARIABLES, start=1):
        got, want = ns[var].numpy(), pipeline_matrix(steps, step)
        assert got.dtype == want.dtype, var
        assert np.array_equal(got, want), var
        chart = t5_pipeline.pipeline_step(
            **cells(s), bidirectional=s.bidirectional, num_buckets=s.num_buckets, max_distance=s.max_distance, step=step
        )
        drawn = matrix_of(chart, ax)  # float32 values, bools and int64 garbage read back exactly
        assert np.array_equal(drawn.astype(got.dtype), got), var
        assert drawn.dtype.kind == got.dtype.kind, var  # bools as bools, int64 garbage as int64, not floats
    # where n == 0 (r = 0, or a decoder's future keys) the garbage is there, and then gone
    zero = ns["n"] == 0
    if zero.any():
        assert (ns["val_if_large_float"][zero] == float("-inf")).all()
        garbage = INT64_MIN + steps.max_exact
        assert (ns["val_if_large_long"][zero] == garbage).all()
        assert (ns["val_if_large"][zero] == garbage).all()
    half = s.num_buckets // 2 if s.bidirectional else s.num_buckets
    assert ns["within"].min() >= 0
    assert ns["within"].max() < half
    assert torch.isfinite(ns["val_if_large_float"][~zero]).all()


def test_snippet_steps_of_the_seeds_config_by_hand():
    ns = run(t5_snippet(SEEDS, part="steps"))
    assert ns["max_exact"] == 3
    # the last query (i = 14) against keys j = 0 .. 14: n = 14 .. 0
    # n >= 3: 3 + trunc(log(n / 3) / log(20 / 3) * 3): 11..14 -> 5, 6..10 -> 4, 3..5 -> 3
    assert ns["bucket"][14].tolist() == [5, 5, 5, 5, 4, 4, 4, 4, 4, 3, 3, 3, 2, 1, 0]
    assert ns["n"][14].tolist() == list(range(14, -1, -1))
    assert (ns["bucket"].triu(1) == 0).all()  # every future key shares bucket 0
    assert ns["val_if_large_float"][0, 0] == float("-inf")
    assert ns["val_if_large_long"][0, 0] == INT64_MIN + 3
    assert ns["val_if_large"][0, 0] == INT64_MIN + 3  # torch.min keeps it
    assert ns["within"][0, 0] == 0  # torch.where drops it
    assert ns["val_if_large_long"][14, 0] == 5  # n = 14: 3 + trunc(2.44)
    # n = 1: the log term is -1.74; truncated first, then + max_exact: 3 - 1 = 2, not trunc(3 - 1.74) = 1
    assert -2 < ns["log_ratio"][14, 13] < -1
    assert ns["val_if_large_long"][14, 13] == 2
    assert ns["within"][14, 13] == 1  # small: n itself


def test_snippet_steps_states_the_settings_and_draws_nothing_else():
    code = end_encoder_code("steps")
    assert "(-inf).long() is int64 min" in code
    ns = run(code)
    assert "table" not in ns
    assert "bias" not in ns


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_snippet_profile(name):
    s = SETTINGS[name]
    ns = run(t5_snippet(s, part="profile", r_range=(-300, 250)))
    r = torch.arange(-300, 251)
    assert torch.equal(ns["r"], r)
    want = t5_bucket(r, bidirectional=s.bidirectional, num_buckets=s.num_buckets, max_distance=s.max_distance)
    assert torch.equal(ns["profile"], want)


@pytest.mark.parametrize("custom", [False, True], ids=["seeded", "custom"])
def test_snippet_pitfall_is_what_the_page_draws(custom):
    s = T5Settings(q_len=300, k_len=300, num_buckets=16, max_distance=40, heads=4, head=2, scale=0.5, seed=3)
    table = custom_table(s) if custom else seeded(s)
    px, _, _ = shown_axes(s, bias_figures.PITFALL_POINTS)
    code = t5_snippet(s, part="pitfall", axes=px, table=table.tolist() if custom else None)
    ns = run(code)
    view = page_bias_view(s, table)
    correct, transposed = view.pitfall
    assert np.allclose(ns["correct"].numpy(), correct, atol=1e-6, rtol=0)
    assert np.allclose(ns["seeds"].numpy(), transposed, atol=1e-6, rtol=0)
    assert np.allclose(transposed, correct.T, atol=1e-6, rtol=0)  # square: the seeds' bias is the transpose
