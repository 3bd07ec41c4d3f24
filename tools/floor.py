"""Each chart page's first visit against the platform's floor: a bare page with as many trivial charts.

``python -m tools.bench --floor`` serves ``tools/floor_app.py`` (the checkout's own
``app.py`` plus a ``/floor?n=N`` page drawing N trivial ``st.plotly_chart`` heatmaps)
from one ``streamlit run`` per variant, opens every chart page once to warm the
server and count its charts, then ``--repeats`` times opens, in a fresh Chromium
context each (a first visit: empty HTTP cache), every page and right after it the
floor with as many charts, interleaved, variants alternating. A visit's time is
:func:`tools.browser.visit`'s ``drawn_ms``: every chart holds a drawn Plotly plot
and the script is idle, for a second. It prints, per page, the medians and their
ratio (page over floor): 1.0 is as fast as Streamlit draws that many charts at all.

``--variant before:cwd=/tmp/main-checkout --variant after`` measures two checkouts
side by side in one run (``tools.procs.parse_variant``).
"""

from __future__ import annotations

import contextlib
import statistics
from typing import Any

from tools.browser import CHROMIUM, CHROMIUM_ARGS, POLLER, VIEWPORT, visit
from tools.procs import REPO, Variant, load_average, own_server
from tools.rerun import list_pages

FLOOR_APP = str(REPO / "tools" / "floor_app.py")


async def _first_visit(browser: Any, url: str, pids: list[int]) -> dict[str, Any]:
    context = await browser.new_context(viewport=VIEWPORT)
    try:
        await context.add_init_script(POLLER)
        page = await context.new_page()
        cdp = await context.new_cdp_session(page)
        await cdp.send("Network.enable")
        return await visit(page, cdp, url, reload=False, pids=pids)
    finally:
        await context.close()


async def measure(servers: dict[str, tuple[str, list[int]]], pages: list[str] | None, repeats: int) -> dict[str, Any]:
    """``{variant: {page: {"charts", "page_ms", "floor_ms", "ratio"}}}`` over ``repeats`` interleaved first visits."""
    from playwright.async_api import async_playwright

    runs: dict[str, dict[str, dict[str, Any]]] = {}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for label, (url, pids) in servers.items():  # warm-up: imports, caches, and each page's chart count
                chosen = pages or [p for p in await list_pages(url) if p and p != "floor"]
                runs[label] = {}
                for p in chosen:
                    charts = (await _first_visit(browser, f"{url}/{p}", pids))["charts"]
                    if charts:
                        await _first_visit(browser, f"{url}/floor?n={charts}", pids)
                        runs[label][p] = {"charts": charts, "page": [], "floor": []}
            for _ in range(repeats):
                for p in next(iter(runs.values())):
                    for label, (url, pids) in servers.items():
                        if p not in runs[label]:
                            continue
                        run = runs[label][p]
                        run["page"].append((await _first_visit(browser, f"{url}/{p}", pids))["drawn_ms"])
                        floor = await _first_visit(browser, f"{url}/floor?n={run['charts']}", pids)
                        run["floor"].append(floor["drawn_ms"])
        finally:
            await browser.close()
    out: dict[str, Any] = {}
    for label, by_page in runs.items():
        out[label] = {}
        for p, run in by_page.items():
            page_ms, floor_ms = statistics.median(run["page"]), statistics.median(run["floor"])
            out[label][p] = {
                "charts": run["charts"],
                "page_ms": round(page_ms),
                "floor_ms": round(floor_ms),
                "ratio": round(page_ms / max(floor_ms, 1), 2),
                "page_runs": run["page"],
                "floor_runs": run["floor"],
            }
    return out


def run(variants: list[Variant], pages: list[str] | None, repeats: int) -> dict[str, Any]:
    """Start one server per variant (one after another, each healthy first), measure them interleaved."""
    from tools.procs import run_async

    load0 = load_average()
    with contextlib.ExitStack() as stack:
        servers = {}
        for v in variants:
            url, process = stack.enter_context(
                own_server(180, extra_args=v.args, cwd=v.cwd, env=dict(v.env), script=FLOOR_APP)
            )
            servers[v.label] = (url, [process.pid])
        pages_out = run_async(measure(servers, pages, repeats))
    return {"floor": pages_out, "repeats": repeats, "load_average": {"start": load0, "end": load_average()}}


def table(report: dict[str, Any]) -> str:
    """One line per page: each variant's page and floor medians and their ratio."""
    lines = []
    for label, by_page in report["floor"].items():
        for p, r in by_page.items():
            lines.append(
                f"{label:>8} /{p:<11} {r['charts']:>2} charts  page {r['page_ms']:>5} ms"
                f"  floor {r['floor_ms']:>5} ms  ratio {r['ratio']:.2f}"
            )
    return "\n".join(lines)
