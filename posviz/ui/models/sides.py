"""The one or two models the page draws ("sides"): which config, and the position and depth each can take.

A side's position and layer count are the settings clipped to that model (the settings' bounds
follow the longer of the two shipped models; an uploaded config may be shorter still), with a
sentence when the position was clipped (the layer count needs none: the reach figure shows the layers).
"""

from __future__ import annotations

from dataclasses import dataclass

from posviz.ui.models.settings import NONE, MaskKey, ModelsSettings, ReachKey, RopeKey, limits_of
from posviz.ui.models.views import Loaded, load, reads_seq_len


@dataclass(frozen=True)
class Side:
    tag: str  # "a" or "b": the element keys of its figures
    slug: str  # a shipped model, or "" for the uploaded config
    upload: bytes | None
    model: Loaded
    position: int
    layers: int
    clipped: tuple[str, ...] = ()

    @property
    def rope_key(self) -> RopeKey:
        reads = reads_seq_len(self.model.mp)
        return RopeKey(self.slug, self.position + 1 if reads else None)

    @property
    def mask_key(self) -> MaskKey:
        return MaskKey(self.slug, self.position)

    @property
    def reach_key(self) -> ReachKey:
        return ReachKey(self.slug, self.position, self.layers)


def _side(tag: str, slug: str, upload: bytes | None, s: ModelsSettings) -> Side:
    m = load(slug, upload)
    lim = limits_of(m.mp)
    position, layers = min(s.position, lim.context - 1), min(s.layers, lim.num_layers)
    clipped = []
    if position != s.position:
        clipped.append(f"{m.name} reads at most {lim.context:,} tokens: its views use L = {position:,}.")
    return Side(tag, slug, upload, m, position, layers, tuple(clipped))


def sides(s: ModelsSettings, upload: bytes | None) -> tuple[list[Side], str | None]:
    """The models to draw, and why an uploaded config was refused (markdown-safe), if it was.

    A readable upload replaces the first model; a refused one changes nothing.
    """
    error = None
    first = _side("a", s.model, None, s)
    if upload is not None:
        uploaded = load("", upload)
        if uploaded.error:
            error = uploaded.error
        else:
            first = _side("a", "", upload, s)
    out = [first]
    if s.vs != NONE:
        out.append(_side("b", s.vs, None, s))
    return out, error
