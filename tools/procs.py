"""The server under test: start ``streamlit run app.py`` on loopback, stop it, read its CPU and memory (/proc)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Coroutine, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[1]


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, also from code that already runs an event loop.

    Playwright's sync API (the browser tests' session-wide fixture) keeps a loop running in
    the main thread; ``asyncio.run`` refuses to start another there, so the coroutine then
    runs on its own loop in a worker thread.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def emit_report(report: dict[str, Any], out: str = "") -> None:
    """Print a tool's JSON report on stdout and, when ``out`` names a file, write it there too."""
    text = json.dumps(report, indent=2)
    print(text)
    if out:
        Path(out).write_text(text + "\n")


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def process_tree(pids: Iterable[int]) -> list[int]:
    """The given processes and all their descendants."""
    tree = _children()
    out, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        if pid in out:
            continue
        out.append(pid)
        todo.extend(tree.get(pid, []))
    return out


def rss_bytes(pids: Iterable[int]) -> int:
    """Resident memory of the process trees rooted at ``pids`` (VmRSS from /proc)."""
    total = 0
    for pid in process_tree(pids):
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            continue
    return total


def cpu_seconds(pids: Iterable[int]) -> float:
    """CPU time (user + system) used so far by the process trees rooted at ``pids``."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in process_tree(pids):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


class MemoryProbe:
    """Samples the RSS of the server tree in the background and keeps the peak."""

    def __init__(self, pids: list[int], interval: float = 0.25) -> None:
        self.pids, self.interval, self.peak = pids, interval, 0
        self._task: asyncio.Task | None = None

    def now(self) -> int:
        value = rss_bytes(self.pids) if self.pids else 0
        self.peak = max(self.peak, value)
        return value

    async def _run(self) -> None:
        while True:
            self.now()
            await asyncio.sleep(self.interval)

    def start(self) -> None:
        self.peak = self.now()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.now()


def free_port() -> int:
    """A free loopback port: any, or the first free one of ``POSVIZ_PORTS`` (``8640-8649``) when that is set."""
    lo, _, hi = os.environ.get("POSVIZ_PORTS", "").partition("-")
    candidates = range(int(lo), int(hi or lo) + 1) if lo else [0]
    for port in candidates:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise RuntimeError(f"no free port in POSVIZ_PORTS={os.environ['POSVIZ_PORTS']}")


def wait_healthy(url: str, timeout: float, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode} before it was healthy")
        try:
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(url.rstrip("/") + "/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{url} was not healthy within {timeout:.0f} s")


def start_server(
    port: int,
    *,
    log_path: Path | None = None,
    extra_args: Iterable[str] = (),
    cwd: Path = REPO,
    env: dict[str, str] | None = None,
    script: str = "app.py",
) -> subprocess.Popen:
    """``streamlit run app.py`` on ``127.0.0.1:port`` with the config of checkout ``cwd`` (this one by default).

    ``extra_args`` are more ``--section.option=value`` flags; ``env`` is added to this process's environment;
    ``script`` is the main script (a path relative to ``cwd``, or absolute).
    """
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115 - closed with the process
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--server.headless=true",
        *extra_args,
    ]
    return subprocess.Popen(
        cmd,
        cwd=cwd,
        stdin=subprocess.DEVNULL,  # a server reads no terminal
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


@contextlib.contextmanager
def own_server(
    timeout: float = 120.0,
    log_path: Path | None = None,
    *,
    extra_args: Iterable[str] = (),
    cwd: Path = REPO,
    env: dict[str, str] | None = None,
    script: str = "app.py",
) -> Iterator[tuple[str, subprocess.Popen]]:
    """A server of its own on a free loopback port, healthy, stopped on exit; yields (url, process)."""
    port = free_port()
    process = start_server(port, log_path=log_path, extra_args=extra_args, cwd=cwd, env=env, script=script)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, timeout, process)
        yield url, process
    finally:
        stop_server(process)


@dataclass(frozen=True)
class Variant:
    """One server configuration to measure: extra ``streamlit run`` flags, a checkout, environment."""

    label: str = "app"
    args: tuple[str, ...] = ()  # e.g. ("--runner.postScriptGC=false",)
    cwd: Path = REPO
    env: tuple[tuple[str, str], ...] = ()


def parse_variant(text: str) -> Variant:
    """``LABEL[:ITEM,ITEM...]``; an item is a ``--section.option=value`` flag, ``cwd=DIR`` or ``env:KEY=VALUE``.

    >>> parse_variant("nogc:--runner.postScriptGC=false,env:OMP_NUM_THREADS=1").args
    ('--runner.postScriptGC=false',)
    """
    label, _, rest = text.partition(":")
    args, env, cwd = [], [], REPO
    for item in filter(None, rest.split(",")):
        if item.startswith("--"):
            args.append(item)
        elif item.startswith("cwd="):
            cwd = Path(item[4:]).resolve()
        elif item.startswith("env:") and "=" in item:
            key, _, value = item[4:].partition("=")
            env.append((key, value))
        else:
            raise ValueError(f"variant item {item!r}: want --flag=value, cwd=DIR or env:KEY=VALUE")
    return Variant(label or "app", tuple(args), cwd, tuple(env))


@contextlib.contextmanager
def variant_server(variant: Variant, timeout: float = 180.0) -> Iterator[tuple[str, subprocess.Popen]]:
    with own_server(timeout, extra_args=variant.args, cwd=variant.cwd, env=dict(variant.env)) as served:
        yield served


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages: how busy the machine was (other work shares its cores)."""
    return [round(v, 2) for v in os.getloadavg()]


def settled_cpu(pids: list[int], *, quiet_polls: int = 5, poll_s: float = 0.02, limit_s: float = 3.0) -> float:
    """The server's CPU seconds once they stop growing (``quiet_polls`` equal readings in a row).

    A script run is not over at ``script_finished``: Streamlit then collects garbage
    (``runner.postScriptGC``) and the event loop finishes sending; this waits for that.
    """
    deadline = time.monotonic() + limit_s
    last, same = cpu_seconds(pids), 0
    while same < quiet_polls and time.monotonic() < deadline:
        time.sleep(poll_s)
        now = cpu_seconds(pids)
        same = same + 1 if now == last else 0
        last = now
    return last
