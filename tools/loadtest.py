"""Load test: many concurrent sessions over Streamlit's own websocket protocol.

``python -m tools.loadtest --sessions 50 --changes 5 --page t5`` starts its own
``streamlit run app.py`` on a free loopback port (or targets ``--url``, for
example nginx in front of several processes), then opens ``--sessions``
sessions at once, each as a browser does it:

1. ``GET /<page>?<query>`` (the HTML; a sticky-session proxy may set its
   cookie here), ``GET /_stcore/health`` and ``GET /_stcore/host-config``
   (the server sets the ``_streamlit_xsrf`` cookie);
2. a websocket to ``/_stcore/stream`` with ``Sec-WebSocket-Protocol:
   streamlit, <xsrf cookie>`` (the frontend's token-in-subprotocol scheme), the
   cookies and a same-origin ``Origin`` header, so that XSRF protection stays on
   and the token is validated, as for a browser;
3. a ``BackMsg.rerun_script`` whose ``ClientState`` carries the query string
   and the page name, then ``--changes`` widget changes, each a
   ``rerun_script`` with every widget's value in ``WidgetStates`` (ids taken
   from the ``ForwardMsg`` deltas, the changed one identified by its key), the
   address bar's query string with the bound parameter rewritten, the hashes of
   the messages it has cached (answered with ``ref_hash`` references, as for a
   browser) and the widget's fragment id when it lives in an ``st.fragment``.

Each rerun is timed from the ``BackMsg`` to its ``script_finished``. The
report (JSON on stdout) gives sessions finished, errors, exceptions on screen
(``Exception`` elements in deltas), p50/p95/max seconds per rerun, and the
resident memory of the server process tree (``/proc``) at start, after a
warm-up session, at peak, and after every session has closed and the server
has had ``--settle`` seconds. Bounded in count (``--sessions`` at most
``MAX_SESSIONS``) and time (``--timeout`` seconds for the whole run).

Two more modes measure one session at a time: ``--mode rerun`` (server CPU of
a cold and a warm open of each page and of each single-control change,
:mod:`tools.rerun`) and ``--mode browser`` (Chromium's time until every chart is
drawn, and the bytes it received, :mod:`tools.browser`).

Only the standard library and what Streamlit itself installs (``websockets``,
its protobuf messages) are used; the browser mode also needs Playwright.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import time
import urllib.error
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tools.procs import REPO, MemoryProbe, Variant, cpu_seconds, emit_report, own_server, parse_variant, run_async
from tools.session import Session, SessionError, SessionResult
from tools.widgets import Widget, changed_value, with_param

__all__ = ["REPO", "Widget", "changed_value", "load", "main", "own_server", "percentile", "with_param"]

MAX_SESSIONS = 500
MAX_CHANGES = 50
MODES = ("class", "rerun", "browser")


# ---------------------------------------------------------------- the run


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None without values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _mb(value: int | None) -> float | None:
    return None if value is None else round(value / 2**20, 1)


def _stats(values: list[float]) -> dict[str, float | int | None]:
    r = lambda v: None if v is None else round(v, 3)  # noqa: E731
    return {
        "count": len(values),
        "p50": r(statistics.median(values)) if values else None,
        "p95": r(percentile(values, 95)),
        "max": r(max(values)) if values else None,
    }


async def _one(session: Session, changes: int, think: float, delay: float) -> SessionResult:
    await asyncio.sleep(delay)
    try:
        return await session.run(changes, think)
    except (SessionError, OSError, TimeoutError, urllib.error.URLError) as exc:
        session.result.error = f"{type(exc).__name__}: {exc}"[:300]
    except Exception as exc:  # a websockets handshake refusal and the like: still one failed session
        session.result.error = f"{type(exc).__name__}: {exc}"[:300]
    return session.result


async def load(
    url: str,
    *,
    page: str = "t5",
    query: str = "",
    sessions: int = 10,
    changes: int = 5,
    think: float = 1.0,
    ramp: float = 2.0,
    timeout: float = 600.0,
    rerun_timeout: float = 120.0,
    settle: float = 5.0,
    seed: int = 0,
    keys: Iterable[str] | None = None,
    pids: list[int] | None = None,
    warmup: bool = True,
    warm_urls: list[str] | None = None,
    rounds: int = 1,
) -> dict[str, Any]:
    """Run the sessions against ``url`` and return the report (see the module docstring)."""
    if not 1 <= sessions <= MAX_SESSIONS:
        raise ValueError(f"sessions must be 1 to {MAX_SESSIONS}, not {sessions}: pick a smaller class")
    if not 1 <= rounds <= 5:
        raise ValueError(f"rounds must be 1 to 5, not {rounds}")
    if not 0 <= changes <= MAX_CHANGES:
        raise ValueError(f"changes must be 0 to {MAX_CHANGES}, not {changes}")
    key_set = frozenset(keys) if keys else None
    pids = pids or []
    probe = MemoryProbe(pids)
    rss_start = probe.now() if pids else None
    warm = None
    if warmup:  # imports torch, fills the default view's caches: not what the class costs
        for target in warm_urls or [url]:  # behind a proxy: each process directly
            w = Session(target, page, query, index=-1, seed=seed, keys=key_set, rerun_timeout=rerun_timeout)
            warm = await _one(w, 0, 0.0, 0.0)
            if warm.error:
                break
    rss_before = probe.now() if pids else None
    began = time.perf_counter()
    deadline = began + timeout
    server_cpu0, client_cpu0 = cpu_seconds(pids), time.process_time()
    results: list[SessionResult] = []
    timed_out, rss_rounds, rss_peak = 0, [], 0
    for r in range(rounds):  # a second class on the same server: memory must not keep growing
        probe.start()
        tasks = [
            asyncio.create_task(
                _one(
                    Session(url, page, query, index=i, seed=seed + 7919 * r, keys=key_set, rerun_timeout=rerun_timeout),
                    changes,
                    think,
                    ramp * i / max(1, sessions - 1) if sessions > 1 else 0.0,
                )
            )
            for i in range(sessions)
        ]
        done, pending = await asyncio.wait(tasks, timeout=max(1.0, deadline - time.perf_counter()))
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        results += [t.result() for t in done]
        timed_out += len(pending)
        await probe.stop()
        rss_peak = max(rss_peak, probe.peak)
        await asyncio.sleep(settle)  # the server closes the sessions and frees their runs
        rss_rounds.append(probe.now() if pids else None)
    elapsed = time.perf_counter() - began
    server_cpu = cpu_seconds(pids) - server_cpu0 if pids else None
    client_cpu = time.process_time() - client_cpu0
    rss_after = rss_rounds[-1]
    rss_peak = rss_peak if pids else None

    reruns = [s for r in results for s in r.rerun_s]
    opens = [r.open_s for r in results if r.open_s is not None]
    errors = [r.error for r in results if r.error]
    if timed_out:
        errors.append(f"{timed_out} session(s) still running after the {timeout:.0f} s limit")
    exceptions = [e for r in results for e in r.exceptions]
    changed: dict[str, int] = {}
    for r in results:
        for k in r.changed:
            changed[k] = changed.get(k, 0) + 1
    return {
        "url": url,
        "page": page,
        "query": query,
        "sessions": sessions,
        "rounds": rounds,
        "changes": changes,
        "think_s": think,
        "ramp_s": ramp,
        "finished": sum(r.finished for r in results),  # over all rounds
        "errors": len(errors),
        "error_samples": errors[:10],
        "exceptions": len(exceptions),
        "exception_samples": exceptions[:5],
        "rerun_s": _stats(reruns),
        "open_s": _stats(opens),
        "fragment_reruns": sum(r.fragment_reruns for r in results),
        "full_runs_without_charts": sum(c == 0 for r in results for c in r.charts),
        "charts_per_full_run": _stats([float(c) for r in results for c in r.charts]),
        "controls_changed": dict(sorted(changed.items())),
        "wall_s": round(elapsed, 1),
        "cpu_s": {  # while the sessions ran; the load test shares the machine with the server
            "server": None if server_cpu is None else round(server_cpu, 1),
            "load_test": round(client_cpu, 1),
            "server_per_run": None if server_cpu is None else round(server_cpu / max(1, len(reruns) + len(opens)), 3),
        },
        "warmup_ok": None if warm is None else warm.error is None,
        "rss_mb": {
            "start": _mb(rss_start),
            "before": _mb(rss_before),
            "peak": _mb(rss_peak),
            "after": _mb(rss_after),
            "after_each_round": [_mb(v) for v in rss_rounds],
            "settle_s": settle,
        },
    }


def main(argv: list[str] | None = None) -> int:
    """``--mode class`` (the default) here; ``--mode rerun`` and ``--mode browser`` in their own modules."""
    argv = list(sys.argv[1:] if argv is None else argv)
    mode_parser = argparse.ArgumentParser(add_help=False)
    mode_parser.add_argument("--mode", choices=MODES, default="class")
    known, rest = mode_parser.parse_known_args(argv)
    if known.mode == "rerun":
        from tools import rerun

        return rerun.main(rest)
    if known.mode == "browser":
        from tools import browser

        return browser.main(rest)
    return class_main(rest)


CLASS_OPTIONS = ("page", "query", "sessions", "changes", "think", "ramp", "timeout", "settle", "seed")


def add_class_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of one class (``--page`` to ``--seed``), shared by this tool and ``tools.scale_out``."""
    parser.add_argument("--page", default="t5", help="url path of the page (t5, rope, compare, '' for home)")
    parser.add_argument("--query", default="", help="query string the page is opened with, e.g. 'q_len=64'")
    parser.add_argument("--sessions", type=int, default=50, help=f"concurrent sessions (at most {MAX_SESSIONS})")
    parser.add_argument("--changes", type=int, default=5, help="control changes per session, each a rerun")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between changes (0.5x to 1.5x)")
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds over which the sessions arrive")
    parser.add_argument("--timeout", type=float, default=600.0, help="limit for the whole run, seconds")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds after the sessions close before 'after'")
    parser.add_argument("--seed", type=int, default=0, help="seed of the students' choices")


def class_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`load` that :func:`add_class_arguments` parsed."""
    return {name: getattr(args, name) for name in CLASS_OPTIONS}


def class_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.loadtest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=MODES, default="class", help="class (this), rerun or browser (--help each)")
    add_class_arguments(parser)
    parser.add_argument("--rerun-timeout", type=float, default=120.0, help="limit for one rerun, seconds")
    parser.add_argument("--keys", default="", help="comma-separated controls to change (default: every bound one)")
    parser.add_argument("--url", default="", help="target a running server or proxy instead of starting one")
    parser.add_argument("--pids", default="", help="with --url: comma-separated server pids whose memory to report")
    parser.add_argument("--rounds", type=int, default=1, help="classes in a row on the same server (1 to 5)")
    parser.add_argument("--no-warmup", action="store_true", help="no warm-up session before 'before'")
    parser.add_argument("--server-log", default="", help="file for the log of the server this starts")
    parser.add_argument("--variant", default="", help="configuration of the server this starts: LABEL:ITEM,...")
    parser.add_argument("--out", default="", help="also write the JSON report to this file")
    args = parser.parse_args(argv)

    options = dict(
        class_options(args),
        rerun_timeout=args.rerun_timeout,
        keys=[k for k in args.keys.split(",") if k] or None,
        warmup=not args.no_warmup,
        rounds=args.rounds,
    )
    try:
        if args.url:
            pids = [int(p) for p in args.pids.split(",") if p]
            report = run_async(load(args.url, pids=pids, **options))
        else:
            log = Path(args.server_log) if args.server_log else None
            v = parse_variant(args.variant) if args.variant else Variant()
            env = dict(v.env)
            with own_server(180, log, extra_args=v.args, cwd=v.cwd, env=env) as (url, process):
                report = run_async(load(url, pids=[process.pid], **options))
    except (ValueError, RuntimeError) as exc:
        print(f"loadtest: {exc}", file=sys.stderr)
        return 2
    emit_report(report, args.out)
    return 0 if report["finished"] == report["sessions"] * report["rounds"] and not report["errors"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
