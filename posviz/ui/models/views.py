"""The models page's cached views: a shipped slug (or an uploaded config's bytes) and a key in, arrays out.

Every view takes ``upload`` as an explicit extra argument: the bytes of an uploaded config.json,
which replace the shipped model when ``slug`` is "", or the bytes of a Hub model's config.json when
``slug`` is its Hub id (``Qwen/Qwen3-8B``, see ``remote``). Such bytes are size-capped and parsed as
JSON (never unpickled); whatever is wrong with them becomes :attr:`Loaded.error`, not an exception.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import torch

from posviz.encodings.alibi import alibi_slope_sources, alibi_slopes
from posviz.encodings.model_hf import KINDS, NO_POSITION
from posviz.encodings.model_layers import REACHES_LIKE, Layer, kind_masks, reach_curve
from posviz.encodings.model_rope import RopeSpec
from posviz.encodings.models import CONFIG_DIR, ModelPositions, model_positions, read_config
from posviz.encodings.positions import curve_positions, display_positions, mirrored, window_positions
from posviz.encodings.t5 import t5_bucket, t5_max_exact
from posviz.ui.cache import cached_view
from posviz.ui.models.settings import (
    MAX_UPLOAD_BYTES,
    NEAR_KEYS,
    SHIPPED,
    STRIDED_KEYS,
    T5_DENSE,
    T5_SPAN,
    MaskKey,
    ReachKey,
    RopeKey,
)
from posviz.ui.params import plain

TWO_PI = 2 * math.pi
READ_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError)


def _safe(text: object, limit: int) -> str:
    """Untrusted text as a name: letters, digits and ``_.-/`` only, at most ``limit`` characters."""
    return re.sub(r"[^A-Za-z0-9_./-]", "", str(text))[:limit] if isinstance(text, str) else ""


@dataclass(frozen=True)
class Loaded:
    """One model read from its config: the facts, or why they could not be read."""

    mp: ModelPositions | None
    name: str  # for titles: the checkpoint's short name, or "your config.json (<model_type>)"
    model_id: str = ""
    source: str = ""  # where a shipped config.json comes from (a fixed URL or sentence in the package)
    note: str = ""  # what a shipped config.json adds to or leaves out of its source
    error: str | None = None  # markdown-safe: the problem, naming the field


def _read(text: bytes | str) -> ModelPositions:
    return model_positions(read_config(text))


@cached_view(max_entries=64)
def load(slug: str, upload: bytes | None = None) -> Loaded:
    """A shipped model by slug, or (``slug`` "") the uploaded config.json's bytes, or a Hub id's (``slug`` the id)."""
    if slug in SHIPPED:
        text = (CONFIG_DIR / f"{slug}.json").read_text(encoding="utf-8")
        config = read_config(text)
        model_id = str(config.get("_model_id", slug))
        source, note = str(config.get("_source", "")), str(config.get("_note", ""))
        return Loaded(_read(text), model_id.split("/")[-1], model_id, source, note)
    data = upload or b""
    if len(data) > MAX_UPLOAD_BYTES:
        return Loaded(None, "", error=f"the file has {len(data):,} bytes; a config.json is a few kB (at most 256 KiB).")
    try:
        mp = _read(data)
    except READ_ERRORS as e:  # ValueError names the field; anything else is a bug posviz reports plainly
        what = str(e) if isinstance(e, ValueError) else f"{type(e).__name__} while reading it"
        return Loaded(None, "", error=plain(what[:600]))
    config = read_config(data)
    if slug:  # a Hub id, validated by posviz.hub: the model is named after it
        repo_id, _, revision = slug.partition("@")
        at = f" at revision {revision}" if revision else ""
        return Loaded(mp, repo_id.split("/")[-1], slug, f"its config.json, fetched from the Hugging Face Hub{at}")
    named = _safe(config.get("_model_id") or config.get("_name_or_path"), 60)
    return Loaded(mp, named or f"your config.json ({_safe(mp.model_type, 40) or 'no model_type'})", named)


# ---------------------------------------------------------------- RoPE per attention kind


@dataclass(frozen=True)
class RopeGroup:
    """The attention kinds that share one RoPE, and its frequencies at the key's ``seq_len``."""

    kinds: tuple[str, ...]
    layers: int  # layers with this RoPE
    spec: RopeSpec
    inv_freq: np.ndarray  # (pairs,) float64, radians per token, in effect at seq_len
    default: np.ndarray  # (pairs,) float64, unscaled RoPE of the same base
    attention_factor: float
    never: np.ndarray  # (m,) int64: pairs whose wavelength exceeds the extended context
    other: np.ndarray | None = None  # (pairs,) LongRoPE's other set of factors
    other_name: str = ""

    @property
    def label(self) -> str:
        return " and ".join(self.kinds) + f" layers ({self.layers})"


def reads_seq_len(mp: ModelPositions) -> bool:
    """Whether any of the model's RoPE methods depends on the sequence length (dynamic NTK, LongRoPE)."""
    return any(spec.rope_type in ("dynamic", "longrope") for _, spec in mp.ropes)


@cached_view(max_entries=64)
def rope_view(k: RopeKey, upload: bytes | None = None) -> tuple[RopeGroup, ...]:
    """One :class:`RopeGroup` per distinct RoPE among the attention kinds, in the order full, sliding, chunked."""
    mp = load(k.slug, upload).mp
    if mp is None:
        return ()
    groups: list[tuple[list[str], RopeSpec]] = []
    for kind, spec in mp.ropes:
        same = next((g for g in groups if g[1] == spec), None)
        if same:
            same[0].append(kind)
        else:
            groups.append(([kind], spec))
    out = []
    for kinds, spec in groups:
        inv, factor = mp.rope(kinds[0], k.seq_len)
        inv = inv.numpy()
        other, other_name = None, ""
        if spec.rope_type == "longrope":
            big_l = spec.original_max_position
            long = k.seq_len is not None and k.seq_len > big_l
            other = mp.rope(kinds[0], big_l if long else big_l + 1)[0].numpy()
            other_name = f"short factors (≤ {big_l:,} tokens)" if long else f"long factors (> {big_l:,} tokens)"
        with np.errstate(divide="ignore"):  # proportional RoPE's still pairs (θ = 0) never turn: infinite
            never = np.flatnonzero(TWO_PI / inv > spec.extended_context)
        count = sum(1 for x in mp.layers if x.rope and x.attention in kinds)
        out.append(
            RopeGroup(
                tuple(kinds), count, spec, inv, spec.default_inv_freq().numpy(), float(factor), never, other, other_name
            )  # fmt: skip
        )
    return tuple(out)


# ---------------------------------------------------------------- masks and reach


def mask_kinds(layers: tuple[Layer, ...]) -> list[tuple[str, int | None, bool]]:
    """The distinct ``(attention, window, causal)`` of a model's layers, full first."""
    found = {(x.attention, x.window, x.causal) for x in layers}
    return sorted(found, key=lambda a: (KINDS.index(a[0]), a[1] or 0, not a[2]))


def mask_label(attention: str, window: int | None, causal: bool) -> str:
    name = attention.replace("_", " ")
    if attention == "conv":
        return f"convolution ({window:,}-token kernel)"
    like = REACHES_LIKE.get(attention)
    if like == "sliding":
        return f"{name} ({window:,}-token window)"
    if like == "chunked":
        return f"{name} ({window:,}-token chunks)"
    if attention in NO_POSITION:
        return "MLP: itself only" if like == "self" else f"{name} (a recurrence over every earlier token)"
    if attention != "full":
        return (
            f"{name} (any earlier key, picked by content)" if attention != "hybrid" else "hybrid (full + state space)"
        )
    return "full" if causal else "full, both ways"


@dataclass(frozen=True)
class MaskView:
    labels: tuple[str, ...]
    k_pos: np.ndarray  # (k,) int64, a strided sample of 0 .. position
    masks: np.ndarray  # (kinds, k) bool
    near_k: np.ndarray | None = None  # (n,) int64, a window of keys just before position (windowed models)
    near_masks: np.ndarray | None = None  # (kinds, n) bool


def _masks(kinds, position: int, k_pos: torch.Tensor) -> np.ndarray:
    return kind_masks(kinds, position, k_pos).numpy()  # (kinds, k) bool


@cached_view(max_entries=64)
def mask_view(k: MaskKey, upload: bytes | None = None) -> MaskView | None:
    """Which keys the token at ``position`` attends to in each layer kind: strided over 0 .. L, and near L."""
    mp = load(k.slug, upload).mp
    if mp is None:
        return None
    kinds = mask_kinds(mp.layers)
    labels = tuple(mask_label(*a) for a in kinds)
    k_pos = display_positions(k.position + 1, STRIDED_KEYS)
    windows = [w for _, w, _ in kinds if w]
    span = min(k.position + 1, 2 * max(windows)) if windows else 0
    if not windows or len(k_pos) == k.position + 1:
        return MaskView(labels, k_pos.numpy(), _masks(kinds, k.position, k_pos))
    near = window_positions(k.position + 1, NEAR_KEYS, start=k.position + 1 - span, size=span)
    return MaskView(
        labels, k_pos.numpy(), _masks(kinds, k.position, k_pos), near.numpy(), _masks(kinds, k.position, near)
    )


@dataclass(frozen=True)
class ReachView:
    layers: tuple[Layer, ...]  # the first n layers
    reach: np.ndarray  # (n + 1,) int64: tokens back reachable after 0 .. n layers
    windowed: np.ndarray | None  # (n + 1,) int64: the same through the sliding and chunked layers alone


@cached_view(max_entries=64)
def reach_view(k: ReachKey, upload: bytes | None = None) -> ReachView | None:
    mp = load(k.slug, upload).mp
    if mp is None:
        return None
    layers = mp.layers[: k.layers]
    windowed = None
    if any(x.attention != "full" for x in layers):
        local = tuple(kind for kind, like in REACHES_LIKE.items() if like in ("sliding", "chunked", "self"))
        windowed = np.asarray(reach_curve(layers, k.position, only=local), dtype=np.int64)
    return ReachView(layers, np.asarray(reach_curve(layers, k.position), dtype=np.int64), windowed)


# ---------------------------------------------------------------- the absolute and bias families


@dataclass(frozen=True)
class BucketView:
    r: np.ndarray  # (n,) int64 relative positions j - i: every one up to T5_DENSE, then log-spaced
    bucket: np.ndarray  # (n,) int64, the encoder's (bidirectional) bucket of each
    max_exact: int


@cached_view(max_entries=32)
def t5_view(slug: str, upload: bytes | None = None) -> BucketView | None:
    mp = load(slug, upload).mp
    if mp is None or mp.t5 is None:
        return None
    t = mp.t5
    span = T5_SPAN * t.max_distance
    far = curve_positions(span, dense=min(span, T5_DENSE), points=T5_DENSE)  # (n,) 0 .. span: every r near 0
    r = mirrored(far)  # (2n - 1,) sorted
    bucket = t5_bucket(r, bidirectional=True, num_buckets=t.num_buckets, max_distance=t.max_distance)
    return BucketView(r.numpy(), bucket.numpy(), t5_max_exact(t.num_buckets, bidirectional=True))


@dataclass(frozen=True)
class SlopesView:
    slopes: np.ndarray  # (heads,) float64
    closest: int  # the power of two the first slopes come from


@cached_view(max_entries=32)
def alibi_view(slug: str, upload: bytes | None = None) -> SlopesView | None:
    mp = load(slug, upload).mp
    if mp is None or mp.alibi is None:
        return None
    heads = mp.alibi.heads
    return SlopesView(alibi_slopes(heads).numpy(), alibi_slope_sources(heads).closest)
