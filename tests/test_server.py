"""Process tuning (posviz.server): torch on one thread, the import-time heap frozen, once per process."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import gc, json
import torch
before = {"threads": torch.get_num_threads(), "frozen": gc.get_freeze_count()}
from posviz.server import tune_process
tune_process()
once = {"threads": torch.get_num_threads(), "frozen": gc.get_freeze_count()}
tracked = len(gc.get_objects())
torch.empty(2, device="meta") * 2  # what the Shaw page's memory view does: torch's lazy imports are done
meta_added = len(gc.get_objects()) - tracked
junk = [[i] for i in range(10000)]  # new objects: a second call must not freeze them
tune_process()
print(json.dumps({"before": before, "once": once, "twice": gc.get_freeze_count(), "meta_added": meta_added}))
"""


def test_tune_process_sets_one_thread_and_freezes_the_heap_once() -> None:
    # A fresh interpreter, so that this process's torch threads and heap stay as they are.
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["before"]["frozen"] == 0
    assert out["once"]["threads"] == 1
    # torch, Plotly, pandas and numpy make a few hundred thousand tracked objects, all frozen
    assert out["once"]["frozen"] > 100_000, out
    assert out["twice"] == out["once"]["frozen"], "a second call froze again"
    # without the warm-up, the first meta-device operation imports ~120k objects that stay unfrozen
    assert out["meta_added"] < 5_000, out


def test_app_calls_tune_process_first() -> None:
    body = ast.parse((ROOT / "app.py").read_text()).body
    statements = [  # what runs, in order: no docstring, no import
        ast.unparse(node)
        for node in body
        if not isinstance(node, ast.Import | ast.ImportFrom)
        and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    ]
    assert statements and statements[0] == "tune_process()", statements[:2]


def test_no_full_collection_after_each_run() -> None:
    # The app's config turns Streamlit's gc.collect(2) after every script run off (measured under a class,
    # tools/BASELINE.md); Streamlit must still know the option, or the setting silently does nothing.
    import tomllib

    from streamlit import config

    assert tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["runner"]["postScriptGC"] is False
    assert isinstance(config.get_option("runner.postScriptGC"), bool)  # raises for an unknown option


def test_websocket_frames_are_compressed() -> None:
    # The app's config turns it on; Streamlit still knows the option (it hands it to uvicorn).
    import tomllib

    from streamlit import config

    assert tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["enableWebsocketCompression"]
    assert isinstance(config.get_option("server.enableWebsocketCompression"), bool)  # raises for an unknown option
