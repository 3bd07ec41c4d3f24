"""One browser tab over Streamlit's own protocol: HTTP prelude, websocket, widget and message bookkeeping."""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import random
import time
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

from tools.widgets import Widget, changed_value, widget_of, with_param

XSRF_COOKIE = "_streamlit_xsrf"
MAX_MESSAGE_BYTES = 64 * 2**20  # the server allows 50 MiB per message (.streamlit/config.toml)
SKIP_KEYS = frozenset({"lecture"})  # the teacher's switch, not a student's
DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


def chart_size(element: Any) -> int | None:
    """Bytes of the figure an ``Element`` proto draws, or None when it draws none: posviz's own
    ``posviz_plot`` component (:mod:`posviz.ui.plot`) or an ``st.plotly_chart`` (the floor's)."""
    kind = element.WhichOneof("type")
    if kind == "plotly_chart":
        return len(element.plotly_chart.spec)
    if kind == "bidi_component" and element.bidi_component.component_name == "posviz_plot":
        return len(element.bidi_component.bytes)
    return None


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
        self.chart_bytes: list[int] = []  # the spec size of each chart drawn in the current full run
        self.bytes_received = 0  # websocket payload bytes from the server, all runs
        self.wire_bytes = 0  # the same as transferred (frames, compressed when the server compresses)
        self.ws: Any = None
        self.app_pages: list[str] = []  # url paths of the app's pages, as its navigation lists them
        self.cache: dict[str, tuple[Any, int]] = {}  # message hash -> (summary, run it was last used in)
        self.max_cache_age = 2
        self.runs = 0
        self.bounces = 0  # runs that stopped early for a rerun (st.rerun)
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
        size = chart_size(element)
        if size is not None:
            return ("chart", size)
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
            self.chart_bytes.append(payload)
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
            self.seen, self.charts, self.chart_bytes = set(), 0, []
        elif kind == "navigation":  # st.navigation names the page it runs: later reruns send its hash
            self.page_script_hash = msg.navigation.page_script_hash
            self.app_pages = [p.url_pathname for p in msg.navigation.app_pages if not p.external_url]
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
            if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.bounces += 1
            else:
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
                self.bytes_received += len(data)
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
        self.charts, self.chart_bytes = 0, []  # a fragment's run starts no new session: count its own charts
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

    @contextlib.asynccontextmanager
    async def connected(self) -> AsyncIterator[None]:
        """The HTTP prelude, then the websocket (its reader running) for the body of the ``with``."""
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
            self.ws = ws
            received = ws.data_received  # the transport's bytes as they arrive: compressed when the websocket is

            def count(data: bytes) -> None:
                self.wire_bytes += len(data)
                received(data)

            ws.data_received = count
            reader = asyncio.create_task(self._reader(ws))
            try:
                yield
            finally:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
                self.ws = None

    async def open(self) -> float:
        """The page's first run (what opening the link costs); seconds until it finished."""
        return await self._run(self.ws, self._rerun(page_name=self.page))

    async def clear_caches(self) -> None:
        """What the app menu's "Clear caches" sends: every ``st.cache_data`` / ``st.cache_resource`` of the
        process is emptied (the server handles it before the next message from this session)."""
        back = BackMsg()
        back.clear_cache = True
        await self.ws.send(back.SerializeToString())

    async def set_value(self, widget: Widget, value: Any) -> float:
        """Move ``widget`` to ``value`` as the frontend does (its state, the address bar); seconds of the rerun."""
        widget = self.widgets.get(widget.id, widget)  # the one the last run drew (a run replaces the objects)
        widget.value = value
        if widget.bound:
            is_default = widget.value == widget.default
            self.query_string = with_param(self.query_string, widget.key, None if is_default else widget.link_text())
        return await self._run(self.ws, self._rerun(fragment_id=widget.fragment_id))

    def widget(self, key: str) -> Widget | None:
        """The widget drawn in the last run under user key (or bound parameter) ``key``."""
        return next((w for w in self.widgets.values() if w.key == key), None)

    async def run(self, changes: int, think: float) -> SessionResult:
        """Open the page, then ``changes`` random control moves ``think`` seconds apart on average."""
        start = time.perf_counter()
        async with self.connected():
            await self.open()
            self.result.open_s = time.perf_counter() - start
            for _ in range(changes):
                if think:
                    await asyncio.sleep(think * (0.5 + self.rng.random()))
                widget = self._pick()
                if widget is None:
                    raise SessionError("no control to change on this page")
                self.result.changed.append(widget.key)
                self.result.rerun_s.append(await self.set_value(widget, changed_value(widget, self.rng)))
            self.result.finished = True
        return self.result
