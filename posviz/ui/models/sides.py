"""The one or two models the page draws ("sides"): which config, and the position and depth each can take.

A side's position and layer count are the settings clipped to that model (the settings' bounds
follow the longer of the two models; an uploaded config may be shorter still), with a
sentence when the position was clipped (the layer count needs none: the reach figure shows the layers).

A model given by its Hub id is drawn from its config.json's bytes (``remote``). When the Hub cannot
give it, or gives a file posviz cannot read, the page says why (:func:`hub_notices`) and draws the
rest: the first model falls back to the default shipped one, the second is left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from posviz.hub import HubError
from posviz.ui.models.remote import hub_bytes, is_hub, notice, unreadable
from posviz.ui.models.settings import DEFAULT_MODEL, NONE, MaskKey, ModelsSettings, ReachKey, RopeKey, limits_of
from posviz.ui.models.views import Loaded, load, reads_seq_len


@dataclass(frozen=True)
class Side:
    tag: str  # "a" or "b": the element keys of its figures
    slug: str  # a shipped model, "" for the uploaded config, or a Hub id (``upload`` then holds its bytes)
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


SERVER_WIDE = ("offline", "timeout")  # failures of the server's Hub access, not of one model: said once


def _hub_side(tag: str, ref: str, s: ModelsSettings) -> tuple[Side | None, str, str]:
    """A Hub model's side, or None, the notice that says why it cannot be drawn (markdown-safe) and its kind."""
    try:
        data = hub_bytes(ref)
    except HubError as e:
        return None, notice(ref, e), e.kind
    read = load(ref, data)
    if read.error:
        return None, unreadable(ref, read.error), "unreadable"
    return _side(tag, ref, data, s), "", ""


def sides_and_notices(s: ModelsSettings, upload: bytes | None) -> tuple[list[Side], str | None, list[str]]:
    """The models to draw, why an uploaded config was refused (markdown-safe), and the Hub's notices.

    A readable upload replaces the first model; a refused one changes nothing. A Hub model that
    cannot be drawn leaves its notice (one "no Hub access" for both sides) and the rest of the page.
    """
    error, notices = None, []
    first, kind = None, ""
    if is_hub(s.model):
        first, problem, kind = _hub_side("a", s.model, s)
        if problem:
            notices.append(f"{problem} The page shows {load(DEFAULT_MODEL).name} instead.")
    if first is None:
        first = _side("a", s.model if not is_hub(s.model) else DEFAULT_MODEL, None, s)
    if upload is not None:
        uploaded = load("", upload)
        if uploaded.error:
            error = uploaded.error
        else:
            first = _side("a", "", upload, s)
    out = [first]
    if is_hub(s.vs):
        second, problem, second_kind = _hub_side("b", s.vs, s)
        if second is not None:
            out.append(second)
        elif not (second_kind in SERVER_WIDE and second_kind == kind):
            notices.append(f"{problem} The second model is left out.")
    elif s.vs != NONE:
        out.append(_side("b", s.vs, None, s))
    return out, error, notices


def sides(s: ModelsSettings, upload: bytes | None) -> tuple[list[Side], str | None]:
    """The models to draw, and why an uploaded config was refused (markdown-safe), if it was."""
    out, error, _ = sides_and_notices(s, upload)
    return out, error
