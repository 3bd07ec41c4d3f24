"""Time until every chart is drawn in Chromium, per page against the home page, and the bytes received.

``python -m tools.loadtest --mode browser`` starts ``streamlit run app.py`` (or
targets ``--url``; ``--nginx`` puts Debian's nginx, configured from
``deploy/nginx.conf``, in front of the server it starts), opens every page once
to warm the server, then ``--repeats`` times opens each page in a fresh
browser context (an empty HTTP cache: a student's first visit) and reloads it
once in the same context (a second visit, static files cached).

A page is drawn when Streamlit's script state is ``notRunning`` with no running
indicator, and as many ``.js-plotly-plot`` elements as the last full run sent
Plotly charts (counted in the websocket's ``ForwardMsg`` deltas) each hold a
``_fullLayout`` and a rendered ``.main-svg``, and this stays so for a second.
A poller in the page logs every change of that state with ``performance.now()``
(milliseconds since navigation started); ``drawn_ms`` is when it last became
true. Also reported: ``idle_ms`` (the script finished, as the page saw it),
``long_tasks_ms`` (main-thread tasks over 50 ms until drawn), the HTTP bytes
as transferred (``encodedDataLength``: compressed when the server compresses),
the websocket payload bytes (uncompressed; ``ws_extensions`` says whether the
frames were compressed: the rerun mode counts their bytes as transferred), the
largest responses, and the server's CPU during the visit (``server_cpu_ms``: the
script run and every HTTP response it served).

Playwright drives Debian's ``/usr/bin/chromium`` (``--no-sandbox``); nothing
but the loopback server is contacted. JSON on stdout.
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tools.procs import Variant, cpu_seconds, emit_report, load_average, parse_variant, run_async, variant_server
from tools.rerun import list_pages
from tools.session import chart_size

CHROMIUM = "/usr/bin/chromium"
# Chromium as root on a machine whose network is closed: no sandbox, no background fetches.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}
STABLE_MS = 1000
PAGE_TIMEOUT_S = 120.0
MAX_REPEATS = 10

POLLER = """(() => {
  const s = window.__posviz = {log: [], longTasks: []};
  try {
    new PerformanceObserver(l => { for (const e of l.getEntries()) s.longTasks.push([e.startTime, e.duration]); })
      .observe({type: 'longtask', buffered: true});
  } catch (e) {}
  let last = '';
  const tick = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    const idle = !!app && app.getAttribute('data-test-script-state') === 'notRunning'
      && document.querySelector('[data-testid="stStatusWidget"]') === null;
    let drawn = 0;
    for (const p of document.querySelectorAll('.js-plotly-plot')) {
      if (p._fullLayout && p.querySelector('.main-svg')) drawn += 1;
    }
    const key = idle + ':' + drawn;
    if (key !== last) { s.log.push([performance.now(), idle, drawn]); last = key; }
    setTimeout(tick, 10);
  };
  tick();
})();"""


def charts_in(frame: dict[str, Any], state: dict[str, int]) -> None:
    """Count Plotly charts of the current full run from one websocket frame (``state['charts']``)."""
    if frame.get("opcode") != 2:
        return
    msg = ForwardMsg()
    msg.ParseFromString(base64.b64decode(frame["payloadData"]))
    kind = msg.WhichOneof("type")
    if kind == "new_session":
        state["charts"] = 0
    elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
        state["charts"] += chart_size(msg.delta.new_element) is not None


def settled_at(log: list[list[Any]], expected: int, column: int) -> float | None:
    """ms when the page last became idle with at least ``expected`` in the poller's ``column``
    (2: charts drawn, 3: chart places showing a chart or its still picture)."""
    since = None
    for row in log:
        ok = row[1] and row[column] >= expected  # row: ms, idle, drawn
        if ok and since is None:
            since = row[0]
        elif not ok:
            since = None
    return since


def drawn_at(log: list[list[Any]], expected: int) -> tuple[float | None, float | None]:
    """(ms when the page last became idle with ``expected`` charts drawn, ms when it first became idle)."""
    idle = next((row[0] for row in log if row[1]), None)
    return settled_at(log, expected, 2), idle


async def visit(page: Any, cdp: Any, url: str, *, reload: bool, pids: list[int]) -> dict[str, Any]:
    """Open (or reload) ``url`` in ``page`` and wait until every chart is drawn; timings, bytes, server CPU."""
    sizes: dict[str, int] = {}
    urls: dict[str, str] = {}
    ws: dict[str, Any] = {"bytes": 0, "charts": 0, "extensions": ""}
    on_response = lambda e: urls.__setitem__(e["requestId"], e["response"]["url"])  # noqa: E731
    on_done = lambda e: sizes.__setitem__(e["requestId"], int(e["encodedDataLength"]))  # noqa: E731

    def on_frame(e: dict[str, Any]) -> None:
        frame = e["response"]
        ws["bytes"] += len(base64.b64decode(frame["payloadData"])) if frame.get("opcode") == 2 else 0
        charts_in(frame, ws)

    def on_handshake(e: dict[str, Any]) -> None:
        headers = {k.lower(): v for k, v in e["response"].get("headers", {}).items()}
        ws["extensions"] = headers.get("sec-websocket-extensions", "")

    cdp.on("Network.webSocketHandshakeResponseReceived", on_handshake)
    cdp.on("Network.responseReceived", on_response)
    cdp.on("Network.loadingFinished", on_done)
    cdp.on("Network.webSocketFrameReceived", on_frame)
    t0, cpu0 = time.monotonic(), cpu_seconds(pids)
    await (page.reload() if reload else page.goto(url))
    while time.monotonic() - t0 < PAGE_TIMEOUT_S:
        await page.wait_for_timeout(100)
        state = await page.evaluate("() => window.__posviz")
        drawn, idle = drawn_at(state["log"], ws["charts"])
        if drawn is not None and await page.evaluate("() => performance.now()") - drawn >= STABLE_MS:
            break
    else:
        raise RuntimeError(f"{url}: not drawn within {PAGE_TIMEOUT_S:.0f} s ({ws['charts']} charts expected)")
    server_cpu_ms = (cpu_seconds(pids) - cpu0) * 1000  # the script run and every HTTP response, static files too
    cdp.remove_listener("Network.webSocketHandshakeResponseReceived", on_handshake)
    cdp.remove_listener("Network.responseReceived", on_response)
    cdp.remove_listener("Network.loadingFinished", on_done)
    cdp.remove_listener("Network.webSocketFrameReceived", on_frame)
    largest = sorted(((n, urls.get(r, r)) for r, n in sizes.items()), reverse=True)[:5]
    return {
        "drawn_ms": round(drawn),
        "idle_ms": round(idle) if idle is not None else None,
        "long_tasks_ms": round(sum(d for t, d in state["longTasks"] if t < drawn)),
        "charts": ws["charts"],
        "server_cpu_ms": round(server_cpu_ms),
        "http_bytes": sum(sizes.values()),
        "ws_bytes": ws["bytes"],
        "ws_extensions": ws["extensions"],  # permessage-deflate when the frames are compressed
        "largest": [{"bytes": n, "path": u.split("/", 3)[-1][:80]} for n, u in largest],
    }


def profile_summary(profile: dict[str, Any], top: int = 10) -> dict[str, Any]:
    """Self time (ms) of a V8 CPU profile by script and by function; ``(program)`` is the browser's own work
    outside JavaScript (style, layout, paint), ``(idle)`` the main thread waiting."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    by_script: dict[str, float] = {}
    by_function: dict[str, float] = {}
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[node_id]
        script = frame["url"].rsplit("/", 1)[-1] or frame["functionName"] or "(anonymous)"
        name = f"{frame['functionName'] or '(anonymous)'} {script}"
        by_script[script] = by_script.get(script, 0.0) + delta / 1000
        by_function[name] = by_function.get(name, 0.0) + delta / 1000

    def ranked(d: dict[str, float]) -> dict[str, int]:  # noqa: E306
        return {k: round(v) for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:top]}

    return {"by_script_ms": ranked(by_script), "by_function_ms": ranked(by_function)}


async def measure(
    url: str, *, pages: list[str] | None, repeats: int, pids: list[int], profile: bool = False
) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    found = await list_pages(url)
    chosen = found if pages is None else pages
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {p: {"first": [], "second": []} for p in chosen}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for r in range(repeats + 1):  # round 0 warms the server (imports, caches) and is not reported
                for p in chosen:
                    context = await browser.new_context(viewport=VIEWPORT)
                    await context.add_init_script(POLLER)
                    page = await context.new_page()
                    cdp = await context.new_cdp_session(page)
                    await cdp.send("Network.enable")
                    profiled = profile and r
                    if profiled:
                        await cdp.send("Profiler.enable")
                        await cdp.send("Profiler.setSamplingInterval", {"interval": 500})
                        await cdp.send("Profiler.start")
                    first = await visit(page, cdp, f"{url}/{p}", reload=False, pids=pids)
                    if profiled:
                        first["profile"] = profile_summary((await cdp.send("Profiler.stop"))["profile"])
                        await cdp.send("Profiler.start")
                    second = await visit(page, cdp, f"{url}/{p}", reload=True, pids=pids)
                    if profiled:
                        second["profile"] = profile_summary((await cdp.send("Profiler.stop"))["profile"])
                    await context.close()
                    if r:
                        runs[p]["first"].append(first)
                        runs[p]["second"].append(second)
        finally:
            await browser.close()
    return {(p or "home"): summarize(v) for p, v in runs.items()}


def _median(values: list[float]) -> float:
    return round(statistics.median(values))


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for visit_kind, visits in runs.items():
        out[visit_kind] = {
            "drawn_ms": {"median": _median([v["drawn_ms"] for v in visits]), "runs": [v["drawn_ms"] for v in visits]},
            "idle_ms": _median([v["idle_ms"] or 0 for v in visits]),
            "long_tasks_ms": _median([v["long_tasks_ms"] for v in visits]),
            "server_cpu_ms": _median([v["server_cpu_ms"] for v in visits]),
            "http_bytes": _median([v["http_bytes"] for v in visits]),
            "ws_bytes": _median([v["ws_bytes"] for v in visits]),
            "ws_extensions": visits[0]["ws_extensions"],
            "charts": visits[0]["charts"],
            "largest": visits[0]["largest"],
            **({"profile": visits[0]["profile"]} if "profile" in visits[0] else {}),
        }
    return out


def against_home(report: dict[str, Any]) -> dict[str, Any]:
    """Each page's median time to drawn (interactive charts) over the home page's, first and second visit."""
    home = report.get("home")
    if not home:
        return {}
    return {
        name: {f"{k}_drawn": round(v[k]["drawn_ms"]["median"] / max(1, home[k]["drawn_ms"]["median"]), 2) for k in v}
        for name, v in report.items()
    }


def measure_with(url: str, pids: list[int], args: argparse.Namespace) -> dict[str, Any]:
    return run_async(measure(url, pages=args.pages, repeats=args.repeats, pids=pids, profile=args.profile))


def run_variant(variant: Variant, args: argparse.Namespace) -> dict[str, Any]:
    load0 = load_average()
    if args.nginx:
        from tools.nginx import cluster, find_nginx

        nginx = find_nginx()
        if nginx is None:
            raise RuntimeError("--nginx: nginx is not installed (apt-get install -y nginx)")
        with tempfile.TemporaryDirectory(prefix="posviz-nginx-") as tmp:
            Path(tmp).chmod(0o755)
            with cluster(1, nginx, Path(tmp), variant) as (url, pids, _apps):
                report = measure_with(url, pids, args)
    else:
        with variant_server(variant) as (url, process):
            report = measure_with(url, [process.pid], args)
    return {"pages": report, "vs_home": against_home(report), "load_average": {"start": load0, "end": load_average()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.loadtest --mode browser", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--pages", default="", help="comma-separated url paths ('home' for the home page); default all")
    parser.add_argument("--query", default="", help="query string for every page but home, e.g. q_len=131072")
    parser.add_argument("--repeats", type=int, default=3, help=f"visits per page (1 to {MAX_REPEATS})")
    parser.add_argument("--variant", action="append", default=[], help="LABEL:ITEM,... (see tools.procs.parse_variant)")
    parser.add_argument("--profile", action="store_true", help="a JavaScript CPU profile of each visit")
    parser.add_argument("--nginx", action="store_true", help="serve through nginx (deploy/nginx.conf) in front")
    parser.add_argument("--url", default="", help="target a running server or proxy instead")
    parser.add_argument("--pids", default="", help="with --url: comma-separated server pids (for their CPU)")
    parser.add_argument("--out", default="", help="also write the JSON report to this file")
    args = parser.parse_args(argv)
    if not 1 <= args.repeats <= MAX_REPEATS:
        parser.error(f"--repeats must be 1 to {MAX_REPEATS}")
    pages = [("" if p == "home" else p) for p in args.pages.split(",") if p] or None
    if args.query and pages:
        pages = [p if not p else f"{p}?{args.query.lstrip('?')}" for p in pages]
    args.pages = pages
    try:
        if args.url:
            pids = [int(p) for p in args.pids.split(",") if p]
            report = measure_with(args.url.rstrip("/"), pids, args)
            out: dict[str, Any] = {"url": args.url, "pages": report, "vs_home": against_home(report)}
        else:
            variants = [parse_variant(v) for v in args.variant] or [Variant()]
            out = {"variants": {v.label: run_variant(v, args) for v in variants}}
    except RuntimeError as exc:
        print(f"browser: {exc}", file=sys.stderr)
        return 2
    out["repeats"] = args.repeats
    emit_report(out, args.out)
    return 0
