"""The models page's settings: a model, a second one beside it, the position L and the layers n.

A model is a shipped config (its file name, ``posviz/model_configs/<slug>.json``, read without
parsing it) or a Hub id (``Qwen/Qwen3-8B``, optionally ``@revision``), drawn by ``choose``; a
model's context and depth are parsed once per config, on first use (:func:`limits`).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import streamlit as st

from posviz.encodings.model_fields import MAX_CONTEXT, MAX_LAYERS
from posviz.encodings.model_load import MAX_UPLOAD_BYTES, SHIPPED, read_model
from posviz.hub import HubError
from posviz.i18n import N_
from posviz.ui import state
from posviz.ui.controls import set_on_next_run
from posviz.ui.models.remote import hub_bytes
from posviz.ui.params import MAX_CURVE_LEN, Param
from posviz.ui.settings import Values, setting

NONE = "none"
DEFAULT_MODEL = "llama-3.1-8b"
UNBOUNDED_CONTEXT = MAX_CURVE_LEN  # positions offered when a config sets no limit (ALiBi's BLOOM, mT5)

MODEL = Param(
    "model",
    N_("Model"),
    "choice",
    DEFAULT_MODEL,
    "select",
    options=SHIPPED,
    help=N_(
        "A real checkpoint whose config.json ships with posviz (no download). Or give a Hub id below, or upload "
        "your own config.json."
    ),
)
VS = Param(
    "vs",
    N_("Beside it"),
    "choice",
    NONE,
    "select",
    options=(NONE, *SHIPPED),
    help=N_("A second model, drawn side by side with the first; none draws one model across the page."),
)
POSITION = Param(
    "position",
    N_("Token position L"),
    "int",
    100_000,
    "number",
    min=0,
    max=MAX_CONTEXT - 1,
    step=1,
    help=N_(
        "The token whose attention masks and reach are drawn; up to the longer model's last position. "
        "The frequencies are the ones in effect for a sequence of L + 1 tokens (dynamic NTK and LongRoPE read it)."
    ),
)
LAYERS = Param(
    "layers",
    N_("Layers passed n"),
    "int",
    MAX_LAYERS,
    "slider",
    min=1,
    max=MAX_LAYERS,
    step=1,
    help=N_("How far information can travel after the first n layers (at most the model's depth)."),
)


@dataclass(frozen=True)
class Limits:
    """How long an input and how deep a model is: the bounds of ``position`` and ``layers``."""

    context: int  # positions 0 .. context - 1
    num_layers: int


def limits_of(mp) -> Limits:  # mp: ModelPositions
    """The bounds a model sets: its longest input (or UNBOUNDED_CONTEXT) and its layers."""
    context = mp.extended_context or mp.max_position or UNBOUNDED_CONTEXT
    return Limits(context=min(context, MAX_CONTEXT), num_layers=mp.num_layers)


@functools.cache
def _shipped_limits(slug: str) -> Limits:
    return limits_of(read_model(slug))


@functools.lru_cache(maxsize=64)
def _config_limits(data: bytes) -> Limits | None:
    if len(data) > MAX_UPLOAD_BYTES:  # not read (the Hub's cap is the same)
        return None
    try:
        return limits_of(read_model("", data))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError):
        return None  # the page says why (sides.load); the side falls back


def limits(slug: str, fallback: str = NONE) -> Limits:
    """The bounds of a shipped model or a Hub id; ``fallback``'s when a Hub model cannot be read (``none``: 1, 1)."""
    if slug in SHIPPED:
        return _shipped_limits(slug)
    if "/" in slug:
        try:
            found = _config_limits(hub_bytes(slug))
        except HubError:
            found = None
        if found is not None:
            return found
        return limits(fallback) if fallback != slug else Limits(context=1, num_layers=1)
    return Limits(context=1, num_layers=1)


def _position_bounds(v: Values) -> tuple[int, int]:
    return 0, max(limits(v["model"], DEFAULT_MODEL).context, limits(v["vs"]).context) - 1


def _layer_bounds(v: Values) -> tuple[int, int]:
    return 1, max(limits(v["model"], DEFAULT_MODEL).num_layers, limits(v["vs"]).num_layers)


@dataclass(frozen=True)
class ModelsSettings:
    """Everything that determines the models page, in sidebar order (an uploaded config is not a setting)."""

    model: str = setting(MODEL, section=N_("Models"))
    vs: str = setting(VS)
    position: int = setting(POSITION, section=N_("Position and depth"), bounds=_position_bounds)
    layers: int = setting(LAYERS, bounds=_layer_bounds)


_SEEN = state.MODELS_SEEN  # (model, vs, upload digest, layers) of this session's last run of the page


def follow_model(s: ModelsSettings, upload: bytes | None) -> None:
    """A new model (or upload) opens at its own depth: ``layers`` does not keep the last model's n.

    Only when the models changed and ``layers`` did not (a link that sets both keeps its layers);
    the value is applied before the slider on the rerun that ``finish_run`` asks for.
    """
    digest = hashlib.sha256(upload).hexdigest() if upload else None
    last = st.session_state.get(_SEEN)
    st.session_state[_SEEN] = (s.model, s.vs, digest, s.layers)
    if last is None or last[:3] == (s.model, s.vs, digest) or last[3] != s.layers:
        return
    depth = _layer_bounds({"model": s.model, "vs": s.vs})[1]
    if s.layers != depth:
        st.session_state[_SEEN] = (s.model, s.vs, digest, depth)
        set_on_next_run({"layers": depth})
