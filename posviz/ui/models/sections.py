"""Draw one model's part of each section of the models page.

Each function takes a :class:`Side` and ``lecture`` and draws cached figures and tables only: the
figures and tables are functions of plain arguments in ``posviz.figures.model_*`` (the model named by
its slug and, for an uploaded or Hub config, its bytes), cached by :func:`chart` and :func:`data`. With
two models the page puts the text and tables side by side in columns (:data:`BESIDE`) and stacks the
figures at full width, one model above the other, so that two layer strips line up and no title or
legend is squeezed.
"""

from __future__ import annotations

import streamlit as st

from posviz.encodings.model_masks import has_near_view
from posviz.figures import model_facts, model_family, model_layers, model_rope
from posviz.i18n import _
from posviz.ui.cache import chart, data
from posviz.ui.exports import show_figure
from posviz.ui.models import texts
from posviz.ui.models.links import link_markdown
from posviz.ui.models.notes import lesson
from posviz.ui.models.shipped import said
from posviz.ui.models.sides import Side
from posviz.ui.models.snippets import models_snippet
from posviz.ui.params import plain
from posviz.ui.tables import static_table


def upload_control() -> bytes | None:
    """The sidebar's config.json upload: its bytes (JSON only, at most 1 MB reaches the server), or None."""
    st.sidebar.subheader(_("Your own config"))
    f = st.sidebar.file_uploader(
        _("Upload a config.json"), type=["json"], key="models_upload", max_upload_size=1, help=_(texts.UPLOAD_HELP)
    )
    return None if f is None else f.getvalue()  # sides.load refuses more than MAX_UPLOAD_BYTES before parsing


def _model(side: Side) -> dict:
    """What identifies the side's model to a figure or table: its slug and, unless shipped, its config's bytes."""
    return {"slug": side.slug, "upload": side.upload}


def overview(side: Side, lecture: bool) -> None:
    m = side.model
    st.markdown(lesson(m.mp, plain(m.name)))
    for note in side.clipped:
        st.info(note, icon=":material/straighten:")
    facts = data(model_facts.model_facts, max_entries=64, **_model(side), checkpoint=m.model_id)
    static_table(facts, label=_("{model}: position facts").format(model=m.name), hide_index=True)
    if m.mp.vision is not None:
        st.caption(_(texts.VISION))
        vision = data(model_facts.vision_table, max_entries=64, **_model(side))
        static_table(vision, label=_("{model}: M-RoPE and vision encoder").format(model=m.name), hide_index=True)
    for note in m.mp.notes:
        st.caption(plain(note))  # made in the run's language (read_model keys by it)
    if m.source.startswith("https://") and " " not in m.source:
        st.caption(_("Fields from [{model}'s config.json]({url}).").format(model=plain(m.model_id), url=m.source))
    elif m.source:  # a sentence, not an address (several sources, or transformers' class defaults)
        st.caption(_("{model}: {source}.").format(model=plain(m.model_id), source=plain(said(m.source))))
    if m.note:
        st.caption(plain(said(m.note)))
    st.markdown(link_markdown(m.mp))


def strip(side: Side, lecture: bool) -> None:
    show_figure(
        chart(model_layers.strip, max_entries=48, **_model(side), name=side.model.name, lecture=lecture),
        name=f"models_{side.tag}_strip",
        alt=_("{model}: each layer's attention kind and whether it uses RoPE.").format(model=side.model.name),
        code=models_snippet(side.slug, part="strip"),
    )


def rope_table(side: Side, lecture: bool) -> None:
    if not data(model_rope.rope_kinds, max_entries=64, **_model(side), seq_len=side.seq_len):
        st.info(_(texts.NO_ROPE), icon=":material/info:")
        return
    facts = data(model_rope.rope_facts, max_entries=64, **_model(side), seq_len=side.seq_len)
    static_table(facts, label=_("{model}: RoPE per attention kind").format(model=side.model.name), hide_index=True)


def rope_figures(side: Side, lecture: bool) -> None:
    kinds = data(model_rope.rope_kinds, max_entries=64, **_model(side), seq_len=side.seq_len)
    for i, group in enumerate(kinds):
        code = models_snippet(side.slug, part="rope", kind=group[0], seq_len=side.seq_len)
        for what, build in (("invfreq", model_rope.inv_freq), ("wavelength", model_rope.wavelength)):
            alt = (
                _("{model}, {kinds} layers: inv_freq of each rotary pair, log scale.")
                if what == "invfreq"
                else _("{model}, {kinds} layers: wavelength of each rotary pair, log scale.")
            )
            figure = chart(
                build,
                max_entries=48,
                **_model(side),
                name=side.model.name,
                seq_len=side.seq_len,
                group=i,
                lecture=lecture,
            )
            show_figure(
                figure,
                name=f"models_{side.tag}_{what}_{i}",
                alt=alt.format(model=side.model.name, kinds=_(" and ").join(group)),
                code=code,
            )


def masks(side: Side, lecture: bool) -> None:
    position = side.position
    views = [False] + ([True] if has_near_view(side.model.mp.layers, position) else [])
    for near in views:
        figure = chart(
            model_layers.masks,
            max_entries=48,
            **_model(side),
            name=side.model.name,
            position=position,
            near=near,
            lecture=lecture,
        )
        show_figure(
            figure,
            name=f"models_{side.tag}_masks{'_near' if near else ''}",
            alt=_("{model}: the keys the token at position {position:,} attends to, per layer kind.").format(
                model=side.model.name, position=position
            ),
            code=models_snippet(side.slug, part="masks", position=position),
        )


def reach(side: Side, lecture: bool) -> None:
    figure = chart(
        model_layers.reach,
        max_entries=48,
        **_model(side),
        name=side.model.name,
        position=side.position,
        layers=side.layers,
        lecture=lecture,
    )
    show_figure(
        figure,
        name=f"models_{side.tag}_reach",
        alt=_("{model}: tokens back reachable from position {position:,} after each layer.").format(
            model=side.model.name, position=side.position
        ),
        code=models_snippet(side.slug, part="reach", position=side.position, layers=side.layers),
    )


def family(side: Side, lecture: bool) -> None:
    mp = side.model.mp
    if mp.t5 is not None:
        build, part = model_family.t5_buckets, "t5"
    elif mp.alibi is not None:
        build, part = model_family.alibi_slopes, "alibi"
    else:
        st.caption(_("{model}: {rule}").format(model=plain(side.model.name), rule=_(texts.FAMILY_RULE[mp.family])))
        return
    show_figure(
        chart(build, max_entries=32, **_model(side), name=side.model.name, lecture=lecture),
        name=f"models_{side.tag}_{part}",
        alt=(_("{model}: bucket of each distance.") if part == "t5" else _("{model}: slope of each head.")).format(
            model=side.model.name
        ),
        code=models_snippet(side.slug, part=part),
    )


BESIDE = (overview, rope_table)  # in columns when two models are drawn; the others stack
