"""posviz.static_gzip: precompressed static files and the base URL line, against a stand-in app."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import streamlit

from posviz import static_gzip
from posviz.static_gzip import BASE_URL_SCRIPT, StaticGzip, precompress
from tools.procs import run_async

PAGE = b"<!DOCTYPE html><html><head><title>Streamlit</title><script type=module src=./static/js/index.js></script>"


async def _inner(scope, receive, send):
    """Streamlit's part: the page for any path but /static/, which it answers 'raw'; records what it was asked."""
    _inner.scopes.append(scope)
    if scope["path"].startswith("/static/"):
        body, kind = b"raw", b"application/javascript"
    else:
        body, kind = PAGE, b"text/html; charset=utf-8"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]})
    await send({"type": "http.response.body", "body": body})


def _get(app, path: str, encoding: bytes = b"gzip, deflate") -> tuple[dict, bytes]:
    messages = []

    async def send(message):
        messages.append(message)

    async def receive():
        return {"type": "http.request"}

    scope = {"type": "http", "method": "GET", "path": path, "headers": [(b"accept-encoding", encoding)]}
    run_async(app(scope, receive, send))  # also after the browser tests, whose Playwright keeps a loop running
    start = messages[0]
    return {k.decode(): v.decode() for k, v in start["headers"]}, b"".join(m.get("body", b"") for m in messages[1:])


def test_static_files_come_precompressed_and_pages_carry_the_base_url(tmp_path: Path):
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "index.js.gz").write_bytes(gzip.compress(b"console.log(1)"))
    (tmp_path / "static" / "js" / "index.js.zst").write_bytes(b"zstd frame")
    _inner.scopes = []
    app = StaticGzip(_inner, directory=tmp_path)

    headers, body = _get(app, "/static/js/index.js")
    assert headers["content-encoding"] == "gzip" and "immutable" in headers["cache-control"]
    assert headers["content-type"].startswith(("application/javascript", "text/javascript"))
    assert gzip.decompress(body) == b"console.log(1)" and int(headers["content-length"]) == len(body)
    assert _get(app, "/static/js/index.js", encoding=b"identity")[1] == b"raw"  # no gzip asked: Streamlit's own
    headers, body = _get(app, "/static/js/index.js", encoding=b"gzip, deflate, br, zstd")
    assert headers["content-encoding"] == "zstd" and body == b"zstd frame"  # the smaller one, when accepted
    assert _get(app, "/static/js/other.js")[1] == b"raw"  # no .gz: Streamlit's own
    assert _get(app, "/static/../../etc/passwd")[1] == b"raw"  # never a file outside the directory

    headers, body = _get(app, "/t5")
    assert body.count(BASE_URL_SCRIPT) == 1 and body.index(BASE_URL_SCRIPT) < body.index(b"<script type=module")
    assert int(headers["content-length"]) == len(body)
    assert b"accept-encoding" not in dict(_inner.scopes[-1]["headers"])  # asked uncompressed, to be edited
    assert _get(app, "/_stcore/health")[1] == PAGE  # not a page: untouched


def test_precompress_writes_smaller_gz_files_beside_their_originals(tmp_path: Path):
    source = tmp_path / "src"
    (source / "js").mkdir(parents=True)
    (source / "js" / "a.js").write_text("let x = 1;\n" * 500)
    (source / "js" / "b.png").write_bytes(b"\x89PNG" * 100)
    raw, packed = precompress(source, tmp_path / "out")
    assert (tmp_path / "out" / "js" / "a.js.gz").is_file() and not (tmp_path / "out" / "js" / "b.png.gz").exists()
    assert gzip.decompress((tmp_path / "out" / "js" / "a.js.gz").read_bytes()) == (source / "js" / "a.js").read_bytes()
    assert packed < raw / 10
    if shutil.which("zstd"):
        zst = (tmp_path / "out" / "js" / "a.js.zst").read_bytes()
        assert zst[:4] == b"\x28\xb5\x2f\xfd" and len(zst) < packed  # a zstd frame, smaller still


def test_streamlit_still_reads_the_base_url_and_probes_the_page_path_without_it():
    """The two front-end rules this module answers, read from Streamlit's shipped JavaScript."""
    js = next((static_gzip.STATIC_DIR / "static" / "js").glob("index.*.js")).read_text(errors="replace")
    assert "window.__streamlit" in js and "get BACKEND_BASE_URL(){return" in js
    assert "_stcore/health" in js and "_stcore/host-config" in js
    assert Path(streamlit.__file__).parent / "static" == static_gzip.STATIC_DIR


def test_the_container_runs_serve_py_with_its_files_precompressed():
    root = Path(__file__).resolve().parents[1]
    dockerfile = (root / "Dockerfile").read_text()
    step = "&& python -m posviz.static_gzip"
    assert "COPY --chown=user app.py serve.py ./" in dockerfile and step in dockerfile
    assert "install -y --no-install-recommends zstd" in dockerfile  # the .zst files: 2.9 MB where gzip gives 3.3
    assert '"streamlit", "run", "serve.py"' in dockerfile
    assert dockerfile.index(step) < dockerfile.index("USER user")  # root owns site-packages
    # serve.py builds its st.App (in a process of its own: st.App pins process-wide settings)
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", "import runpy; app = runpy.run_path('serve.py')['app']; print(type(app).__name__)"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "App", done.stderr[-2000:]
