"""Load test: many concurrent sessions over Streamlit's own websocket protocol.

``python -m posviz.loadtest --sessions 50 --changes 5 --page t5`` starts its own
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

Only the standard library and what Streamlit itself installs (``websockets``,
its protobuf messages) are used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.cookiejar
import json
import math
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

REPO = Path(__file__).resolve().parents[1]
MAX_SESSIONS = 500
MAX_CHANGES = 50
XSRF_COOKIE = "_streamlit_xsrf"
MAX_MESSAGE_BYTES = 64 * 2**20  # the server allows 50 MiB per message (.streamlit/config.toml)
SKIP_KEYS = frozenset({"lecture"})  # the teacher's switch, not a student's
DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


# ---------------------------------------------------------------- widgets


@dataclass
class Widget:
    """A widget as the frontend knows it: its id, key, kind and current value."""

    id: str
    key: str  # the user key: the bound query parameter, or the id's suffix
    kind: str  # number, slider, toggle, radio, text
    value: Any
    default: Any = None
    lo: float | None = None
    hi: float | None = None
    step: float = 1.0
    options: tuple[str, ...] = ()
    bound: bool = False
    disabled: bool = False
    fragment_id: str = ""
    set_value: bool = False  # the server set the value (the frontend then drops the user's)

    def state(self, proto: Any) -> None:
        """Fill one ``WidgetState`` as the frontend's WidgetStateManager does."""
        proto.id = self.id
        if self.kind == "number":
            proto.double_value = float(self.value)
        elif self.kind == "slider":
            proto.double_array_value.data[:] = [float(v) for v in self.value]
        elif self.kind == "toggle":
            proto.bool_value = bool(self.value)
        else:  # radio, text
            proto.string_value = str(self.value)

    def link_text(self) -> str:
        """The value as the frontend writes it in the address bar (JavaScript's ``String``)."""
        value = self.value[0] if self.kind == "slider" and len(self.value) == 1 else self.value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return str(int(value)) if value.is_integer() else repr(value)
        if isinstance(value, list):
            return ",".join(_js_number(v) for v in value)
        return str(value)


def _js_number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _user_key(widget_id: str) -> str:
    """Streamlit ids of keyed widgets end with ``-<key>`` after the ``$$ID-<hash>`` prefix."""
    if widget_id.startswith("$$ID-"):
        parts = widget_id.split("-", 2)
        if len(parts) == 3:
            return parts[2]
    return widget_id


def widget_of(element: Any, fragment_id: str) -> Widget | None:
    """The widget a ``new_element`` delta draws, or None for anything else."""
    kind = element.WhichOneof("type")
    if kind not in ("number_input", "slider", "checkbox", "radio", "text_area", "text_input"):
        return None
    w = getattr(element, kind)
    key = w.query_param_key if w.HasField("query_param_key") and w.query_param_key else _user_key(w.id)
    common = dict(
        id=w.id,
        key=key,
        bound=bool(w.query_param_key),
        disabled=w.disabled,
        fragment_id=fragment_id,
        set_value=w.set_value,
    )
    if kind == "number_input":
        value = w.value if w.set_value and w.HasField("value") else w.default
        return Widget(
            kind="number",
            value=value,
            default=w.default,
            lo=w.min if w.has_min else None,
            hi=w.max if w.has_max else None,
            step=w.step or 1.0,
            **common,
        )
    if kind == "slider":
        if w.options:  # select_slider: not used by posviz
            return None
        value = list(w.value) if w.set_value and len(w.value) else list(w.default)
        return Widget(kind="slider", value=value, default=list(w.default), lo=w.min, hi=w.max, step=w.step, **common)
    if kind == "checkbox":
        value = w.value if w.set_value else w.default
        return Widget(kind="toggle", value=bool(value), default=bool(w.default), **common)
    if kind == "radio":
        options = tuple(w.options)
        default = options[w.default] if w.HasField("default") and 0 <= w.default < len(options) else None
        value = w.raw_value if w.set_value and w.HasField("raw_value") else default
        return Widget(kind="radio", value=value, default=default, options=options, **common)
    value = w.value if w.set_value and w.HasField("value") else w.default
    return Widget(kind="text", value=value, default=w.default, **common)


def changed_value(w: Widget, rng: random.Random) -> Any:
    """A new value a student might pick: a few steps, a doubling or a halving, a flip, another option."""
    if w.kind == "toggle":
        return not w.value
    if w.kind == "radio":
        others = [o for o in w.options if o != w.value]
        return rng.choice(others) if others else w.value
    current = float(w.value[0] if w.kind == "slider" else w.value)
    step = w.step or 1.0
    for _ in range(8):
        if rng.random() < 0.3 and current > 0:
            new = current * 2 if rng.random() < 0.5 else current / 2
            new = round(new / step) * step
        else:
            new = current + rng.choice([1, 2, 3, 5, 8]) * rng.choice([-1, 1]) * step
        if w.lo is not None:
            new = max(new, w.lo)
        if w.hi is not None:
            new = min(new, w.hi)
        if new != current:
            break
    if w.kind == "slider":
        return [float(new)] + [float(v) for v in w.value[1:]]
    return float(new)


def with_param(query_string: str, key: str, text: str | None) -> str:
    """``query_string`` with ``key`` set to ``text`` (removed for None), as the frontend rewrites its URL."""
    pairs = [(k, v) for k, v in urllib.parse.parse_qsl(query_string, keep_blank_values=True) if k != key]
    if text is not None:
        pairs.append((key, text))
    return urllib.parse.urlencode(pairs)


# ---------------------------------------------------------------- memory


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


# ---------------------------------------------------------------- one session


class SessionError(Exception):
    """Something a student would see as a broken page: no connection, a timeout, a failed run."""


@dataclass
class SessionResult:
    index: int
    finished: bool = False
    open_s: float | None = None
    rerun_s: list[float] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    error: str | None = None
    fragment_reruns: int = 0
    changed: list[str] = field(default_factory=list)
    charts: list[int] = field(default_factory=list)  # Plotly charts of each completed full run


class Session:
    """One browser tab: HTTP requests, the websocket, the frontend's widget and message bookkeeping."""

    def __init__(
        self,
        base_url: str,
        page: str,
        query: str,
        *,
        index: int,
        seed: int,
        keys: frozenset[str] | None,
        rerun_timeout: float,
    ) -> None:
        self.base = base_url.rstrip("/")
        self.page = page.strip("/")
        self.query_string = query.lstrip("?")
        self.rng = random.Random(seed * 1_000_003 + index)
        self.keys = keys
        self.rerun_timeout = rerun_timeout
        self.result = SessionResult(index=index)
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(self.jar)
        )
        self.page_script_hash = ""
        self.widgets: dict[str, Widget] = {}
        self.seen: set[str] = set()  # widget ids drawn in the current full run
        self.charts = 0  # Plotly charts drawn in the current full run
        self.cache: dict[str, tuple[Any, int]] = {}  # message hash -> (summary, run it was last used in)
        self.max_cache_age = 2
        self.runs = 0
        self.finished: asyncio.Queue[int] = asyncio.Queue()
        self.failure: str | None = None

    # -- HTTP, as the browser does before it opens the websocket

    def _get(self, path: str) -> bytes:
        with self.opener.open(self.base + path, timeout=self.rerun_timeout) as response:
            return response.read()

    def _http_prelude(self) -> None:
        page_url = "/" + self.page + (("?" + self.query_string) if self.query_string else "")
        self._get(page_url)
        if self._get("/_stcore/health").strip() != b"ok":
            raise SessionError("health check did not answer ok")
        self._get("/_stcore/host-config")

    def _cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def _cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    # -- messages from the server

    def _summary(self, msg: ForwardMsg) -> Any:
        delta = msg.delta
        if delta.WhichOneof("type") != "new_element":
            return None
        element = delta.new_element
        if element.WhichOneof("type") == "exception":
            return ("exception", f"{element.exception.type}: {element.exception.message}"[:300])
        if element.WhichOneof("type") == "plotly_chart":
            return ("chart", None)
        widget = widget_of(element, delta.fragment_id)
        return ("widget", widget) if widget else None

    def _apply(self, summary: Any) -> None:
        if summary is None:
            return
        kind, payload = summary
        if kind == "exception":
            self.result.exceptions.append(payload)
        elif kind == "chart":
            self.charts += 1
        else:
            widget = replace(payload)
            known = self.widgets.get(widget.id)
            if known is not None and not widget.set_value and known.kind == widget.kind:
                widget.value = known.value  # the frontend keeps what the user chose unless the server sets it
            self.widgets[widget.id] = widget
            self.seen.add(widget.id)

    def _on_message(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "new_session":  # a full run starts
            self.max_cache_age = msg.new_session.config.max_cached_message_age or self.max_cache_age
            self.seen, self.charts = set(), 0
        elif kind == "navigation":  # st.navigation names the page it runs: later reruns send its hash
            self.page_script_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "delta":
            summary = self._summary(msg)
            if msg.metadata.cacheable and msg.hash:
                self.cache[msg.hash] = (summary, self.runs)
            self._apply(summary)
        elif kind == "ref_hash":
            cached = self.cache.get(msg.ref_hash)
            if cached is None:
                self.failure = f"reference to a message this client never had: {msg.ref_hash}"
                self.finished.put_nowait(-1)
                return
            self.cache[msg.ref_hash] = (cached[0], self.runs)
            self._apply(cached[0])
        elif kind == "script_finished":
            status = msg.script_finished
            if status == ForwardMsg.FINISHED_SUCCESSFULLY:
                # the frontend drops the state of widgets this run no longer drew
                self.widgets = {k: w for k, w in self.widgets.items() if k in self.seen}
                self.result.charts.append(self.charts)
            if status != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.runs += 1
                self.cache = {h: v for h, v in self.cache.items() if self.runs - v[1] <= self.max_cache_age}
            self.finished.put_nowait(status)
        elif kind == "page_not_found":
            self.failure = f"page not found: {msg.page_not_found.page_name!r}"
            self.finished.put_nowait(-1)
        elif kind == "session_event" and msg.session_event.WhichOneof("type") == "script_compilation_exception":
            self.failure = "the script failed to compile"
            self.finished.put_nowait(-1)

    async def _reader(self, ws: Any) -> None:
        try:
            async for data in ws:
                msg = ForwardMsg()
                msg.ParseFromString(data)
                self._on_message(msg)
        except Exception as exc:  # the connection broke: the waiting run reports it
            self.failure = self.failure or f"connection lost: {type(exc).__name__}: {exc}"
        else:
            self.failure = self.failure or "the server closed the connection"
        self.finished.put_nowait(-1)

    # -- messages to the server

    def _rerun(self, *, page_name: str = "", fragment_id: str = "") -> bytes:
        back = BackMsg()
        state = back.rerun_script
        state.query_string = self.query_string
        state.page_script_hash = self.page_script_hash
        state.page_name = page_name
        state.fragment_id = fragment_id
        for w in self.widgets.values():
            if w.value is not None:
                w.state(state.widget_states.widgets.add())
        state.cached_message_hashes.extend(self.cache)
        state.context_info.timezone = "UTC"
        state.context_info.locale = "en-US"
        state.context_info.url = f"{self.base}/{self.page}"
        return back.SerializeToString()

    async def _run(self, ws: Any, payload: bytes) -> float:
        while not self.finished.empty():
            self.finished.get_nowait()
        start = time.perf_counter()
        await ws.send(payload)
        while True:
            try:
                status = await asyncio.wait_for(self.finished.get(), self.rerun_timeout)
            except TimeoutError as exc:
                raise SessionError(f"no script_finished within {self.rerun_timeout:.0f} s") from exc
            if status == -1:
                raise SessionError(self.failure or "connection lost")
            if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                raise SessionError("the script failed to compile")
            if status in DONE:
                if status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                    self.result.fragment_reruns += 1
                return time.perf_counter() - start
            # FINISHED_EARLY_FOR_RERUN: the page asked for another run (st.rerun); keep waiting

    def _pick(self) -> Widget | None:
        candidates = [
            w
            for w in self.widgets.values()
            if not w.disabled
            and w.kind != "text"
            and w.key not in SKIP_KEYS
            and (self.keys is None or w.key in self.keys)
            and (self.keys is not None or w.bound)
        ]
        return self.rng.choice(sorted(candidates, key=lambda w: w.key)) if candidates else None

    async def run(self, changes: int, think: float) -> SessionResult:
        start = time.perf_counter()
        await asyncio.to_thread(self._http_prelude)
        xsrf = self._cookie(XSRF_COOKIE)
        if xsrf is None:
            raise SessionError("the server set no _streamlit_xsrf cookie")
        ws_url = "ws" + self.base[4:] + "/_stcore/stream"
        async with connect(
            ws_url,
            subprotocols=["streamlit", xsrf],  # the frontend sends its XSRF token as the second entry
            origin=self.base,
            additional_headers={"Cookie": self._cookie_header()},
            max_size=MAX_MESSAGE_BYTES,
            ping_interval=None,  # browsers answer pings but send none
            proxy=None,
            open_timeout=self.rerun_timeout,
            user_agent_header="posviz-loadtest",
        ) as ws:
            reader = asyncio.create_task(self._reader(ws))
            try:
                await self._run(ws, self._rerun(page_name=self.page))
                self.result.open_s = time.perf_counter() - start
                for _ in range(changes):
                    if think:
                        await asyncio.sleep(think * (0.5 + self.rng.random()))
                    widget = self._pick()
                    if widget is None:
                        raise SessionError("no control to change on this page")
                    widget.value = changed_value(widget, self.rng)
                    if widget.bound:
                        default = widget.default
                        is_default = widget.value == default
                        self.query_string = with_param(
                            self.query_string, widget.key, None if is_default else widget.link_text()
                        )
                    self.result.changed.append(widget.key)
                    self.result.rerun_s.append(await self._run(ws, self._rerun(fragment_id=widget.fragment_id)))
                self.result.finished = True
            finally:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
        return self.result


# ---------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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


def start_server(port: int, *, log_path: Path | None = None, extra_args: Iterable[str] = ()) -> subprocess.Popen:
    """``streamlit run app.py`` on ``127.0.0.1:port`` with the repository's config."""
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115 - closed with the process
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--server.headless=true",
        *extra_args,
    ]
    return subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


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
def own_server(timeout: float = 120.0, log_path: Path | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    process = start_server(port, log_path=log_path)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, timeout, process)
        yield url, process
    finally:
        stop_server(process)


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
    parser = argparse.ArgumentParser(prog="python -m posviz.loadtest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default="t5", help="url path of the page (t5, rope, compare, '' for home)")
    parser.add_argument("--query", default="", help="query string the page is opened with, e.g. 'q_len=64'")
    parser.add_argument("--sessions", type=int, default=50, help=f"concurrent sessions (at most {MAX_SESSIONS})")
    parser.add_argument("--changes", type=int, default=5, help="control changes per session, each a rerun")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between changes (0.5x to 1.5x)")
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds over which the sessions arrive")
    parser.add_argument("--timeout", type=float, default=600.0, help="limit for the whole run, seconds")
    parser.add_argument("--rerun-timeout", type=float, default=120.0, help="limit for one rerun, seconds")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds after the sessions close before 'after'")
    parser.add_argument("--seed", type=int, default=0, help="seed of the students' choices")
    parser.add_argument("--keys", default="", help="comma-separated controls to change (default: every bound one)")
    parser.add_argument("--url", default="", help="target a running server or proxy instead of starting one")
    parser.add_argument("--pids", default="", help="with --url: comma-separated server pids whose memory to report")
    parser.add_argument("--rounds", type=int, default=1, help="classes in a row on the same server (1 to 5)")
    parser.add_argument("--no-warmup", action="store_true", help="no warm-up session before 'before'")
    parser.add_argument("--server-log", default="", help="file for the log of the server this starts")
    parser.add_argument("--out", default="", help="also write the JSON report to this file")
    args = parser.parse_args(argv)

    options = dict(
        page=args.page,
        query=args.query,
        sessions=args.sessions,
        changes=args.changes,
        think=args.think,
        ramp=args.ramp,
        timeout=args.timeout,
        rerun_timeout=args.rerun_timeout,
        settle=args.settle,
        seed=args.seed,
        keys=[k for k in args.keys.split(",") if k] or None,
        warmup=not args.no_warmup,
        rounds=args.rounds,
    )
    try:
        if args.url:
            pids = [int(p) for p in args.pids.split(",") if p]
            report = asyncio.run(load(args.url, pids=pids, **options))
        else:
            log = Path(args.server_log) if args.server_log else None
            with own_server(log_path=log) as (url, process):
                report = asyncio.run(load(url, pids=[process.pid], **options))
    except (ValueError, RuntimeError) as exc:
        print(f"loadtest: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0 if report["finished"] == report["sessions"] * report["rounds"] and not report["errors"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
