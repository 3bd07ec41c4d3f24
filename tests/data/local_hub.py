"""A local HTTP server that answers like the Hugging Face Hub's resolve URLs, for tests (loopback only).

    with LocalHub() as hub:            # hub.url: http://127.0.0.1:<port>; set HF_ENDPOINT to it
        ...                            # GET /{namespace}/{name}/resolve/{revision}/config.json

Repositories it serves (:data:`REPOS`), each one way the Hub answers:
    org/llama-tiny      200: a small Llama config (revision "v2": another one, 4 layers)
    org/qwen2-vl        200: a vision-language config (Qwen2-VL's text and vision fields)
    org/gated           401, X-Error-Code GatedRepo
    org/private         401, X-Error-Code RepoNotFound (the Hub's answer for private and missing alike)
    org/missing         404, X-Error-Code RepoNotFound
    org/no-config       404, X-Error-Code EntryNotFound
    org/slow            answers after ``slow_for`` seconds (or when the server closes)
    org/huge            200 with 300 KiB (past the 256 KiB cap)
    org/not-json        200: text that is not JSON
    org/refused         200: JSON that posviz refuses (num_hidden_layers 10^9)
    org/away            302 to another host (must not be followed)
    org/moved           302 within the same host, to org/llama-tiny
Any other revision of a served repo: 404 RevisionNotFound. ``hits`` counts requests per path.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LLAMA_TINY = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 256,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 6,
    "max_position_embeddings": 8192,
    "rope_theta": 500000.0,
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 1024},
}  # fmt: skip
QWEN2_VL = {
    "architectures": ["Qwen2VLForConditionalGeneration"],
    "model_type": "qwen2_vl",
    "hidden_size": 1536,
    "num_attention_heads": 12,
    "num_key_value_heads": 2,
    "num_hidden_layers": 28,
    "max_position_embeddings": 32768,
    "rope_theta": 1000000.0,
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vision_config": {"depth": 32, "embed_dim": 1280, "num_heads": 16, "patch_size": 14, "spatial_merge_size": 2},
}
REPOS = {
    "org/llama-tiny": {"main": LLAMA_TINY, "v2": {**LLAMA_TINY, "num_hidden_layers": 4}},
    "org/moved": {"main": LLAMA_TINY},
    "org/qwen2-vl": {"main": QWEN2_VL},
}


class LocalHub:
    """The server, on 127.0.0.1 and a free port, in a daemon thread; a context manager."""

    def __init__(self, slow_for: float = 30.0):
        self.hits: Counter[str] = Counter()
        self.slow_for = slow_for
        self.release = threading.Event()  # set on close: a slow answer ends at once
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802  http.server's name
                hub.hits[self.path] = hub.hits[self.path] + 1
                hub.answer(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> LocalHub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def answer(self, h: BaseHTTPRequestHandler) -> None:
        parts = h.path.split("?")[0].strip("/").split("/")
        if len(parts) < 5 or parts[2] != "resolve":
            return self.send(h, 404, b"not a resolve URL", {"X-Error-Code": "RepoNotFound"})
        repo, revision, filename = f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:])
        name = parts[1]
        if name == "gated":
            return self.send(h, 401, b"gated", {"X-Error-Code": "GatedRepo"})
        if name == "private":
            return self.send(h, 401, b"no", {"X-Error-Code": "RepoNotFound"})
        if name == "no-config":
            return self.send(h, 404, b"no", {"X-Error-Code": "EntryNotFound"})
        if name == "slow":
            self.release.wait(self.slow_for)
            return self.send(h, 200, json.dumps(LLAMA_TINY).encode())
        if name == "huge":
            return self.send(h, 200, b"{" + b" " * (300 * 1024) + b"}")
        if name == "not-json":
            return self.send(h, 200, b"this is not JSON")
        if name == "refused":
            return self.send(h, 200, json.dumps({"model_type": "llama", "num_hidden_layers": 10**9}).encode())
        if name == "away":
            return self.send(h, 302, b"", {"Location": "http://elsewhere.invalid/config.json"})
        if name == "moved" and filename == "config.json":
            return self.send(h, 302, b"", {"Location": f"/org/llama-tiny/resolve/{revision}/config.json"})
        if repo not in REPOS:
            return self.send(h, 404, b"no", {"X-Error-Code": "RepoNotFound"})
        if revision not in REPOS[repo]:
            return self.send(h, 404, b"no", {"X-Error-Code": "RevisionNotFound"})
        if filename != "config.json":
            return self.send(h, 404, b"no", {"X-Error-Code": "EntryNotFound"})
        return self.send(h, 200, json.dumps(REPOS[repo][revision]).encode())

    @staticmethod
    def send(h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict | None = None) -> None:
        try:
            h.send_response(status)
            for key, value in (headers or {}).items():
                h.send_header(key, value)
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (the timeout test)
            pass
