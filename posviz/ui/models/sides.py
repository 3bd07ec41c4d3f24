"""The one or two models the page draws ("sides"): which config, and the position and depth each can take.

A side's position and layer count are the settings clipped to that model (the settings' bounds
follow the longer of the two models; an uploaded config may be shorter still), with a
sentence when the position was clipped (the layer count needs none: the reach figure shows the layers).

A model is read once per process (``read_model``); :func:`load` adds its name and source, or says
why it cannot be read. A model given by its Hub id is drawn from its config.json's bytes (``remote``).
When the Hub cannot give it, or gives a file posviz cannot read, the page says why (:func:`hub_notices`) and draws the
rest: the first model falls back to the default shipped one, the second is left out.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from posviz.encodings.model_load import MAX_UPLOAD_BYTES, READ_ERRORS, SHIPPED, read_model, shipped_text
from posviz.encodings.model_rope_groups import reads_seq_len
from posviz.encodings.models import ModelPositions, read_config
from posviz.hub import HubError
from posviz.i18n import _, current
from posviz.ui.models.remote import hub_bytes, is_hub, notice, unreadable
from posviz.ui.models.settings import DEFAULT_MODEL, NONE, ModelsSettings, limits_of
from posviz.ui.params import plain


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


def load(slug: str, upload: bytes | None = None) -> Loaded:
    """A shipped model by slug, or (``slug`` "") the uploaded config.json's bytes, or a Hub id's (``slug`` the id).

    The bytes are size-capped and parsed as JSON (never unpickled); whatever is wrong with them becomes
    :attr:`Loaded.error`, not an exception. The model itself is read once per process and language
    (``read_model``); its texts are in the run's language.
    """
    return _load(slug, upload, current())


@functools.lru_cache(maxsize=64)  # process-wide: a Loaded is frozen, shared by every session of one language
def _load(slug: str, upload: bytes | None, lang: str) -> Loaded:
    if slug in SHIPPED:
        config = read_config(shipped_text(slug))
        model_id = str(config.get("_model_id", slug))
        source, note = str(config.get("_source", "")), str(config.get("_note", ""))
        return Loaded(read_model(slug), model_id.split("/")[-1], model_id, source, note)
    data = upload or b""
    if len(data) > MAX_UPLOAD_BYTES:
        said = _("the file has {size:,} bytes; a config.json is a few kB (at most 256 KiB).").format(size=len(data))
        return Loaded(None, "", error=said)
    try:
        mp = read_model(slug, data)
    except READ_ERRORS as e:  # ValueError names the field; anything else is a bug posviz reports plainly
        what = str(e) if isinstance(e, ValueError) else _("{error} while reading it").format(error=type(e).__name__)
        return Loaded(None, "", error=plain(what[:600]))
    config = read_config(data)
    if slug:  # a Hub id, validated by posviz.hub: the model is named after it
        repo_id, _at, revision = slug.partition("@")
        source = (
            _("its config.json, fetched from the Hugging Face Hub at revision {revision}").format(revision=revision)
            if revision
            else _("its config.json, fetched from the Hugging Face Hub")
        )
        return Loaded(mp, repo_id.split("/")[-1], slug, source)
    named = _safe(config.get("_model_id") or config.get("_name_or_path"), 60)
    mine = _("your config.json ({model_type})").format(model_type=_safe(mp.model_type, 40) or _("no model_type"))
    return Loaded(mp, named or mine, named)


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
    def seq_len(self) -> int | None:
        """The length the RoPE figures are for: L + 1 for the methods that read it (dynamic NTK, LongRoPE)."""
        return self.position + 1 if reads_seq_len(self.model.mp) else None


def _side(tag: str, slug: str, upload: bytes | None, s: ModelsSettings) -> Side:
    m = load(slug, upload)
    lim = limits_of(m.mp)
    position, layers = min(s.position, lim.context - 1), min(s.layers, lim.num_layers)
    clipped = []
    if position != s.position:
        said = _("{model} reads at most {context:,} tokens: its views use L = {position:,}.")
        clipped.append(said.format(model=m.name, context=lim.context, position=position))
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
            notices.append(
                _("{problem} The page shows {model} instead.").format(problem=problem, model=load(DEFAULT_MODEL).name)
            )
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
            notices.append(_("{problem} The second model is left out.").format(problem=problem))
    elif s.vs != NONE:
        out.append(_side("b", s.vs, None, s))
    return out, error, notices


def sides(s: ModelsSettings, upload: bytes | None) -> tuple[list[Side], str | None]:
    """The models to draw, and why an uploaded config was refused (markdown-safe), if it was."""
    out, error, _notices = sides_and_notices(s, upload)
    return out, error
