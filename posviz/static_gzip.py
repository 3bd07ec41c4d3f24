"""The container's first visit, compressed without a proxy, and without the console's 404s.

Streamlit serves its JavaScript uncompressed and leaves compression to a proxy: a first
visit to ``/t5`` fetches 5.7 MB (2.3 MB through this module; measured in Chromium). The
container has no proxy, so ``serve.py`` runs the app as ``st.App`` (public API) with
:class:`StaticGzip` in front:

- ``/static/<file>`` is answered from ``<file>.zst`` or ``<file>.gz`` beside Streamlit's own
  file, the first the browser accepts (zstd: Chrome and Edge 123+, Firefox 126+; it keeps
  about 20 % less of the JavaScript than gzip -9). ``python -m posviz.static_gzip`` writes
  them (the Dockerfile does, at build time: no CPU spent on it while a class arrives; the
  .zst files need the ``zstd`` program); without them every request passes through unchanged.
- The page's HTML gets one line before Streamlit's script:
  ``window.__streamlit = {BACKEND_BASE_URL: location.origin + "/"}``. Without it the front
  end, opened at ``/t5``, first probes ``/t5/_stcore/health`` and ``/t5/_stcore/host-config``
  (its base-path guess), which Streamlit answers 404 on purpose, and the console shows two
  errors on every deep link. posviz is served at the root, so the root is the answer.
"""

from __future__ import annotations

import gzip
import mimetypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import streamlit

STATIC_DIR = Path(streamlit.__file__).parent / "static"
# Where the .gz files are (a tree like STATIC_DIR's): beside Streamlit's files unless set.
GZ_DIR = Path(os.environ.get("POSVIZ_STATIC_GZ", STATIC_DIR))
COMPRESSIBLE = (".js", ".css", ".svg", ".json", ".html", ".map", ".txt", ".ttf", ".woff")  # not .woff2, .png
BASE_URL_SCRIPT = b'<script>window.__streamlit = {BACKEND_BASE_URL: location.origin + "/"};</script>'
_NOT_PAGES = ("/static/", "/_stcore/", "/media/", "/component/", "/app/static/")


ENCODINGS = (("zstd", ".zst"), ("gzip", ".gz"))  # preferred first


def _accepted(scope) -> set[str]:
    for name, value in scope.get("headers", []):
        if name == b"accept-encoding":
            return {part.split(";")[0].strip() for part in value.decode("latin-1").lower().split(",")}
    return set()


class StaticGzip:
    """ASGI middleware: precompressed static files, and the base URL in the page's HTML."""

    def __init__(self, app, directory: Path = GZ_DIR) -> None:
        self.app, self.directory = app, directory.resolve()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path.startswith("/static/"):
            accepted = _accepted(scope)
            for encoding, suffix in ENCODINGS:
                packed = self._packed(path, suffix) if encoding in accepted else None
                if packed is not None:
                    await self._send_packed(scope, send, path, packed, encoding)
                    return
        elif not path.startswith(_NOT_PAGES):
            # The page is 2 KB: ask for it uncompressed, so the line can be added to it.
            headers = [(k, v) for k, v in scope.get("headers", []) if k != b"accept-encoding"]
            await self.app({**scope, "headers": headers}, receive, _with_base_url(send))
            return
        await self.app(scope, receive, send)

    def _packed(self, path: str, suffix: str) -> Path | None:
        candidate = (self.directory / (path.lstrip("/") + suffix)).resolve()
        if not candidate.is_relative_to(self.directory) or not candidate.is_file():
            return None
        return candidate

    async def _send_packed(self, scope, send, path: str, packed: Path, encoding: str) -> None:
        body = packed.read_bytes()
        kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
            kind += "; charset=utf-8"
        headers = [
            (b"content-type", kind.encode()),
            (b"content-encoding", encoding.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"vary", b"Accept-Encoding"),
            # content-hashed names, as Streamlit says for the same files
            (b"cache-control", b"public, max-age=31536000, immutable"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})


def _with_base_url(send):
    """``send`` for a page request: an HTML answer gets :data:`BASE_URL_SCRIPT` before its first script."""
    start: dict | None = None
    chunks: list[bytes] = []

    async def wrapped(message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            headers = dict(message.get("headers", []))
            html = headers.get(b"content-type", b"").startswith(b"text/html")
            if not html or headers.get(b"content-encoding"):
                start = None
                await send(message)
                return
            start = message
            return
        if message["type"] == "http.response.body" and start is not None:
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks).replace(b"<script", BASE_URL_SCRIPT + b"<script", 1)
            headers = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await send(message)

    return wrapped


def precompress(source: Path = STATIC_DIR, target: Path | None = None) -> tuple[int, int]:
    """Write ``<file>.gz`` (level 9), and ``<file>.zst`` (level 19) when the ``zstd`` program is there,
    for every compressible file under ``source``, into ``target``'s same place.

    ``target`` is ``source`` by default (beside each file). Returns the bytes in and the gzip bytes out.
    """
    zstd = shutil.which("zstd")
    target = source if target is None else target
    raw = packed = 0
    for path in sorted(source.rglob("*")):
        if not path.is_file() or not path.name.endswith(COMPRESSIBLE):
            continue
        data = path.read_bytes()
        out = gzip.compress(data, compresslevel=9, mtime=0)
        if len(out) >= len(data):
            continue
        dest = target / path.relative_to(source)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.with_name(path.name + ".gz").write_bytes(out)
        if zstd:
            zst = dest.with_name(path.name + ".zst")
            subprocess.run([zstd, "-q", "-f", "-19", str(path), "-o", str(zst)], check=True)
        raw, packed = raw + len(data), packed + len(out)
    return raw, packed


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else STATIC_DIR
    before, after = precompress(STATIC_DIR, out)
    print(f"precompressed {before / 1e6:.1f} MB of {STATIC_DIR} into {after / 1e6:.1f} MB of .gz files in {out}")
