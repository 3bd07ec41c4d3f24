"""Benchmarks: seconds, chart bytes and peak memory of each page as L grows.

``python -m posviz.bench`` prints JSON. Each registered benchmark runs at each
of its lengths in a fresh subprocess (``--case NAME:L``), so one case's peak
memory does not mask the next. A case times two stages: ``compute`` (the
page's backend calls, bypassing the Streamlit cache) and ``render`` (the real
page script run through ``streamlit.testing`` with empty caches: computation,
every figure, and the plotly JSON each chart sends). Seconds are the median of
the warm repeats; ``*_cold_s`` is the first run.

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
STAGES = ("compute", "render")
ROOT = Path(__file__).resolve().parents[1]  # the directory holding the posviz package


@dataclass(frozen=True)
class Bench:
    """One page at sequence length L.

    ``compute`` runs the page's backend calls, uncached. ``render`` builds what
    the user receives, every chart serialized, and returns each chart's bytes.
    """

    compute: Callable[[int], Any]  # length -> anything (an int: the bytes of the tensors it built)
    render: Callable[[int], dict[str, int]] | None = None  # length -> chart name -> bytes sent


@dataclass(frozen=True)
class Entry:
    """A registered benchmark: a loader and the lengths to run it at."""

    load: Callable[[], Bench]  # imports lazily, so imports are not timed and streamlit can be quieted first
    lengths: tuple[int, ...]
    quick: tuple[int, ...]  # for ``--quick``


def uncached(fn: Callable) -> Callable:
    """The plain function behind an ``st.cache_data`` one, so every call computes."""
    return getattr(fn, "__wrapped__", fn)


def page_render(page: str, params: Callable[[int], dict[str, str]]) -> Callable[[int], dict[str, int]]:
    """Run the real page script (``streamlit.testing``), caches cleared, and weigh its charts.

    Chart bytes are the plotly JSON each ``st.plotly_chart`` puts in its message.
    """
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    def render(length: int) -> dict[str, int]:
        st.cache_data.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        for key, value in params(length).items():
            at.query_params[key] = value
        at.switch_page(page).run()
        if at.exception:
            raise RuntimeError(f"{page} raised: {at.exception[0].value}")
        charts = at.get("plotly_chart")
        return {
            f"{i}: {json.loads(c.proto.spec)['layout']['title']['text'][:40]}": len(c.proto.spec)
            for i, c in enumerate(charts)
        }

    return render


def t5_page() -> Bench:
    """The T5 page (``pages/t5.py``) at its default settings with q_len = k_len = L."""
    import numpy as np

    from posviz.ui import t5 as ui
    from posviz.ui.snippets import T5Settings

    def compute(length: int) -> None:
        s = T5Settings(q_len=length, k_len=length)
        shape = (s.q_len, s.k_len, s.align)
        rest = (s.max_distance, s.bidirectional, s.scale)
        uncached(ui.bucket_view)(*shape, s.num_buckets, s.max_distance, s.bidirectional)
        tb = np.asarray(uncached(ui.seeded_table)(s.num_buckets, s.heads, s.seed), dtype=np.float32).tobytes()
        uncached(ui.bias_view)(tb, s.num_buckets, s.heads, s.head, *shape, *rest)
        toy = ui.toy_settings(s)
        uncached(ui.attention_view)(tb, s.num_buckets, s.heads, s.head, toy.q_len, toy.k_len, s.align, *rest, s.seed)

    return Bench(compute, page_render("pages/t5.py", lambda n: {"q_len": str(n), "k_len": str(n)}))


def rope_page() -> Bench:
    """The RoPE page (``pages/rope.py``) at its default settings with seq_len = L."""
    from posviz.ui import rope as ui
    from posviz.ui.rope_snippets import RopeSettings

    def compute(length: int) -> None:
        s = RopeSettings(seq_len=length)
        for view in (ui.rope_view, ui.decay_view, ui.scaling_view, ui.attention_view):
            uncached(view)(s)

    return Bench(compute, page_render("pages/rope.py", lambda n: {"seq_len": str(n)}))


def shaw_page() -> Bench:
    """The Shaw page (``pages/shaw.py``) at its default settings with q_len = k_len = L."""
    from posviz.ui import shaw as ui

    def compute(length: int) -> None:
        s = ui.ShawSettings(q_len=length, k_len=length)
        uncached(ui.index_view)(s.q_len, s.k_len, s.align, s.clip)
        uncached(ui.table_view)(s.clip, s.dim, s.seed, s.separate)
        uncached(ui.row_view)(s.q_len, s.k_len, s.align, s.clip, s.dim, s.seed, s.row)
        uncached(ui.toy_view)(s.toy_q_len, s.toy_k_len, s.align, s.clip, s.dim, s.seed, s.separate)
        uncached(ui.memory_view)(s.dim, s.clip)

    return Bench(compute, page_render("pages/shaw.py", lambda n: {"q_len": str(n), "k_len": str(n)}))


def skew_page() -> Bench:
    """The skew page (``pages/skew.py``) at its default settings with seq_len = L (step 3: the widest)."""
    from posviz.ui import skew as ui

    def compute(length: int) -> None:
        s = ui.SkewSettings(seq_len=length)
        uncached(ui.skew_view)(s.seq_len, s.dim, s.seed, s.variant, s.mem_len)
        uncached(ui.memory_view)(s.dim)

    return Bench(compute, page_render("pages/skew.py", lambda n: {"seq_len": str(n), "step": "3"}))


MEMORY_DIM = 64  # the pages' default dim


def shaw_relations_memory() -> Bench:
    """Shaw's R = table[index] really allocated, (L, L, 64) float32: what the skew avoids."""
    import torch

    from posviz.encodings.shaw import shaw_index, shaw_relations

    def compute(length: int) -> int:
        table = torch.randn(2 * length + 1, MEMORY_DIM)  # clip = L: every distance its own row
        pos = torch.arange(length)
        rel = shaw_relations(table, shaw_index(pos, pos, clip=length))  # (L, L, dim)
        return rel.untyped_storage().nbytes()

    return Bench(compute)


def skew_er_memory() -> Bench:
    """The skew's Er (L, 64) and its whole pipeline, really allocated: rel, pad, reshape, slice."""
    import torch

    from posviz.encodings.skew import relative_embeddings_left, skew

    def compute(length: int) -> int:
        er = relative_embeddings_left(torch.randn(length, MEMORY_DIM), length)  # (L, dim)
        q = torch.randn(length, MEMORY_DIM)
        skew(q @ er.T)  # (L, L): the logits both methods need
        return er.untyped_storage().nbytes()

    return Bench(compute)


def cope_text(length: int) -> str:
    """A text of exactly ``length`` tokens: four words, then a sentence end, repeated."""
    return " ".join("." if i % 5 == 4 else "cat" for i in range(length)).replace(" .", ".")


def cope_page() -> Bench:
    """The CoPE page (``pages/cope.py``) at its default settings on a text of L tokens (4096 at most),
    the masking pitfall on."""
    from posviz.ui import cope as ui
    from posviz.ui.cope_snippets import CopeSettings

    def compute(length: int) -> None:
        s = CopeSettings(text=cope_text(length))
        args = (s.text, s.mode, s.npos_max, s.dim, s.seed, s.temperature, b"")
        uncached(ui.cope_view)(*args)
        uncached(ui.row_view)(*args, length - 1, (length - 1) // 2)
        uncached(ui.pitfall_view)(*args)

    return Bench(compute, page_render("pages/cope.py", lambda n: {"text": cope_text(n), "mask_after": "true"}))


def sinusoidal_page() -> Bench:
    """The sinusoidal page (``pages/sinusoidal.py``) at its default settings with seq_len = L."""
    from posviz.ui import sinusoidal as ui
    from posviz.ui.sinusoidal_snippets import SinusoidalSettings

    def compute(length: int) -> None:
        s = SinusoidalSettings(seq_len=length)
        uncached(ui.table_view)(s.seq_len, s.dim, s.base, s.layout)
        uncached(ui.similarity_view)(s.seq_len, s.dim, s.base, s.layout)
        uncached(ui.learned_view)(s.learned_len, s.dim, s.base, s.seed)

    return Bench(compute, page_render("pages/sinusoidal.py", lambda n: {"seq_len": str(n)}))


def alibi_page() -> Bench:
    """The ALiBi page (``pages/alibi.py``) with seq_len = L and 128 heads (its largest count)."""
    from posviz.ui import alibi as ui

    def compute(length: int) -> None:
        uncached(ui.slopes_view)(128)
        uncached(ui.bias_view)(128, length, True)
        uncached(ui.receptive_view)(128, length)

    return Bench(compute, page_render("pages/alibi.py", lambda n: {"seq_len": str(n), "heads": "128"}))


def compare_page() -> Bench:
    """The compare page (``pages/compare.py``) with seq_len = L (at most 64) and its default dim."""
    from posviz.ui import compare as ui

    def compute(length: int) -> None:
        s = ui.CompareSettings(seq_len=length)
        uncached(ui.compare_view)(s.seq_len, s.dim, s.base, s.seed, s.causal)

    return Bench(compute, page_render("pages/compare.py", lambda n: {"seq_len": str(n)}))


def naive_seed() -> Bench:
    """The seeds' way at the T5 defaults: every one of the L x L cells, one full heatmap."""
    import torch

    from posviz.encodings.t5 import t5_bucket

    def compute(length: int) -> torch.Tensor:
        table = torch.randn(32, 8, generator=torch.Generator().manual_seed(0))  # (num_buckets, heads)
        pos = torch.arange(length)
        rel_pos = pos[None, :] - pos[:, None]  # (L, L)
        bucket = t5_bucket(rel_pos, bidirectional=True, num_buckets=32, max_distance=128)  # (L, L)
        table[bucket].permute(2, 0, 1) * 1.0  # (L, L, heads) -> (heads, L, L), times scale
        return bucket

    def render(length: int) -> dict[str, int]:
        bucket = compute(length)
        return {"bucket_full": len(pio.to_json(go.Figure(go.Heatmap(z=bucket.numpy())), validate=False))}

    return Bench(compute, render)


REGISTRY: dict[str, Entry] = {
    "posviz_t5": Entry(t5_page, lengths=(512, 8192, 131072), quick=(512, 2048)),
    "posviz_cope": Entry(cope_page, lengths=(32, 1024, 4096), quick=(32, 512)),
    "naive_seed": Entry(naive_seed, lengths=(512, 2048, 4096), quick=(512,)),
    "posviz_rope": Entry(rope_page, lengths=(16384, 1048576), quick=(16384,)),
    "posviz_shaw": Entry(shaw_page, lengths=(512, 131072), quick=(512,)),
    "posviz_skew": Entry(skew_page, lengths=(64, 512), quick=(64,)),
    "shaw_R_memory": Entry(shaw_relations_memory, lengths=(1024, 2048, 4096), quick=(256,)),
    "skew_Er_memory": Entry(skew_er_memory, lengths=(1024, 2048, 4096), quick=(256,)),
    "posviz_sinusoidal": Entry(sinusoidal_page, lengths=(512, 131072), quick=(512,)),
    "posviz_alibi": Entry(alibi_page, lengths=(512, 131072), quick=(512,)),
    "posviz_compare": Entry(compare_page, lengths=(32, 64), quick=(32,)),
}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def timed(fn: Callable, *args: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def run_case(name: str, length: int, repeats: int = REPEATS) -> dict[str, Any]:
    """One benchmark at one length in this process: a cold run, then ``repeats`` warm ones.

    ``compute_s``: the backend calls alone. ``render_s``: everything the user
    waits for (for a page: the whole script run with empty caches, figures and
    serialization included).
    """
    quiet_streamlit()
    bench = REGISTRY[name].load()
    (bench.render or bench.compute)(min(length, 64))  # first-run costs (imports, kernels) are not the page's
    rss_before = peak_rss_mb()
    computes = [timed(bench.compute, length) for _ in range(1 + repeats)]
    out: dict[str, Any] = {
        "L": length,
        "compute_s": round(statistics.median(t for t, _ in computes[1:] or computes), 4),
        "compute_cold_s": round(computes[0][0], 4),
    }
    if isinstance(computes[0][1], int):
        out["tensor_bytes"] = computes[0][1]
    if bench.render is not None:
        renders = [timed(bench.render, length) for _ in range(1 + repeats)]
        sizes = renders[0][1]
        out.update(
            render_s=round(statistics.median(t for t, _ in renders[1:] or renders), 4),
            render_cold_s=round(renders[0][0], 4),
            charts=len(sizes),
            max_chart=max(sizes, key=sizes.get),
            max_chart_bytes=max(sizes.values()),
            total_chart_bytes=sum(sizes.values()),
            chart_bytes=sizes,
        )
    out.update(peak_rss_mb=round(peak_rss_mb(), 1), rss_growth_mb=round(peak_rss_mb() - rss_before, 1))
    return out


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
