"""Benchmarks: seconds, chart bytes and peak memory of each page as L grows.

``python -m posviz.bench`` prints JSON. Each registered benchmark runs at each
of its lengths in a fresh subprocess (``--case NAME:L``), so one case's peak
memory does not mask the next. A case times three stages: ``compute`` (the
page's backend calls, bypassing the Streamlit cache), ``figures`` (every figure
the page builds) and ``serialize`` (``plotly.io.to_json(fig, validate=False)``,
what ``st.plotly_chart`` sends). Seconds are the median of the warm repeats;
``*_cold_s`` is the first run.

``naive_seed`` is the seed notebooks' approach for comparison: the full L x L
relative positions, bucketed, looked up and permuted, and one heatmap of the
full bucket matrix.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

REPEATS = 3  # warm runs after the cold one
STAGES = ("compute", "figures", "serialize")
ROOT = Path(__file__).resolve().parents[1]  # the directory holding the posviz package


@dataclass(frozen=True)
class Bench:
    """What a page computes for sequence length L, and the figures it draws from that."""

    compute: Callable[[int], Any]  # length -> state
    figures: Callable[[Any], dict[str, go.Figure]]  # state -> figures by name


@dataclass(frozen=True)
class Entry:
    """A registered benchmark: a loader and the lengths to run it at."""

    load: Callable[[], Bench]  # imports lazily, so imports are not timed and streamlit can be quieted first
    lengths: tuple[int, ...]
    quick: tuple[int, ...]  # for ``--quick``


def uncached(fn: Callable) -> Callable:
    """The plain function behind an ``st.cache_data`` one, so every call computes."""
    if hasattr(fn, "__wrapped__"):
        return fn.__wrapped__

    def call(*args: Any) -> Any:
        fn.clear()
        return fn(*args)

    return call


def t5_page() -> Bench:
    """The T5 page (``pages/t5.py``) at its default settings with q_len = k_len = L."""
    import numpy as np

    from posviz.figures import t5 as fig
    from posviz.ui import t5 as ui
    from posviz.ui.snippets import T5Settings

    def compute(length: int) -> tuple:
        s = T5Settings(q_len=length, k_len=length)
        shape = (s.q_len, s.k_len, s.align)
        view = uncached(ui.bucket_view)(*shape, s.num_buckets, s.max_distance, s.bidirectional)
        tb = np.asarray(uncached(ui.seeded_table)(s.num_buckets, s.heads, s.seed), dtype=np.float32).tobytes()
        rest = (s.max_distance, s.bidirectional, s.scale)
        bv = uncached(ui.bias_view)(tb, s.num_buckets, s.heads, *shape, *rest)
        attn = uncached(ui.attention_view)(tb, s.num_buckets, s.heads, s.head, *shape, *rest, s.seed)
        return s, view, bv, attn, ui.axes(*shape, ui.MAIN_POINTS), ui.axes(*shape, ui.PAIR_POINTS)

    def figures(state: tuple) -> dict[str, go.Figure]:
        s, view, bv, (without, with_bias), ax, pair = state
        shown = dict(q_pos=ax.q_pos, k_pos=ax.k_pos, q_len=s.q_len, k_len=s.k_len)
        bucket_kw = dict(num_buckets=s.num_buckets, bidirectional=s.bidirectional)
        out = {"relative_position": fig.relative_position_figure(view.steps.relative_position, **shown)}
        steps = range(1, len(fig.PIPELINE_STEPS) + 1)  # the page shows one at a time; build them all
        out.update({f"step_{i}": fig.pipeline_figure(view.steps, i, **bucket_kw, **shown) for i in steps})
        out["bucket"] = fig.bucket_figure(view.steps.bucket, num_buckets=s.num_buckets, **shown)
        out["bucket_profile"] = fig.bucket_profile_figure(
            view.profile_r,
            view.profile_bucket,
            max_exact=view.max_exact,
            max_distance=s.max_distance,
            bidirectional=s.bidirectional,
        )
        out["bias"] = fig.bias_figure(bv.bias[s.head], head=s.head, **shown)
        gx = bv.grid_axes
        out["bias_grid"] = fig.bias_grid_figure(bv.grid, q_pos=gx.q_pos, k_pos=gx.k_pos, q_len=s.q_len, k_len=s.k_len)
        out["attention"] = fig.attention_figure(
            without, with_bias, head=s.head, q_pos=pair.q_pos, k_pos=pair.k_pos, q_len=s.q_len, k_len=s.k_len
        )
        mid = len(pair.q_pos) // 2
        out["attention_row"] = fig.attention_row_figure(
            without[mid], with_bias[mid], query=int(pair.q_pos[mid]), k_pos=pair.k_pos
        )
        if bv.seed_transpose is not None:
            out["pitfall"] = fig.pitfall_figure(
                bv.bias[s.head], bv.seed_transpose[s.head], head=s.head, q_pos=ax.q_pos, k_pos=ax.k_pos
            )
        return out

    return Bench(compute, figures)


def naive_seed() -> Bench:
    """The seeds' way at the T5 defaults: every one of the L x L cells, one full heatmap."""
    import torch

    from posviz.encodings.t5 import t5_bucket

    def compute(length: int) -> tuple:
        table = torch.randn(32, 8, generator=torch.Generator().manual_seed(0))  # (num_buckets, heads)
        pos = torch.arange(length)
        rel_pos = pos[None, :] - pos[:, None]  # (L, L)
        bucket = t5_bucket(rel_pos, bidirectional=True, num_buckets=32, max_distance=128)  # (L, L)
        bias = table[bucket].permute(2, 0, 1) * 1.0  # (L, L, heads) -> (heads, L, L), times scale
        return bucket, bias

    def figures(state: tuple) -> dict[str, go.Figure]:
        bucket, _ = state
        return {"bucket_full": go.Figure(go.Heatmap(z=bucket.numpy()))}

    return Bench(compute, figures)


REGISTRY: dict[str, Entry] = {
    "posviz_t5": Entry(t5_page, lengths=(512, 8192, 131072), quick=(512, 2048)),
    "naive_seed": Entry(naive_seed, lengths=(512, 2048, 4096), quick=(512,)),
}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def run_once(bench: Bench, length: int) -> tuple[dict[str, float], dict[str, int]]:
    """One pass of the three stages: seconds per stage, and UTF-8 bytes per chart."""
    t0 = time.perf_counter()
    state = bench.compute(length)
    t1 = time.perf_counter()
    figs = bench.figures(state)
    t2 = time.perf_counter()
    sizes = {name: len(pio.to_json(f, validate=False).encode()) for name, f in figs.items()}
    t3 = time.perf_counter()
    return dict(zip(STAGES, (t1 - t0, t2 - t1, t3 - t2), strict=True)), sizes


def run_case(name: str, length: int, repeats: int = REPEATS) -> dict[str, Any]:
    """Time one benchmark at one length in this process: a cold run, then ``repeats`` warm ones."""
    quiet_streamlit()
    bench = REGISTRY[name].load()
    rss_before = peak_rss_mb()
    runs = [run_once(bench, length) for _ in range(1 + repeats)]
    sizes = runs[0][1]
    record: dict[str, Any] = {"L": length}
    for stage in STAGES:
        record[f"{stage}_s"] = round(statistics.median(r[0][stage] for r in runs[1:] or runs), 4)
        record[f"{stage}_cold_s"] = round(runs[0][0][stage], 4)
    record["total_s"] = round(sum(record[f"{stage}_s"] for stage in STAGES), 4)
    record.update(
        charts=len(sizes),
        max_chart=max(sizes, key=sizes.get),
        max_chart_bytes=max(sizes.values()),
        total_chart_bytes=sum(sizes.values()),
        chart_bytes=sizes,
        peak_rss_mb=round(peak_rss_mb(), 1),
        rss_growth_mb=round(peak_rss_mb() - rss_before, 1),
    )
    return record


def quiet_streamlit() -> None:
    """Silence "No runtime found" and similar warnings of streamlit used outside ``streamlit run``."""
    import streamlit.logger

    streamlit.logger.set_log_level("error")


def machine() -> dict[str, Any]:
    """Where the numbers come from."""
    versions = {pkg: metadata.version(pkg) for pkg in ("torch", "numpy", "plotly", "streamlit")}
    return dict(python=platform.python_version(), platform=platform.platform(), cpu_count=os.cpu_count(), **versions)


def run_all(quick: bool = False, repeats: int = REPEATS) -> dict[str, Any]:
    """Every registered case, each in a fresh ``python -m posviz.bench --case`` subprocess."""
    out: dict[str, Any] = {"machine": machine(), "repeats": repeats}
    start = time.perf_counter()
    for name, entry in REGISTRY.items():
        out[name] = []
        for length in entry.quick if quick else entry.lengths:
            cmd = [sys.executable, "-m", "posviz.bench", "--case", f"{name}:{length}", "--repeats", str(repeats)]
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"case {name}:{length} failed:\n{done.stderr}")
            out[name].append(json.loads(done.stdout))
    out["wall_s"] = round(time.perf_counter() - start, 1)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m posviz.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short lengths only (for the smoke test)")
    parser.add_argument("--case", metavar="NAME:L", help=f"run one case in this process; NAME in {list(REGISTRY)}")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="warm runs after the cold one")
    args = parser.parse_args(argv)
    if args.case:
        name, _, length = args.case.partition(":")
        if name not in REGISTRY or not length.isdigit():
            parser.error(f"--case wants NAME:L with NAME in {list(REGISTRY)}, got {args.case!r}")
        print(json.dumps(run_case(name, int(length), args.repeats)))
    else:
        print(json.dumps(run_all(quick=args.quick, repeats=args.repeats), indent=2))


if __name__ == "__main__":
    main()
