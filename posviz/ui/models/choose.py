"""The models page's sidebar: which models (a shipped config or a Hub id), then the position and the depth.

The address bar holds the models: ``model=llama-3.1-8b``, ``model=Qwen/Qwen3-8B``,
``model=Qwen/Qwen3-8B@main``, ``vs=...``. Each run reads them from the link; the list of shipped
configs and the text box for a Hub id write the link when used (callbacks), so the link always
reopens the view. A link value that is neither a shipped config nor a valid Hub id (checked by
the Hub's own rules, before any request) is replaced in the link by the default, with a notice.
A value handed to the list through ``st.session_state`` since the last run (a lecture deck's
slide), or kept in it while the link names no model (a page switch that leaves the key out),
wins over the link and goes into it, as it does for Streamlit's URL-bound widgets.
The position and the depth are ordinary URL-bound controls (``posviz.ui.controls``).
"""

from __future__ import annotations

from dataclasses import fields

import streamlit as st

from posviz.hub import HubError, parse_model_ref
from posviz.i18n import N_, _
from posviz.ui import state
from posviz.ui.controls import control
from posviz.ui.models.remote import is_hub
from posviz.ui.models.settings import MODEL, VS, ModelsSettings
from posviz.ui.params import Param, parse, plain, quote_raw

MODEL_SIDES = (MODEL, VS)
HUB_LABELS = {"model": N_("…or a model on the Hub"), "vs": N_("…or one on the Hub beside it")}
HUB_HELP = N_(
    "A Hugging Face Hub model id, namespace/name (Qwen/Qwen3-8B), optionally @revision (a branch, tag or commit). "
    "The server fetches its config.json and reads it as an upload; the address bar then opens it for anyone."
)
_NOTICES = state.MODELS_NOTICES  # key -> (notice, the model it is about): shown while that model is drawn
_SHOWN = state.MODELS_SHOWN  # + key: the value this page last put in the list (a different one came from outside)


def _handed(p: Param, linked: bool) -> str | None:
    """The list's session-state value, if valid, when it was set since this page last set it (a deck's slide)
    or the link names no model (``linked`` False)."""
    value = st.session_state.get(p.key)
    if not isinstance(value, str) or (linked and value == st.session_state.get(_SHOWN + p.key)):
        return None
    if value in p.options:
        return value
    try:
        return str(parse_model_ref(value)) if is_hub(value) else None
    except HubError:
        return None


Recipe = tuple[str, tuple[str, ...]]  # how to say a notice again: ("link" | "typed" | "parse", the text(s) read)


def _notice(p: Param, recipe: Recipe) -> str:
    """The notice ``recipe`` stands for, in the run's language (a notice is kept through reruns as its recipe,
    so a reader who switches language reads it in the new one)."""
    kind, texts = recipe
    if kind == "parse":
        return parse(p, list(texts))[1] or ""
    text = texts[-1]
    try:
        parse_model_ref(text)
        why = ""
    except HubError as e:
        why = plain(str(e))
    if kind == "typed":
        return _("{value} was not opened: {why}").format(value=quote_raw(text), why=why)
    return _(
        "{key}={value} in the link is not a shipped config or a Hub model id: {why} Using {default} instead."
    ).format(key=p.key, value=quote_raw(text), why=why, default=p.default)


def _from_link(p: Param) -> tuple[str, Recipe | None, bool]:
    """``(value, notice, rewrite)``: the link's value for ``p.key``, why it was not taken as is (a recipe for
    :func:`_notice`), whether to fix it."""
    raw = st.query_params.get_all(p.key)
    handed = _handed(p, bool(raw))
    if handed is not None:
        return handed, None, raw != [handed]
    if not raw:
        return p.default, None, False
    text = raw[-1].strip()
    if is_hub(text):
        try:
            ref = str(parse_model_ref(text))
        except HubError:
            return p.default, ("link", (text,)), True
        return ref, None, raw != [ref]
    value, notice = parse(p, raw)
    return value, ("parse", tuple(raw)) if notice is not None else None, notice is not None or raw != [value]


def _write(key: str, value: str, default: str) -> None:
    if value == default:
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = value


def _picked(p: Param) -> None:
    _write(p.key, st.session_state[p.key], p.default)


def _typed(p: Param, box: str) -> None:
    text = (st.session_state.get(box) or "").strip()
    if not text:
        return
    notices = st.session_state.setdefault(_NOTICES, {})
    try:
        ref = str(parse_model_ref(text))
    except HubError:
        notices[p.key] = (("typed", (text,)), st.session_state.get(p.key))
        return
    notices.pop(p.key, None)
    _write(p.key, ref, p.default)
    st.session_state[box] = ""  # the list above now shows it; the box is free for the next one


def _model_control(p: Param, where) -> tuple[str, str | None]:
    """The list of shipped configs (the Hub model, when one is open, listed too) and the Hub id box beneath."""
    value, notice, rewrite = _from_link(p)
    if rewrite:
        _write(p.key, value, p.default)
    notices = st.session_state.setdefault(_NOTICES, {})
    if notice:
        notices[p.key] = (notice, value)  # kept through the reruns a corrected link causes
    elif p.key in notices and notices[p.key][1] != value:
        del notices[p.key]  # the user has moved on from the model the notice was about
    notice = _notice(p, notices[p.key][0]) if p.key in notices else None
    options = list(p.options) + ([value] if value not in p.options else [])
    st.session_state[p.key] = st.session_state[_SHOWN + p.key] = value  # the list shows the link's model
    where.selectbox(_(p.label), options, key=p.key, help=_(p.help), on_change=_picked, args=(p,))
    box = f"{state.MODELS_HUB_BOX}{p.key}"
    where.text_input(
        _(HUB_LABELS[p.key]), key=box, placeholder="namespace/name", help=_(HUB_HELP), on_change=_typed, args=(p, box)
    )
    return value, notice


def read_models_settings(where=None) -> tuple[ModelsSettings, list[str]]:
    """Draw the sidebar's controls (models first) and return the settings and the link notices (markdown-safe)."""
    where = st.sidebar if where is None else where
    values: dict = {}
    notices = []
    for f in fields(ModelsSettings):
        meta = f.metadata
        p: Param = meta["param"]
        if meta["section"]:
            where.subheader(_(meta["section"]))
        if p in MODEL_SIDES:
            values[f.name], notice = _model_control(p, where)
            notices += [notice] if notice else []
            continue
        lo, hi = meta["bounds"](values) if callable(meta["bounds"]) else (None, None)
        values[f.name] = control(p, min_value=lo, max_value=hi, where=where)
    return ModelsSettings(**values), notices
