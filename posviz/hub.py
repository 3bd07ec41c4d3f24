"""Fetch a model's config.json from the Hugging Face Hub by its id, safely, with one cache for the server.

    hub_id = parse_model_ref("Qwen/Qwen3-8B@main")   # validated by the Hub's own rules, or HubError
    text = fetch_config(hub_id)                      # the file's bytes (cached), or HubError

Everything the models page and /vision draw for a Hub model comes from its ``config.json`` (a
vision-language model's ``vision_config`` included), so that is the one file fetched.

Rules (untrusted input: the id comes from a link):
    - the id is checked with huggingface_hub's own validator, and must name ``namespace/name``;
      a revision is a branch, tag or commit name, checked too; nothing is sent before both pass;
    - the URL is always built here, from the endpoint (``HF_ENDPOINT``, read at each request) and
      the id: a URL a user gives is never followed, and a redirect only within the endpoint's host;
    - ``HF_HUB_OFFLINE`` set: no request at all;
    - 10 s for the whole exchange, and at most :data:`MAX_BYTES` read (a config.json is a few kB);
    - answers (files and failures alike) are cached per ``(id, revision)`` for every session of the
      process, for :data:`TTL` seconds (a failure for :data:`ERROR_TTL`), at most :data:`MAX_ENTRIES`.

No streamlit here: this module is I/O only (:class:`HubError` says what went wrong, in ``kind``).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import urljoin, urlparse

from posviz.i18n import N_, _

MAX_BYTES = 256 * 1024  # as an uploaded config.json
TIMEOUT = 10.0  # seconds for the whole request
TTL = 600.0  # seconds a fetched file is reused
ERROR_TTL = 30.0  # seconds a failure is remembered (a class opening one link sends one request)
MAX_ENTRIES = 256
MAX_REDIRECTS = 3
DEFAULT_ENDPOINT = "https://huggingface.co"
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")

# kind -> what it means (HubError.kind); the page turns each into its own notice.
KINDS = ("invalid", "offline", "timeout", "gated", "missing", "revision", "no_config", "too_big", "error")


class HubError(Exception):
    """Why a Hub model could not be had: ``kind`` (one of :data:`KINDS`) and a plain sentence.

    ``message`` is a marked English text with ``{name}`` fields filled from ``values``; ``str()`` gives it
    in the run's language, so a failure cached for every session reads in each reader's own.
    """

    def __init__(self, kind: str, message: str, **values: object):
        super().__init__(message.format(**values))
        self.kind, self.message, self.values = kind, message, values

    def __str__(self) -> str:
        return _(self.message).format(**self.values)


@dataclass(frozen=True)
class HubId:
    """A validated Hub model id and an optional revision (branch, tag or commit)."""

    repo_id: str
    revision: str | None = None

    def __str__(self) -> str:
        return self.repo_id + (f"@{self.revision}" if self.revision else "")


def looks_like_hub_id(text: object) -> bool:
    """Whether ``text`` is meant as a Hub id (``namespace/name``, optionally ``@revision``), valid or not."""
    return isinstance(text, str) and "/" in text.split("@", 1)[0]


def parse_model_ref(text: str) -> HubId:
    """``namespace/name`` or ``namespace/name@revision``, checked by the Hub's rules before any request.

    Raises:
        HubError: kind "invalid", with the rule it breaks.
    """
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    text = text.strip()
    repo_id, _at, revision = text.partition("@")
    if repo_id.count("/") != 1:
        raise HubError("invalid", N_("a Hub model id has the form namespace/name (Qwen/Qwen3-8B)."))
    try:
        validate_repo_id(repo_id)
    except HFValidationError as e:
        rule = str(e).split(":", 1)[0].rstrip(".")[:160]
        raise HubError("invalid", N_("it is not a valid Hub model id ({rule})."), rule=rule) from None
    if revision and (not _REVISION.fullmatch(revision) or ".." in revision):
        raise HubError("invalid", N_("its revision must be a branch, tag or commit name (letters, digits, . _ - /)."))
    return HubId(repo_id, revision or None)


def _endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in ("1", "ON", "YES", "TRUE")


def config_url(hub_id: HubId, endpoint: str | None = None) -> str:
    """The Hub's resolve URL of the model's config.json: ``{endpoint}/{id}/resolve/{revision}/config.json``."""
    from huggingface_hub import hf_hub_url

    return hf_hub_url(hub_id.repo_id, "config.json", revision=hub_id.revision, endpoint=endpoint or _endpoint())


def _status_error(status: int, code: str, hub_id: HubId) -> HubError:
    """The Hub's answer as a HubError: its ``X-Error-Code`` header first, the status otherwise."""
    repo_id = hub_id.repo_id
    if code == "GatedRepo":
        return HubError(
            "gated", N_("{id} is gated: its files open only to accounts that accepted its terms."), id=repo_id
        )
    if code == "RevisionNotFound":
        return HubError(
            "revision", N_("{id} has no revision {revision}."), id=repo_id, revision=repr(hub_id.revision or "main")
        )
    if code == "EntryNotFound":
        return HubError("no_config", N_("{id} has no config.json (it may hold weights in another format)."), id=repo_id)
    if code == "RepoNotFound" or status == 404:
        return HubError("missing", N_("no model {id} on the Hub, or it is private."), id=repo_id)
    if status in (401, 403):
        return HubError("gated", N_("{id} is gated or private: the Hub asks for an account."), id=repo_id)
    return HubError("error", N_("the Hub answered {status} for {id}."), status=status, id=repo_id)


def _get(hub_id: HubId) -> bytes:
    """One fetch of config.json, uncached."""
    if _offline():
        raise HubError("offline", N_("this server has no Hub access (HF_HUB_OFFLINE is set)."))
    from huggingface_hub import get_session
    from huggingface_hub.utils import build_hf_headers

    endpoint = _endpoint()
    url = config_url(hub_id, endpoint)
    host = urlparse(endpoint).netloc
    deadline = time.monotonic() + TIMEOUT
    headers = build_hf_headers()
    try:
        for _hop in range(MAX_REDIRECTS + 1):
            left = max(0.1, deadline - time.monotonic())
            with get_session().stream("GET", url, headers=headers, timeout=left, follow_redirects=False) as r:
                if r.status_code in (301, 302, 303, 307, 308):
                    target = urljoin(url, r.headers.get("location", ""))
                    if urlparse(target).netloc != host:  # a file on another host: not followed
                        raise HubError(
                            "error", N_("the Hub sent {id}'s config.json elsewhere; not followed."), id=hub_id.repo_id
                        )
                    url = target
                    continue
                if r.status_code != 200:
                    raise _status_error(r.status_code, r.headers.get("x-error-code", ""), hub_id)
                size = r.headers.get("content-length", "")
                if size.isdigit() and int(size) > MAX_BYTES:
                    raise _too_big(hub_id)
                body = bytearray()
                for chunk in r.iter_bytes():
                    body += chunk
                    if len(body) > MAX_BYTES:
                        raise _too_big(hub_id)
                    if time.monotonic() > deadline:
                        raise TimeoutError
                return bytes(body)
        raise HubError("error", N_("the Hub redirected {id}'s config.json too many times."), id=hub_id.repo_id)
    except HubError:
        raise
    except Exception as e:  # noqa: BLE001  the HTTP client's own errors: no answer in time, or no connection
        if isinstance(e, TimeoutError) or "Timeout" in type(e).__name__:
            raise HubError("timeout", N_("the Hub did not answer within {seconds:g} s."), seconds=TIMEOUT) from None
        raise HubError("offline", N_("this server cannot reach the Hub.")) from None


def _too_big(hub_id: HubId) -> HubError:
    return HubError(
        "too_big", N_("{id}'s config.json is larger than {kib} KiB."), id=hub_id.repo_id, kib=MAX_BYTES // 1024
    )


class _Cache:
    """``(endpoint, id, revision)`` -> (when, bytes or HubError): LRU, bounded, thread-safe, shared by sessions."""

    def __init__(self, max_entries: int = MAX_ENTRIES):
        self.max_entries = max_entries
        self.entries: OrderedDict[tuple, tuple[float, bytes | HubError]] = OrderedDict()
        self.lock = threading.Lock()
        self.pending: dict[tuple, threading.Lock] = {}
        self.fetches = 0  # requests actually sent (tests read it)

    def get(self, key: tuple, now: float) -> bytes | HubError | None:
        with self.lock:
            hit = self.entries.get(key)
            if hit is None:
                return None
            when, value = hit
            if now - when > (ERROR_TTL if isinstance(value, HubError) else TTL):
                del self.entries[key]
                return None
            self.entries.move_to_end(key)
            return value

    def put(self, key: tuple, value: bytes | HubError, now: float) -> None:
        with self.lock:
            self.entries[key] = (now, value)
            self.entries.move_to_end(key)
            while len(self.entries) > self.max_entries:
                self.entries.popitem(last=False)

    def key_lock(self, key: tuple) -> threading.Lock:
        with self.lock:
            return self.pending.setdefault(key, threading.Lock())

    def release(self, key: tuple) -> None:
        """Forget the key's lock once its answer is cached (the locks stay as few as the requests under way)."""
        with self.lock:
            self.pending.pop(key, None)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.pending.clear()
            self.fetches = 0


CACHE = _Cache()


def fetch_config(hub_id: HubId) -> bytes:
    """The model's config.json, from the cache or the Hub (one request per key at a time).

    Raises:
        HubError: why not (cached as well, for :data:`ERROR_TTL` seconds).
    """
    key = (_endpoint(), hub_id.repo_id, hub_id.revision)
    hit = CACHE.get(key, time.monotonic())
    if hit is None:
        with CACHE.key_lock(key):  # sessions opening the same link wait for one request
            hit = CACHE.get(key, time.monotonic())
            if hit is None:
                CACHE.fetches += 1
                try:
                    hit = _get(hub_id)
                except HubError as e:
                    hit = e
                CACHE.put(key, hit, time.monotonic())
        CACHE.release(key)
    if isinstance(hit, HubError):
        raise HubError(hit.kind, hit.message, **hit.values)
    return hit
