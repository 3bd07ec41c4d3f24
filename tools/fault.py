"""A class through a server fault: 2 app processes behind nginx, a killed one, restarts; and one process restarted.

    python -m tools.fault --students 40                 # both scenarios, this checkout
    python -m tools.fault --students 40 --app-dir DIR   # another checkout (its app and its deploy/nginx.conf)

``replicas``: two ``streamlit run serve.py`` (the deployed entry: Dockerfile, deploy/) behind nginx
(``deploy/nginx.conf`` rendered for their ports by ``tools.fault_nginx``). The students open ``/t5``
and ``/skew`` (every other one) at a view of their own, then
  1. ``kill``: the first process is killed (SIGKILL) mid-class;
  2. ``return``: it is started again (its moved students must stay where their session is);
  3. ``restart other``: the second process is stopped (SIGTERM) and started again.
``single``: one process, no proxy (the container), killed and started again on its port.

After each event every student is checked, a few at a time: the view (the address is the one the
student had, the step chart is drawn, no exception, app.py's navigation is there), a button (Next
then Previous, fragment buttons, each within ``--click-s`` seconds), and a download (the step's
"Data as CSV" within ``--click-s`` seconds, not empty). A button whose effect shows after
``--click-s`` but within ``LATE_S`` counts as late (queued behind other reruns), not dead; ``click_s``
gives the median and longest click. ``recover_s`` is the time from the fault
to the student's page connected and idle again, as the page saw it, with its buttons taking clicks again
(``guarded`` counts the pages whose buttons the app held from the reconnect until its rerun had ended:
``posviz.ui.reconnect``). JSON on stdout; exit status 1
when any view, button or download failed or a button was late.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from tools import fault_nginx, procs, scale_out
from tools import nginx as nginx_config
from tools.browser import CHROMIUM, CHROMIUM_ARGS

VIEWPORT = {"width": 1280, "height": 720}
# (page, query): every student sits on a walk-through with Previous / Next (a fragment) and downloads.
CLASS = [("t5", "num_buckets=24&step=2"), ("skew", "seq_len=10&step=2")]
LOAD_S = 180.0

# Logs, in the page, when the connection was lost and back, and when a script run last ended
# (Date.now(), the machine's clock). The states it starts from are read when it is installed: its
# first tick may come late (the page's main thread still drawing figures), after a fault has begun.
WATCH_JS = """() => {
  const w = window.__fault = {lost: 0, back: 0, ran: 0};
  const read = () => {
    const a = document.querySelector('[data-testid="stApp"]');
    return [a && a.getAttribute('data-test-connection-state'), a && a.getAttribute('data-test-script-state')];
  };
  let [last, state] = read();
  setInterval(() => {
    const [c, r] = read();
    if (r !== state) { if (state === 'running') w.ran = Date.now(); state = r; }
    if (c === last) return;
    if (c === 'CONNECTED') w.back = Date.now(); else if (last === 'CONNECTED') w.lost = Date.now();
    last = c;
  }, 50);
}"""
# Reconnected, and either the rerun that follows has ended or none came within RERUN_WAIT_MS.
RECOVERED_JS = """([t, wait]) => { const w = window.__fault;
  return w.lost >= t && w.back > w.lost && (w.ran > w.back || Date.now() > w.back + wait); }"""
RERUN_WAIT_MS = 3000
LATE_S = 30.0  # a click whose effect shows later than --click-s but within this is late, not dead
LOST_MS = 30_000  # a killed or stopped process drops its websockets at once; a busy browser notices late
IDLE_JS = """() => {
  const a = document.querySelector('[data-testid="stApp"]');
  return !!a && a.getAttribute('data-test-connection-state') === 'CONNECTED'
    && a.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.body.classList.contains('posviz-resync');
}"""
# The app's reconnect guard (posviz.ui.reconnect) marked this page after time t and has let it go.
GUARDED_JS = """t => { const log = window.__posvizResync || [];
  const on = log.findIndex(([s, when]) => s === 'on' && when >= t);
  return on >= 0 && log.slice(on + 1).some(([s]) => s === 'off'); }"""
STEP_DRAWN_JS = """n => new URLSearchParams(location.search).get('step') === String(n)
  && [...document.querySelectorAll('[class*="st-key-fig_"][class*="_step_' + n + '"] .js-plotly-plot')]
       .some(e => e._fullLayout && e.querySelector('.main-svg'))"""
VIEW_JS = """() => ({
  search: location.search,
  exception: document.querySelectorAll('[data-testid="stException"]').length,
  navigation: [...document.querySelectorAll('[data-testid="stSidebarNavLink"]')]
    .some(a => /T5 relative bias/.test(a.textContent)),
  dialog: !!document.querySelector('[role="dialog"]'),
})"""


@dataclass
class Student:
    """One browser context on one page."""

    name: str
    path: str
    query: str
    context: object = None
    page: object = None
    search: str = ""


@dataclass
class Check:
    """What one student found after one event."""

    view_lost: bool
    without_app_py: bool
    buttons_dead: int
    downloads_failed: int
    recover_s: float | None
    notes: list[str] = field(default_factory=list)
    buttons_late: int = 0  # worked, but later than --click-s (a queue behind other reruns, not a dead button)
    click_s: list[float] = field(default_factory=list)  # seconds each working click took to show its effect
    guarded: bool = False  # its buttons took no clicks from the reconnect until the rerun after it had ended


PORTS = range(8660, 8700)  # the range this tool may take on a shared machine
_taken: set[int] = set()


def free_port() -> int:
    """A free loopback port in ``PORTS`` that this run has not used yet."""
    import socket

    for port in PORTS:
        if port in _taken:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        _taken.add(port)
        return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


def _step(search: str) -> int:
    match = re.search(r"[?&]step=(\d+)", search)
    return int(match.group(1)) if match else 1


async def open_student(browser, base: str, s: Student) -> None:
    s.context = await browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    s.context.set_default_timeout(LOAD_S * 1000)
    s.page = await s.context.new_page()
    await s.page.goto(f"{base}/{s.path}?{s.query}", timeout=LOAD_S * 1000)
    await s.page.wait_for_function(STEP_DRAWN_JS, arg=_step(s.query), timeout=LOAD_S * 1000)
    await s.page.wait_for_function(IDLE_JS, timeout=LOAD_S * 1000)
    await s.page.evaluate(WATCH_JS)
    s.search = await s.page.evaluate("location.search")


async def wait_recovered(s: Student, since: float, timeout_s: float) -> float | None:
    """Seconds from the fault at ``since`` (time.time()) until the page has reconnected and is idle.

    0.0 when the page never lost its connection (its process lives on); None when it never came back.
    A page that reruns on reconnect has recovered when that run ends; one that does not (Streamlit's
    default after a full run) when it has been connected for ``RERUN_WAIT_MS``, which that time inflates.
    """
    try:
        await s.page.wait_for_function("t => window.__fault.lost >= t", arg=since * 1000 - 1000, timeout=LOST_MS)
    except Exception:  # Playwright's TimeoutError: this page's process is alive
        return 0.0
    try:
        await s.page.wait_for_function(RECOVERED_JS, arg=[since * 1000 - 1000, RERUN_WAIT_MS], timeout=timeout_s * 1000)
        await s.page.wait_for_function(IDLE_JS, timeout=timeout_s * 1000)
    except Exception:
        return None
    return time.time() - since


# What a dead click left on the page: the address's step, the app's states, the step figures there.
DEAD_JS = """() => { const a = document.querySelector('[data-testid="stApp"]');
  return {step: new URLSearchParams(location.search).get('step'),
    script: a && a.getAttribute('data-test-script-state'),
    connection: a && a.getAttribute('data-test-connection-state'),
    figures: [...document.querySelectorAll('[class*="st-key-fig_"][class*="_step_"]')].map(e =>
      (e.className.match(/st-key-(fig_\\S+)/) || [])[1] + (e.querySelector('.main-svg') ? '' : ' (not drawn)'))}; }"""


async def _click_step(s: Student, label: str, target: int, click_s: float, notes: list[str]) -> float | None:
    """Seconds from the click to the step drawn; None when that did not happen within ``LATE_S`` (dead)."""
    main = s.page.locator('[data-testid="stMain"]')
    stage = "click"
    # Timed from the attempt: Playwright's click waits until the button is stable and enabled, which it
    # is not while a run redraws it (a class's reruns queue on a cold process); a student's click would
    # land at once. Counted as late past click_s, as dead only when nothing shows within LATE_S.
    t0 = time.monotonic()
    try:
        await main.get_by_role("button", name=label, exact=True).click(timeout=LATE_S * 1000)
        stage = "step drawn"
        left = max(1.0, LATE_S - (time.monotonic() - t0))
        await s.page.wait_for_function(STEP_DRAWN_JS, arg=target, timeout=left * 1000)
        return time.monotonic() - t0
    except Exception:
        with suppress(Exception):
            notes.append(f"{label} failed at {stage}: {await s.page.evaluate(DEAD_JS)}")
        return None


async def _download(s: Student, click_s: float) -> bool:
    button = s.page.locator('[class*="st-key-csv_"][class*="_step_"] button').first
    try:
        async with s.page.expect_download(timeout=click_s * 1000) as info:
            await button.click(timeout=click_s * 1000)
        download = await info.value
        path = await download.path()
        return (await download.failure()) is None and path is not None and os.path.getsize(path) > 0
    except Exception:
        return False


async def check(s: Student, recover_s: float | None, click_s: float) -> Check:
    view = await s.page.evaluate(VIEW_JS)
    step = _step(s.search)
    notes = []
    lost = view["search"] != s.search or view["exception"] > 0 or view["dialog"]
    if lost:
        notes.append(f"view: {view}")
    dead = late = 0
    took = []
    for label, target in (("Next", step + 1), ("Previous", step)):
        seconds = await _click_step(s, label, target, click_s, notes)
        if seconds is None:
            dead += 1
            notes.append(f"{label} did nothing within {LATE_S:.0f} s")
            break  # the step is no longer known: Previous would test nothing
        took.append(seconds)
        if seconds > click_s:
            late += 1
            notes.append(f"{label} took {seconds:.1f} s")
    with suppress(Exception):
        await s.page.wait_for_function(IDLE_JS, timeout=click_s * 1000)
    failed = 0 if await _download(s, click_s) else 1
    if failed:
        notes.append("the step's CSV did not download")
    return Check(lost, not view["navigation"], dead, failed, recover_s, notes, late, took)


async def note_views(students: list[Student]) -> None:
    """Each student's view just before a fault: what the fault must not change (a late click may have)."""
    for s in students:
        with suppress(Exception):
            await s.page.wait_for_function(IDLE_JS, timeout=LOAD_S * 1000)
        s.search = await s.page.evaluate("location.search")


async def check_all(students: list[Student], click_s: float, at_once: int, since: float | None) -> list[Check]:
    """Check every student, a few at a time; after a fault at ``since``, once each page has recovered."""
    gate = asyncio.Semaphore(at_once)

    async def one(s: Student) -> Check:
        recover = await wait_recovered(s, since, LOAD_S) if since is not None else 0.0
        if recover is None:
            return Check(True, False, 1, 1, None, ["never reconnected"])
        guarded = bool(recover) and await s.page.evaluate(GUARDED_JS, since * 1000 - 1000)
        async with gate:
            found = await check(s, recover or None, click_s)
        found.guarded = guarded
        return found

    return list(await asyncio.gather(*(one(s) for s in students)))


def summary(event: str, students: list[Student], checks: list[Check]) -> dict:
    times = sorted(c.recover_s for c in checks if c.recover_s is not None)
    clicks = sorted(t for c in checks for t in c.click_s)
    out = {
        "event": event,
        "students": len(checks),
        "load": procs.load_average(),  # the machine's, when the checks ended: late clicks queue behind it
        "reconnected": sum(c.recover_s is not None for c in checks),
        "guarded": sum(c.guarded for c in checks),  # of the reconnected: the app held their clicks until rerun
        "views_lost": sum(c.view_lost for c in checks),
        "buttons_dead": sum(c.buttons_dead for c in checks),
        "buttons_late": sum(c.buttons_late for c in checks),
        "click_s": {
            "median": round(statistics.median(clicks), 2) if clicks else None,
            "max": round(clicks[-1], 2) if clicks else None,
        },
        "downloads_failed": sum(c.downloads_failed for c in checks),
        "without_app_py": sum(c.without_app_py for c in checks),  # a fresh process's cold start (issue 29, item 2)
        "failed_through_app_py": sum(
            bool(c.view_lost or c.buttons_dead or c.downloads_failed) and not c.without_app_py for c in checks
        ),
        "recover_s": {
            "median": round(statistics.median(times), 1) if times else None,
            "max": round(times[-1], 1) if times else None,
        },
    }
    notes = [f"{s.name}: {'; '.join(c.notes)}" for s, c in zip(students, checks, strict=True) if c.notes]
    if notes:
        out["notes"] = notes[:8]
    return out


ENTRY = "serve.py"  # what the container and deploy/ run: app.py with no legacy pages runner at a cold start


class Apps:
    """App processes on fixed loopback ports, killed and started by index."""

    def __init__(self, ports: list[int], app_dir: Path, workdir: Path) -> None:
        self.ports, self.app_dir, self.workdir = ports, app_dir, workdir
        self.procs: list[subprocess.Popen | None] = [None] * len(ports)

    def start(self, i: int) -> None:
        log = self.workdir / f"app{i}-{int(time.time())}.log"
        self.procs[i] = procs.start_server(self.ports[i], log_path=log, cwd=self.app_dir, script=ENTRY)
        procs.wait_healthy(f"http://127.0.0.1:{self.ports[i]}", LOAD_S, self.procs[i])

    def kill(self, i: int) -> None:
        process = self.procs[i]
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def stop(self, i: int) -> None:
        if self.procs[i] is not None:
            procs.stop_server(self.procs[i])

    def close(self) -> None:
        for i in range(len(self.ports)):
            with suppress(Exception):
                self.kill(i)


def _legacy_site(site: str, ports: list[int], listen: int) -> str:
    """An nginx.conf from before ``tools.fault_nginx`` (one upstream block of consecutive server lines)."""
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+[^\n]*\n", site, flags=re.M)
    options = servers[0].split(";")[0].split(maxsplit=2)[2:]
    new = "".join(f"    server 127.0.0.1:{p} {' '.join(options)};\n" for p in ports)
    site = site.replace("".join(servers), new, 1)
    site = re.sub(r"^\s*listen \[::\]:80;\n", "", site, flags=re.M)
    return re.sub(r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{listen};", site, flags=re.M)


def start_nginx(nginx: str, workdir: Path, ports: list[int], app_dir: Path) -> tuple[subprocess.Popen, str]:
    listen = free_port()
    site = (app_dir / "deploy" / "nginx.conf").read_text()
    if fault_nginx.BEGIN in site:
        site = fault_nginx.render_site(ports, listen, site=site)
    else:
        site = _legacy_site(site, ports, listen)
    conf = nginx_config.write_config(workdir, ports, listen, site=site)
    return nginx_config.start_proxy(nginx, workdir, conf, listen)


async def _class(browser, base: str, count: int, at_once: int) -> list[Student]:
    students = [Student(f"s{i:02d}", *CLASS[i % len(CLASS)]) for i in range(count)]
    gate = asyncio.Semaphore(at_once)

    async def arrive(s: Student) -> None:
        async with gate:
            await open_student(browser, base, s)

    await asyncio.gather(*(arrive(s) for s in students))
    return students


async def _warm(browser, urls: list[str]) -> None:
    """One visit per process, so its first student does not also pay for importing torch."""
    for url in urls:
        s = Student("warm", *CLASS[0])
        await open_student(browser, url, s)
        await s.context.close()


async def replicas(browser, args, workdir: Path, nginx: str) -> list[dict]:
    ports = [free_port(), free_port()]
    apps = Apps(ports, args.app_dir, workdir)
    proxy = None
    try:
        for i in range(2):
            apps.start(i)
        proxy, url = start_nginx(nginx, workdir, ports, args.app_dir)
        await _warm(browser, [f"http://127.0.0.1:{p}" for p in ports])
        students = await _class(browser, url, args.students, args.at_once)
        report = []

        await note_views(students)
        since = time.time()
        apps.kill(0)
        report.append(summary("kill", students, await check_all(students, args.click_s, args.at_once, since)))

        await note_views(students)
        apps.start(0)
        if args.warm_restarts:  # a first visit through app.py before the class moves back here
            await _warm(browser, [f"http://127.0.0.1:{ports[0]}"])
        report.append(summary("return", students, await check_all(students, args.click_s, args.at_once, None)))

        await note_views(students)
        since = time.time()
        apps.stop(1)  # SIGTERM: a restart; every student is on this process now
        restart = asyncio.get_running_loop().run_in_executor(None, apps.start, 1)
        report.append(summary("restart other", students, await check_all(students, args.click_s, args.at_once, since)))
        await restart
        for s in students:
            await s.context.close()
        nginx_log = nginx_config.upstream_report(workdir / "access.log")
        report.append({"event": "end", **nginx_log})
        return report
    finally:
        if proxy is not None and proxy.poll() is None:
            os.killpg(proxy.pid, signal.SIGQUIT)
            with suppress(subprocess.TimeoutExpired):
                proxy.wait(timeout=10)
        apps.close()


async def single(browser, args, workdir: Path) -> list[dict]:
    apps = Apps([free_port()], args.app_dir, workdir)
    try:
        apps.start(0)
        url = f"http://127.0.0.1:{apps.ports[0]}"
        await _warm(browser, [url])
        students = await _class(browser, url, args.students, args.at_once)
        await note_views(students)
        since = time.time()
        apps.kill(0)
        restart = asyncio.get_running_loop().run_in_executor(None, apps.start, 0)
        report = [summary("single restart", students, await check_all(students, args.click_s, args.at_once, since))]
        await restart
        for s in students:
            await s.context.close()
        return report
    finally:
        apps.close()


async def run(args) -> dict:
    from playwright.async_api import async_playwright

    nginx = nginx_config.find_nginx(args.nginx)
    out: dict = {"students": args.students, "app_dir": str(args.app_dir), "warm_restarts": args.warm_restarts}
    out["load"] = procs.load_average()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for scenario in args.scenarios:
                workdir = Path(tempfile.mkdtemp(prefix=f"posviz-fault-{scenario}-"))
                workdir.chmod(0o755)
                try:
                    if scenario == "replicas":
                        if nginx is None:
                            raise RuntimeError(scale_out.NGINX_MISSING)
                        out[scenario] = await replicas(browser, args, workdir, nginx)
                    else:
                        out[scenario] = await single(browser, args, workdir)
                finally:
                    if not args.keep:
                        shutil.rmtree(workdir, ignore_errors=True)
        finally:
            await browser.close()
    return out


def failures(report: dict) -> int:
    events = [e for key in ("replicas", "single") for e in report.get(key, []) if "views_lost" in e]
    return sum(e["views_lost"] + e["buttons_dead"] + e["buttons_late"] + e["downloads_failed"] for e in events)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.fault", description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40, help="browser contexts (default 40)")
    parser.add_argument("--scenarios", nargs="+", choices=["replicas", "single"], default=["replicas", "single"])
    parser.add_argument("--app-dir", type=Path, default=procs.REPO, help="the checkout to run (default: this one)")
    parser.add_argument("--click-s", type=float, default=5.0, help="how long a click may take to show its effect")
    parser.add_argument("--at-once", type=int, default=6, help="students arriving or checked at the same time")
    parser.add_argument(
        "--warm-restarts",
        action="store_true",
        help="visit a returned replica once before the class moves to it (leaves out the cold start of a process)",
    )
    parser.add_argument("--nginx", default="")
    parser.add_argument("--keep", action="store_true", help="keep the logs in /tmp/posviz-fault-*")
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    args.app_dir = args.app_dir.resolve()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers and nginx on the way out
    try:
        report = procs.run_async(run(args))
    except RuntimeError as exc:
        print(f"fault: {exc}", file=sys.stderr)
        return 2
    procs.emit_report(report, args.out)
    return 1 if failures(report) else 0


if __name__ == "__main__":
    raise SystemExit(main())
