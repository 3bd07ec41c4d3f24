"""A model to draw, read once per process: a shipped config by its slug, or a config.json's bytes.

``read_model(slug, upload)`` is what every figure and table of the models page starts from: the
shipped config ``posviz/model_configs/<slug>.json`` when ``slug`` is one, else the bytes ``upload``
(an uploaded config.json, or a Hub model's, ``slug`` then its Hub id). The bytes are parsed as JSON,
never unpickled; a file posviz cannot read raises (``ValueError`` names the field).
"""

from __future__ import annotations

import functools

from posviz.encodings.models import CONFIG_DIR, ModelPositions, model_positions, read_config
from posviz.i18n import _, current

SHIPPED: tuple[str, ...] = tuple(sorted(p.stem for p in CONFIG_DIR.glob("*.json")))
MAX_UPLOAD_BYTES = 256 * 1024  # a config.json is a few kB
READ_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError)


def shipped_text(slug: str) -> str:
    """The text of a shipped config.json (``slug`` one of :data:`SHIPPED`)."""
    if slug not in SHIPPED:
        raise ValueError(f"no shipped config named {slug!r}")
    return (CONFIG_DIR / f"{slug}.json").read_text(encoding="utf-8")


def read_model(slug: str, upload: bytes | None = None) -> ModelPositions:
    """The positions of a shipped model (``slug``), or of the config.json ``upload`` (``slug`` "" or a Hub id).

    Shared by every caller in the process (a frozen value), one per language (its notes are in the
    run's language). Raises on a file posviz cannot read, including one of more than :data:`MAX_UPLOAD_BYTES`.
    """
    return _read_model(slug, upload, current())


@functools.lru_cache(maxsize=64)
def _read_model(slug: str, upload: bytes | None, lang: str) -> ModelPositions:
    if slug in SHIPPED:
        return model_positions(read_config(shipped_text(slug)))
    data = upload or b""
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(
            _("the file has {size:,} bytes; a config.json is a few kB (at most 256 KiB).").format(size=len(data))
        )
    return model_positions(read_config(data))
