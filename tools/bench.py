"""Benchmarks: server CPU, bytes and memory of each page as L grows, measured on the real server.

``python -m tools.bench`` prints JSON with two kinds of case.

Page cases open a page through ``streamlit run app.py`` (one process for all
of them, started here), as a browser does (:mod:`tools.session`), with the
page's URL keys set for length L: a new session clears the caches and opens
the link (cold: every view and figure built, garbage collection included),
``--repeats`` times, then one more session opens it warm. Each reports the
server's CPU milliseconds per open (median, min, max: ``/proc``), the
websocket bytes, the Plotly charts and their spec bytes, and the server's
resident memory after the case. Nothing in ``posviz.ui`` is imported: the
page is driven only through its URL, so the numbers are what a reader costs.

Backend cases run :mod:`posviz.encodings` (the public API) in a fresh
subprocess each (``--case NAME:L``), so one case's peak memory does not mask
the next: the memory of Shaw's ``L x L x dim`` relations against the skew's
``L x dim`` (``shaw_R_memory``, ``skew_Er_memory``), and the seed notebooks'
approach (``naive_seed``: the full ``L x L`` bucket matrix and one heatmap), and L hostile
config.json refused by /models' reader (``hostile_refusal``: seconds, and the peak bytes held).

``python -m tools.bench --floor`` measures instead each chart page's first visit in
Chromium against the platform's floor, a bare page drawing as many trivial
``st.plotly_chart`` charts on the same server (:mod:`tools.floor`), and prints the
ratio per page; ``--variant LABEL:ITEMS`` (repeatable) compares checkouts in one run.
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
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from posviz.schemes import PAGES as REGISTRY_PAGES
from posviz.schemes import Page
from posviz.ui.sections import every_section_open
from tools.procs import REPO, Variant, emit_report, load_average, own_server, parse_variant, rss_bytes, run_async
from tools.rerun import Meter, session_for

REPEATS = 3  # cold opens per page case
MEMORY_DIM = 64  # the pages' default dim


def cope_text(length: int) -> str:
    """A text of exactly ``length`` tokens: four words, then a sentence end, repeated (a ``Bench.text_key``)."""
    return " ".join("." if i % 5 == 4 else "cat" for i in range(length)).replace(" .", ".")


@dataclass(frozen=True)
class PageCase:
    """A page at length L: its url path and the query that sets L (the page's own URL keys)."""

    page: str
    query: Callable[[int], dict[str, str]]  # length -> URL keys
    lengths: tuple[int, ...]
    quick: tuple[int, ...]  # for ``--quick``


def page_case(page: Page) -> PageCase:
    """The case of ``page``'s registry entry (its ``bench``): its URL keys for L, and every section open."""
    bench = page.bench
    assert bench is not None

    def query(n: int) -> dict[str, str]:
        text = {} if bench.text_key is None else {bench.text_key: cope_text(n)}
        return {**{k: str(n) for k in bench.length_keys}, **text, **dict(bench.fixed), **every_section_open()}

    return PageCase(page.key, query, bench.lengths, bench.quick)


PAGES: dict[str, PageCase] = {f"posviz_{p.key}": page_case(p) for p in REGISTRY_PAGES if p.bench}


async def measure_case(url: str, pids: list[int], case: PageCase, length: int, repeats: int) -> dict[str, Any]:
    """``repeats`` cold opens and one warm open of ``case`` at ``length``; see the module docstring."""
    meter, query = Meter(pids), urllib.parse.urlencode(case.query(length))
    cold, walls = [], []
    for _ in range(repeats):
        s = session_for(url, case.page, query)
        async with s.connected():
            await s.clear_caches()
            ms, wall = await meter(s.open)
        cold.append(ms)
        walls.append(wall)
        if s.result.exceptions:
            raise RuntimeError(f"{case.page}?{query[:80]} shows an exception: {s.result.exceptions[0]}")
    w = session_for(url, case.page, query)
    async with w.connected():
        warm_ms, _ = await meter(w.open)
    return {
        "L": length,
        "cold_cpu_ms": round(statistics.median(cold), 1),
        "cold_cpu_ms_range": [round(min(cold), 1), round(max(cold), 1)],
        "warm_cpu_ms": round(warm_ms, 1),
        "cold_wall_s": round(statistics.median(walls), 3),
        "ws_bytes": s.bytes_received,
        "charts": len(s.chart_bytes),
        "max_chart_bytes": max(s.chart_bytes, default=0),
        "total_chart_bytes": sum(s.chart_bytes),
        "server_rss_mb": round(rss_bytes(pids) / 2**20, 1),
    }


async def page_cases(url: str, pids: list[int], *, quick: bool, repeats: int) -> dict[str, list[dict[str, Any]]]:
    warm = session_for(url, next(iter(PAGES.values())).page, "")  # imports torch and the shared modules
    async with warm.connected():
        await warm.open()
    out: dict[str, list[dict[str, Any]]] = {}
    for name, case in PAGES.items():
        out[name] = [await measure_case(url, pids, case, n, repeats) for n in (case.quick if quick else case.lengths)]
    return out


# ---------------------------------------------------------------- backend cases (posviz.encodings only)


def shaw_relations_memory(length: int) -> int:
    """Shaw's R = table[index] really allocated, (L, L, 64) float32: what the skew avoids."""
    import torch

    from posviz.encodings.shaw import shaw_index, shaw_relations

    table = torch.randn(2 * length + 1, MEMORY_DIM)  # clip = L: every distance its own row
    pos = torch.arange(length)
    rel = shaw_relations(table, shaw_index(pos, pos, clip=length))  # (L, L, dim)
    return rel.untyped_storage().nbytes()


def skew_er_memory(length: int) -> int:
    """The skew's Er (L, 64) and its whole pipeline, really allocated: rel, pad, reshape, slice."""
    import torch

    from posviz.encodings.skew import relative_embeddings_left, skew

    er = relative_embeddings_left(torch.randn(length, MEMORY_DIM), length)  # (L, dim)
    q = torch.randn(length, MEMORY_DIM)
    skew(q @ er.T)  # (L, L): the logits both methods need
    return er.untyped_storage().nbytes()


def naive_seed(length: int) -> int:
    """The seeds' way at the T5 defaults: every one of the L x L cells, one full heatmap; its JSON bytes."""
    import plotly.graph_objects as go
    import plotly.io as pio
    import torch

    from posviz.encodings.t5 import t5_bucket

    table = torch.randn(32, 8, generator=torch.Generator().manual_seed(0))  # (num_buckets, heads)
    pos = torch.arange(length)
    rel_pos = pos[None, :] - pos[:, None]  # (L, L)
    bucket = t5_bucket(rel_pos, bidirectional=True, num_buckets=32, max_distance=128)  # (L, L)
    table[bucket].permute(2, 0, 1) * 1.0  # (L, L, heads) -> (heads, L, L), times scale
    return len(pio.to_json(go.Figure(go.Heatmap(z=bucket.numpy())), validate=False))


def hostile_refusal(count: int) -> int:
    """``count`` hostile config.json refused (a 10^9-layer count, a 10^30-token context, a bad rope_theta,
    an impossible layer_types), the model type's config class already imported; the peak bytes Python held.

    Its ``seconds`` is the speed number a timed unit test must not assert (tests/encodings/test_models_hostile.py
    asserts instead that nothing is built or allocated by the hostile value).
    """
    import tracemalloc

    from posviz.encodings.models import model_positions

    base = dict(model_type="llama", hidden_size=256, num_attention_heads=4, num_hidden_layers=2)
    hostile = [
        dict(base, num_hidden_layers=10**9),
        dict(base, max_position_embeddings=10**30),
        dict(base, rope_theta=-1.0),
        dict(base, model_type="qwen2", layer_types=["banana_attention"] * 2),
    ]
    tracemalloc.start()
    for i in range(count):
        try:
            model_positions(hostile[i % len(hostile)])
        except ValueError:
            continue
        raise RuntimeError(f"hostile config {i % len(hostile)} was read")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


BACKEND: dict[str, tuple[Callable[[int], int], tuple[int, ...], tuple[int, ...]]] = {
    "naive_seed": (naive_seed, (512, 2048, 4096), (512,)),
    "shaw_R_memory": (shaw_relations_memory, (1024, 2048, 4096), (256,)),
    "skew_Er_memory": (skew_er_memory, (1024, 2048, 4096), (256,)),
    "hostile_refusal": (hostile_refusal, (1000,), (100,)),  # L: refusals; seconds for all of them
}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10


def run_case(name: str, length: int) -> dict[str, Any]:
    """One backend case in this process: seconds, the bytes it reports, peak memory."""
    fn = BACKEND[name][0]
    fn(min(length, 64))  # first-run costs (imports, kernels) are not the case's
    before = peak_rss_mb()
    t0 = time.perf_counter()
    nbytes = fn(length)
    seconds = time.perf_counter() - t0
    return {
        "L": length,
        "seconds": round(seconds, 4),
        "bytes": nbytes,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "rss_growth_mb": round(peak_rss_mb() - before, 1),
    }


def machine() -> dict[str, Any]:
    """Where the numbers come from."""
    versions = {pkg: metadata.version(pkg) for pkg in ("torch", "numpy", "plotly", "streamlit")}
    return dict(python=platform.python_version(), platform=platform.platform(), cpu_count=os.cpu_count(), **versions)


def run_all(quick: bool = False, repeats: int = REPEATS) -> dict[str, Any]:
    """Every page case on one server, then every backend case in a fresh ``python -m tools.bench --case``."""
    out: dict[str, Any] = {"machine": machine(), "repeats": repeats, "load_average_start": load_average()}
    start = time.perf_counter()
    with own_server(timeout=180) as (url, process):
        out.update(run_async(page_cases(url, [process.pid], quick=quick, repeats=repeats)))
    for name, (_fn, lengths, quick_lengths) in BACKEND.items():
        out[name] = []
        for length in quick_lengths if quick else lengths:
            cmd = [sys.executable, "-m", "tools.bench", "--case", f"{name}:{length}"]
            done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"case {name}:{length} failed:\n{done.stderr}")
            out[name].append(json.loads(done.stdout))
    out["wall_s"] = round(time.perf_counter() - start, 1)
    out["load_average_end"] = load_average()
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short lengths only (for the smoke test)")
    parser.add_argument("--case", metavar="NAME:L", help=f"run one backend case here; NAME in {list(BACKEND)}")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="cold opens per page case (1 to 10)")
    parser.add_argument("--out", default="", help="also write the JSON report to this file")
    parser.add_argument("--floor", action="store_true", help="first visits in Chromium against the floor (tools.floor)")
    parser.add_argument(
        "--pages", default="", help="with --floor: comma-separated url paths (default: every chart page)"
    )
    parser.add_argument("--variant", action="append", default=[], help="with --floor: LABEL:ITEM,... (tools.procs)")
    args = parser.parse_args(argv)
    if args.floor:
        from tools import floor

        variants = [parse_variant(v) for v in args.variant] or [Variant()]
        report = floor.run(variants, [p for p in args.pages.split(",") if p] or None, args.repeats)
        print(floor.table(report))
        if args.out:
            Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
        return
    if args.case:
        name, _, length = args.case.partition(":")
        if name not in BACKEND or not length.isdigit():
            parser.error(f"--case wants NAME:L with NAME in {list(BACKEND)}, got {args.case!r}")
        print(json.dumps(run_case(name, int(length))))
        return
    if not 1 <= args.repeats <= 10:
        parser.error("--repeats must be 1 to 10")
    emit_report(run_all(quick=args.quick, repeats=args.repeats), args.out)


if __name__ == "__main__":
    main()
