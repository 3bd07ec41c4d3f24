"""Process-level tuning of the app server: called once per process from the top of ``app.py``.

A class is served by processes, not threads (one script runs at a time per
process, and deployments run one process per core), so:

- **torch runs on one thread.** Its default of one thread per core spins under
  load: backend calls of 4-6 ms took 13-258 ms with two threads on a busy
  2-core server, against the other process or the other session's script.
- **transformers' config machinery is imported here** (``CONFIG_MAPPING``, ``modeling_rope_utils``
  and the config classes of the shipped models: ~0.7 s, ~20 MB), so no visitor of /models waits for it.
- **the import-time heap is frozen** (``gc.freeze``). A full collection walks
  every tracked object: with torch, Plotly and pandas imported that is a few
  hundred thousand objects and ~200 ms of CPU. Objects made by imports never
  become garbage, so freezing them after the imports takes them out of every
  later collection. That includes torch's lazy imports behind its "meta"
  device (``torch._dynamo``, ``sympy``: as many objects again), made here
  first. Page modules imported later add comparatively few (~15k for all pages).
  Streamlit's own full collection after every script run
  (``runner.postScriptGC``) is off in ``.streamlit/config.toml``: under a class
  the objects of many sessions and cached figures made it half of the server's
  CPU, and Python's generational collector frees the same cycles later.

Nothing here touches Streamlit's internals. ``tune_process`` is idempotent and
thread-safe: ``app.py`` runs on every rerun, in a thread per session.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_tuned = False


def tune_process() -> None:
    """Once per process: torch on one thread, the heavy modules imported and their objects frozen."""
    global _tuned
    if _tuned:
        return
    with _lock:
        if _tuned:
            return
        import numpy  # noqa: F401  the heavy imports every page needs, before the heap is frozen
        import pandas  # noqa: F401
        import plotly.graph_objects  # noqa: F401
        import torch

        from posviz.encodings.models import preload_readers  # transformers' config machinery (the /models reader)

        preload_readers()  # and the config classes of the shipped models, before the heap is frozen
        torch.set_num_threads(1)
        # The first operation on the "meta" device (posviz sizes Shaw's relations there) imports
        # torch._dynamo and sympy: ~120k more objects, which would otherwise stay in every collection.
        torch.empty(1, device="meta") + 1
        gc.collect()  # what is garbage now must not be frozen
        gc.freeze()
        _tuned = True
