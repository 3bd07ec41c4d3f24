"""Draw one model's part of each section of the models page.

Each function takes a :class:`Side` and ``lecture`` and draws cached figures and tables only: the
numbers come from the views, the figures from charts. With two models the page puts the text and
tables side by side in columns (:data:`BESIDE`) and stacks the figures at full width, one model
above the other, so that two layer strips line up and no title or legend is squeezed.
"""

from __future__ import annotations

import streamlit as st

from posviz.ui.exports import show_figure
from posviz.ui.models import charts, texts
from posviz.ui.models.links import link_markdown
from posviz.ui.models.notes import lesson
from posviz.ui.models.sides import Side
from posviz.ui.models.snippets import models_snippet
from posviz.ui.models.tables import model_facts, rope_facts, vision_table
from posviz.ui.models.views import mask_view, rope_view
from posviz.ui.params import plain


def upload_control() -> bytes | None:
    """The sidebar's config.json upload: its bytes (JSON only, at most 1 MB reaches the server), or None."""
    st.sidebar.subheader("Your own config")
    f = st.sidebar.file_uploader(
        "Upload a config.json", type=["json"], key="models_upload", max_upload_size=1, help=texts.UPLOAD_HELP
    )
    return None if f is None else f.getvalue()  # views.load refuses more than MAX_UPLOAD_BYTES before parsing


def overview(side: Side, lecture: bool) -> None:
    m = side.model
    st.markdown(lesson(m.mp, plain(m.name)))
    for note in side.clipped:
        st.info(note, icon=":material/straighten:")
    st.table(model_facts(side.slug, side.upload), hide_index=True)
    if m.mp.vision is not None:
        st.caption(texts.VISION)
        st.table(vision_table(side.slug, side.upload), hide_index=True)
    for note in m.mp.notes:
        st.caption(plain(note))
    if m.source.startswith("https://") and " " not in m.source:
        st.caption(f"Fields from [{plain(m.model_id)}'s config.json]({m.source}).")
    elif m.source:  # a sentence, not an address (several sources, or transformers' class defaults)
        st.caption(f"{plain(m.model_id)}: {plain(m.source)}.")
    if m.note:
        st.caption(plain(m.note))
    st.markdown(link_markdown(m.mp))


def strip(side: Side, lecture: bool) -> None:
    show_figure(
        charts.strip(side.slug, lecture, side.upload),
        name=f"models_{side.tag}_strip",
        alt=f"{side.model.name}: each layer's attention kind and whether it uses RoPE.",
        code=models_snippet(side.slug, part="strip"),
    )


def rope_table(side: Side, lecture: bool) -> None:
    k = side.rope_key
    if not rope_view(k, side.upload):
        st.info(texts.NO_ROPE, icon=":material/info:")
        return
    st.table(rope_facts(k, side.upload), hide_index=True)


def rope_figures(side: Side, lecture: bool) -> None:
    k = side.rope_key
    for i, g in enumerate(rope_view(k, side.upload)):
        code = models_snippet(side.slug, part="rope", kind=g.kinds[0], seq_len=k.seq_len)
        for what, build in (("invfreq", charts.inv_freq), ("wavelength", charts.wavelength)):
            show_figure(
                build(k, i, lecture, side.upload),
                name=f"models_{side.tag}_{what}_{i}",
                alt=f"{side.model.name}, {' and '.join(g.kinds)} layers: {what} of each rotary pair, log scale.",
                code=code,
            )


def masks(side: Side, lecture: bool) -> None:
    k = side.mask_key
    v = mask_view(k, side.upload)
    views = [False] + ([True] if v.near_k is not None else [])
    for near in views:
        show_figure(
            charts.masks(k, near, lecture, side.upload),
            name=f"models_{side.tag}_masks{'_near' if near else ''}",
            alt=f"{side.model.name}: the keys the token at position {k.position:,} attends to, per layer kind.",
            code=models_snippet(side.slug, part="masks", position=k.position),
        )


def reach(side: Side, lecture: bool) -> None:
    k = side.reach_key
    show_figure(
        charts.reach(k, lecture, side.upload),
        name=f"models_{side.tag}_reach",
        alt=f"{side.model.name}: tokens back reachable from position {k.position:,} after each layer.",
        code=models_snippet(side.slug, part="reach", position=k.position, layers=k.layers),
    )


def family(side: Side, lecture: bool) -> None:
    mp = side.model.mp
    if mp.t5 is not None:
        fig, part = charts.t5_buckets(side.slug, lecture, side.upload), "t5"
    elif mp.alibi is not None:
        fig, part = charts.alibi_slopes(side.slug, lecture, side.upload), "alibi"
    else:
        st.caption(f"{plain(side.model.name)}: {texts.FAMILY_RULE[mp.family]}")
        return
    show_figure(
        fig,
        name=f"models_{side.tag}_{part}",
        alt=f"{side.model.name}: " + ("bucket of each distance." if part == "t5" else "slope of each head."),
        code=models_snippet(side.slug, part=part),
    )


BESIDE = (overview, rope_table)  # in columns when two models are drawn; the others stack
