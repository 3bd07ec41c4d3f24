"""Real models: how a checkpoint's config.json places position, layer by layer, for one model or two."""

import streamlit as st

from posviz.i18n import N_, _
from posviz.ui.chrome import anchor_of, page_header, prose
from posviz.ui.controls import lecture_mode
from posviz.ui.models import sections, texts
from posviz.ui.models.choose import read_models_settings
from posviz.ui.models.settings import follow_model
from posviz.ui.models.sides import sides_and_notices

s, link_notices = read_models_settings()
upload = sections.upload_control()
follow_model(s, upload)  # a new model opens at its own depth
lecture = lecture_mode()
page_header(
    _("Real models: position, layer by layer"),
    _(
        "What a config.json decides: attention windows and chunks, RoPE or none, "
        "and the scaling past the trained context"
    ),
)
prose(_(texts.INTRO), label=_("What this page shows"))
for notice in link_notices:  # a model in the link that is neither shipped nor a valid Hub id
    st.warning(notice, icon=":material/link_off:")
drawn, refused, hub_notices = sides_and_notices(s, upload)
for notice in hub_notices:  # a Hub model that could not be had: why, and what to do
    st.warning(notice, icon=":material/cloud_off:")
if refused:
    st.error(
        _("Your config.json was not read: {why} The page shows {model} instead.").format(
            why=refused, model=drawn[0].model.name
        ),
        icon=":material/file_present:",
    )
elif upload is not None:
    st.success(_("Showing your uploaded config.json as the first model."), icon=":material/upload_file:")

positions = {side.position for side in drawn}  # after clipping to each model (an upload may read less)
shared = f"{positions.pop():,}" if len(positions) == 1 else None
at_english = f"position {shared}" if shared else "position L (each model's own)"
at = _("position {position}").format(position=shared) if shared else _("position L (each model's own)")
SECTIONS = (
    (N_("1 · The model"), None, (sections.overview,)),
    (N_("2 · Every layer"), texts.LAYERS, (sections.strip,)),
    (N_("3 · RoPE per attention kind"), texts.ROPE, (sections.rope_table, sections.rope_figures)),
    (N_("4 · What the token at {at} attends to"), texts.MASKS, (sections.masks,)),
    (N_("5 · How far information travels"), texts.REACH, (sections.reach,)),
    (N_("6 · Its own kind of position"), texts.FAMILY, (sections.family,)),
)
for title, text, parts in SECTIONS:
    english = title.format(at=at_english)  # the anchor stays the English title's, in every language
    st.header(_(title).format(at=at), anchor=anchor_of(english), divider="gray")
    if text:
        prose(_(text))
    for draw in parts:
        if draw in sections.BESIDE and len(drawn) > 1:  # text and tables side by side
            for column, side in zip(st.columns(len(drawn), gap="large"), drawn, strict=True):
                with column:
                    st.subheader(side.model.name, divider=False)
                    draw(side, lecture)
        else:  # figures at full width, one model above the other
            for side in drawn:
                draw(side, lecture)
