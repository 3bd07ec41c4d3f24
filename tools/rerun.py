"""Server CPU per rerun, one session at a time: what one open or one control change costs the server.

``python -m tools.loadtest --mode rerun`` starts ``streamlit run app.py`` (or
targets ``--url`` with ``--pids``), reads the app's pages from its navigation
message, opens each page once to import its modules, then ``--repeats`` times
(``--pages t5,compare`` to choose; a page may carry a query, ``t5?q_len=64``,
or ``--query`` gives one to every page but home):

- **cold**: a new session sends "Clear caches" (every ``st.cache_data`` and
  ``st.cache_resource`` of the process) and opens the page at its defaults;
- **warm**: another new session opens the same link (the caches hold it now):
  the mean of ten such sessions opened one after another, measured together;
- **change**: in that session, each URL-bound control (``--keys`` to pick) is
  moved to a new value, the same value on every repeat, then moved back
  (**back**: a view the caches hold).

An idle home-page session stays connected throughout, as someone always is
while a class is served: Streamlit drops its compiled scripts whenever the
last session leaves, which no class sees.

Each figure is the server process's CPU time (``/proc/<pid>/stat``, all its
threads) from the ``BackMsg`` until the CPU stops growing after
``script_finished`` (garbage collection included), in milliseconds: the median,
min and max over the repeats. Wall seconds, charts and websocket bytes of the
cold open come along: ``cold_ws_bytes`` the messages' payload,
``cold_wire_bytes`` as transferred (less when the frames are compressed).
Server CPU is the process's own, so other work on the machine inflates it only
a little (the load averages say how busy it was); wall times are not reliable
on a busy machine.

``--variant LABEL:ITEMS`` (repeatable) measures several server configurations
in turn, ``--rounds`` times alternating, so they are compared side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from tools.procs import (
    Variant,
    cpu_seconds,
    emit_report,
    load_average,
    parse_variant,
    rss_bytes,
    run_async,
    settled_cpu,
    variant_server,
)
from tools.session import SKIP_KEYS, Session, SessionError
from tools.widgets import Widget, changed_value

MAX_REPEATS = 20
WARM_OPENS = 10  # new sessions per warm measurement, held together (their mean: 1 ms resolution, not 10)
RERUN_TIMEOUT_S = 120.0


def spread(values: list[float]) -> dict[str, Any]:
    """Median, min, max and every value, rounded to 0.1."""
    if not values:
        return {"median": None, "min": None, "max": None, "runs": []}
    r = lambda v: round(v, 1)  # noqa: E731
    return {
        "median": r(statistics.median(values)),
        "min": r(min(values)),
        "max": r(max(values)),
        "runs": [r(v) for v in values],
    }


class Meter:
    """Server CPU (ms) and wall seconds of one awaited step."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids

    async def __call__(self, step: Callable[[], Awaitable[float]]) -> tuple[float, float]:
        await asyncio.to_thread(settled_cpu, self.pids)  # start from a quiet server
        cpu0 = cpu_seconds(self.pids)
        wall = await step()
        cpu1 = await asyncio.to_thread(settled_cpu, self.pids)
        return (cpu1 - cpu0) * 1000, wall


def controls(session: Session, keys: frozenset[str] | None) -> list[Widget]:
    """The controls to move one at a time: URL-bound ones (or ``keys``), enabled, not free text."""
    chosen = [
        w
        for w in session.widgets.values()
        if not w.disabled
        and w.kind != "text"
        and w.key not in SKIP_KEYS
        and (w.key in keys if keys is not None else w.bound)
    ]
    return sorted(chosen, key=lambda w: w.key)


def new_value(page: str, w: Widget) -> Any:
    """The value ``w`` is moved to: the same on every repeat, so repeats measure the same change."""
    rng = random.Random(zlib.crc32(f"{page}:{w.key}".encode()))
    return changed_value(w, rng)


def session_for(url: str, page: str, query: str) -> Session:
    """A session for ``page``, a url path that may carry its own query (``t5?q_len=64``)."""
    path, _, own = page.partition("?")
    return Session(url, path, own or query, index=0, seed=0, keys=None, rerun_timeout=RERUN_TIMEOUT_S)


async def list_pages(url: str) -> list[str]:
    """The url paths of the app's pages, from the navigation message of a first open ('' is the home page)."""
    s = session_for(url, "", "")
    async with s.connected():
        await s.open()
    return s.app_pages


async def page_repeat(url: str, page: str, meter: Meter, keys: frozenset[str] | None) -> dict[str, Any]:
    """One cold open, WARM_OPENS warm ones, and each control moved to its new value and back."""
    cold = session_for(url, page, "")
    async with cold.connected():
        await cold.clear_caches()
        cold_ms, cold_s = await meter(cold.open)
    out: dict[str, Any] = {
        "cold": cold_ms,
        "cold_wall": cold_s,
        "bytes": cold.bytes_received,
        "wire": cold.wire_bytes,
        "charts": len(cold.chart_bytes),
        "chart_bytes": sum(cold.chart_bytes),
        "exceptions": list(cold.result.exceptions),
        "changes": {},
    }
    async with contextlib.AsyncExitStack() as stack:
        # WARM_OPENS new sessions open the link one after another, measured together: /proc counts CPU
        # in 10 ms ticks, so one open measured alone reads a multiple of 10 ms. Not more: each open costs
        # more the more sessions are held (/t5: 32 ms with one, 40 with a hundred, measured).
        opens = [session_for(url, page, "") for _ in range(WARM_OPENS)]
        for s in opens:
            await stack.enter_async_context(s.connected())

        async def open_all() -> float:
            return sum([await s.open() for s in opens])

        warm_ms, warm_s = await meter(open_all)
        out["warm"], out["warm_wall"] = warm_ms / WARM_OPENS, warm_s / WARM_OPENS
        warm = opens[-1]
        for w in controls(warm, keys):
            widget = warm.widget(w.key) or w
            before, value = widget.value, new_value(page, widget)
            change_ms, _ = await meter(lambda widget=widget, value=value: warm.set_value(widget, value))
            shown, charts = (
                replace(widget, value=value).link_text(),
                warm.charts,
            )  # charts drawn by this run (a fragment's: its own)
            back_ms, _ = await meter(lambda widget=widget, before=before: warm.set_value(widget, before))
            out["changes"][w.key] = {
                "change": change_ms,
                "back": back_ms,
                "value": shown,
                "charts": charts,
                "fragment": bool(widget.fragment_id),
            }
        for s in opens:
            out["exceptions"] += s.result.exceptions
    return out


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per page: the repeats' spread of each measure."""
    first = runs[0]
    keys = sorted({k for r in runs for k in r["changes"]})
    changes = {
        k: {
            "change_ms": spread([r["changes"][k]["change"] for r in runs if k in r["changes"]]),
            "back_ms": spread([r["changes"][k]["back"] for r in runs if k in r["changes"]]),
            "value": first["changes"].get(k, {}).get("value"),
            "fragment": first["changes"].get(k, {}).get("fragment"),
            "charts": first["changes"].get(k, {}).get("charts"),
        }
        for k in keys
    }
    medians = [c["change_ms"]["median"] for c in changes.values() if c["change_ms"]["median"] is not None]
    return {
        "cold_ms": spread([r["cold"] for r in runs]),
        "warm_ms": spread([r["warm"] for r in runs]),
        "cold_wall_s": round(statistics.median(r["cold_wall"] for r in runs), 3),
        "warm_wall_s": round(statistics.median(r["warm_wall"] for r in runs), 3),
        "cold_ws_bytes": first["bytes"],
        "cold_wire_bytes": first["wire"],
        "charts": first["charts"],
        "chart_bytes": first["chart_bytes"],
        "change_ms_median_of_controls": round(statistics.median(medians), 1) if medians else None,
        "change_ms_worst_control": max(medians) if medians else None,
        "changes": changes,
        "exceptions": sorted({e for r in runs for e in r["exceptions"]})[:5],
    }


async def measure(
    url: str, pids: list[int], *, pages: list[str] | None, repeats: int, keys: frozenset[str] | None
) -> dict[str, Any]:
    """Every page (or ``pages``), ``repeats`` times, against the server at ``url`` whose processes are ``pids``."""
    meter = Meter(pids)
    found = await list_pages(url)
    chosen = found if pages is None else pages
    missing = [] if pages is None else [p for p in pages if p.partition("?")[0] not in found]
    if missing:
        raise ValueError(f"no such page(s) {missing}; the app has {found}")
    for page in chosen:  # imports each page's modules: a cost of the first visit only
        s = session_for(url, page, "")
        async with s.connected():
            await s.open()
    # A served class always has someone connected. Streamlit drops its compiled scripts when the last
    # session leaves, so without this idle tab every measured open would compile app.py and the page again.
    bystander = session_for(url, "", "")
    runs: dict[str, list[dict[str, Any]]] = {p: [] for p in chosen}
    async with bystander.connected():
        await bystander.open()
        for _ in range(repeats):
            for page in chosen:
                runs[page].append(await page_repeat(url, page, meter, keys))
    return {(p or "home"): summarize(r) for p, r in runs.items()}


def run_variant(variant: Variant, args: argparse.Namespace) -> dict[str, Any]:
    options = dict(pages=args.pages, repeats=args.repeats, keys=args.keys)
    with variant_server(variant) as (url, process):
        t0, load0 = time.monotonic(), load_average()
        report = run_async(measure(url, [process.pid], **options))
        rss = rss_bytes([process.pid])
    return {
        "pages": report,
        "rss_mb": round(rss / 2**20, 1),
        "wall_s": round(time.monotonic() - t0, 1),
        "load_average": {"start": load0, "end": load_average()},
    }


def merge(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Several rounds of one variant as one: every repeat of every round in each spread."""
    if len(rounds) == 1:
        return rounds[0]
    pages: dict[str, Any] = {}
    for name in rounds[0]["pages"]:
        per = [r["pages"][name] for r in rounds]
        merged = dict(per[-1])
        for measure_key in ("cold_ms", "warm_ms"):
            merged[measure_key] = spread([v for p in per for v in p[measure_key]["runs"]])
        for key, change in merged["changes"].items():
            for m in ("change_ms", "back_ms"):
                change[m] = spread([v for p in per if key in p["changes"] for v in p["changes"][key][m]["runs"]])
        medians = [c["change_ms"]["median"] for c in merged["changes"].values() if c["change_ms"]["median"]]
        merged["change_ms_median_of_controls"] = round(statistics.median(medians), 1) if medians else None
        merged["change_ms_worst_control"] = max(medians) if medians else None
        pages[name] = merged
    return {
        "pages": pages,
        "rss_mb": [r["rss_mb"] for r in rounds],
        "load_average": [r["load_average"] for r in rounds],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.loadtest --mode rerun", description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", default="", help="comma-separated url paths ('home' for the home page); default all")
    parser.add_argument(
        "--repeats", type=int, default=3, help=f"cold/warm/change repeats per page (1 to {MAX_REPEATS})"
    )
    parser.add_argument("--query", default="", help="query string for every page but home, e.g. q_len=131072")
    parser.add_argument("--keys", default="", help="comma-separated controls to move (default: every URL-bound one)")
    parser.add_argument("--variant", action="append", default=[], help="LABEL:ITEM,... (see tools.procs.parse_variant)")
    parser.add_argument("--rounds", type=int, default=1, help="alternate the variants this many times (1 to 5)")
    parser.add_argument("--url", default="", help="target a running server instead (needs --pids)")
    parser.add_argument("--pids", default="", help="with --url: comma-separated server pids")
    parser.add_argument("--out", default="", help="also write the JSON report to this file")
    args = parser.parse_args(argv)
    if not 1 <= args.repeats <= MAX_REPEATS or not 1 <= args.rounds <= 5:
        parser.error(f"--repeats must be 1 to {MAX_REPEATS} and --rounds 1 to 5")
    args.pages = [("" if p == "home" else p) for p in args.pages.split(",") if p] or None
    if args.query and args.pages:
        args.pages = [p if not p else f"{p}?{args.query.lstrip('?')}" for p in args.pages]
    args.keys = frozenset(k for k in args.keys.split(",") if k) or None
    try:
        if args.url:
            pids = [int(p) for p in args.pids.split(",") if p]
            if not pids:
                parser.error("--url needs --pids (the server's CPU is read from /proc)")
            options = dict(pages=args.pages, repeats=args.repeats, keys=args.keys)
            report: dict[str, Any] = {"url": args.url, "pages": run_async(measure(args.url, pids, **options))}
        else:
            variants = [parse_variant(v) for v in args.variant] or [Variant()]
            rounds: dict[str, list[dict[str, Any]]] = {v.label: [] for v in variants}
            for _ in range(args.rounds):
                for v in variants:
                    rounds[v.label].append(run_variant(v, args))
            report = {"variants": {label: merge(r) for label, r in rounds.items()}}
    except (ValueError, RuntimeError, SessionError) as exc:
        print(f"rerun: {exc}", file=sys.stderr)
        return 2
    report["repeats"] = args.repeats
    emit_report(report, args.out)
    return 0
