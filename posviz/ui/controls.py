"""Widgets bound to the URL, one definition per key (``posviz.ui.params``), through Streamlit's public API.

``control(key)`` renders the widget for ``key`` with ``bind="query-params"``
and returns a valid value. On a widget's first run it reads the raw link text
itself (``st.query_params``): what Streamlit would silently drop, clamp, accept
off its step or take from a repeated key becomes a visible notice. A link value
that needs correcting is corrected in the link (``st.query_params``) before
its widget exists, and the run repeats (:func:`finish_run`): Streamlit then
seeds the widget from the corrected link, so the address bar always reopens
the view on screen. A value set later (:func:`set_on_next_run`, an odd ``dim``
typed in) goes through ``st.session_state``, which Streamlit writes to the link.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import unquote, urlparse

import streamlit as st
from streamlit.errors import StreamlitAPIException

from posviz.i18n import _
from posviz.ui.params import PARAMS, Param, clean_text, link_text, parse, quote_raw
from posviz.ui.state import BOUND as _BOUND
from posviz.ui.state import BOUNDS as _BOUNDS
from posviz.ui.state import FIXED as _FIXED
from posviz.ui.state import HEADER_SHOWN as _HEADER_SHOWN
from posviz.ui.state import NOTICES as _NOTICES
from posviz.ui.state import PAGE as _PAGE
from posviz.ui.state import PENDING as _PENDING
from posviz.ui.state import RERUN as _RERUN
from posviz.ui.state import seed
from posviz.ui.streamlit_private import ensure_app_entry, seed_link


def set_on_next_run(values: dict[str, Any]) -> None:
    """Values for controls to take on the next run, as if the user had set them (a callback's way:
    a box drawn on a figure sets the zoom). Every key must be drawn on that run."""
    st.session_state.setdefault(_PENDING, {}).update(values)


def _widget(p: Param, lo: Any, hi: Any, where: Any) -> Any:
    """The widget of ``p``, its label, help and option captions in the run's language."""
    common = dict(key=p.key, help=_(p.help) or None, bind="query-params")
    label = _(p.label)
    if p.widget == "toggle":
        return where.toggle(label, value=p.default, **common)
    if p.widget in ("radio", "select"):  # select: a long list; the link holds the option itself (no format_func)
        common["index"] = p.options.index(p.default)
        if p.widget == "select":
            return where.selectbox(label, p.options, **common)
        return where.radio(
            label, p.options, horizontal=True, captions=[_(p.option_labels.get(o, "")) for o in p.options], **common
        )
    if p.widget == "text_area":
        return where.text_area(label, value=p.default, max_chars=int(p.max) if p.max else None, height=150, **common)
    cast = _widget_type(p)
    default = min(max(p.default, lo), hi)
    step = 2 if p.even else p.step or 1  # + and - keep an even value even
    kwargs = dict(min_value=cast(lo), max_value=cast(hi), value=cast(default), step=cast(step))
    if p.widget == "slider":
        return where.slider(label, **kwargs, **common)
    if p.kind == "int":
        kwargs["format"] = "%.0f"
    return where.number_input(label, **kwargs, **common)


def _widget_type(p: Param) -> type:
    """Python type of the widget's value.

    Whole-number inputs are float number inputs shown with ``%.0f``: Streamlit
    1.67's int number input crashes on a link value such as ``1e309`` or
    ``inf`` (``int(float("inf"))``) before any page code can refuse it, while
    its float input rejects non-finite values.
    """
    if p.kind == "float" or (p.kind == "int" and p.widget == "number"):
        return float
    return {"int": int, "bool": bool, "choice": str, "text": str}[p.kind]


def widget_value(p: Param, value: Any) -> Any:
    """``value`` as the widget's session-state value (what :func:`posviz.ui.state.seed` hands it).

    A whole number stays an ``int`` even for the float number input (:func:`_widget_type`): Streamlit
    writes a value set through session state into the link as ``str(value)``, so a float would
    read ``q_len=512.0``; the input takes the int as its value. A whole float setting is an ``int``
    for the same reason.
    """
    if p.kind == "bool":
        return bool(value)
    if p.kind in ("choice", "text"):
        return str(value)
    if p.kind == "int":
        return int(value)
    value = float(value)  # a whole float as an int too (base=10000, not 10000.0)
    return int(value) if math.isfinite(value) and value.is_integer() and abs(value) < 2**53 else value


def _value(p: Param, raw: Any) -> Any:
    """The widget's value in the parameter's own type."""
    if p.kind == "text":  # typed or pasted text is cleaned as link text is
        return clean_text(raw or "", int(p.max or len(raw or "")))[0]
    return int(round(raw)) if p.kind == "int" else raw


def control(
    param: Param | str,
    *,
    min_value: float | None = None,
    max_value: float | None = None,
    where: Any = None,
) -> Any:
    """Render the URL-bound widget for ``param`` and return its validated value.

    Args:
        param: the parameter's definition (a scheme's own live in its ui package, a page's narrowing
            comes from ``params.narrowed``), or a key of the shared ``PARAMS``; its key is the URL's.
        min_value, max_value: bounds that depend on other settings (for
            example ``head < heads``); they tighten the definition's bounds.
        where: container to draw into; the sidebar by default.
    """
    ensure_app_entry()
    p = PARAMS[param] if isinstance(param, str) else param
    key = p.key
    where = st.sidebar if where is None else where
    state = st.session_state
    pending = state.setdefault(_PENDING, {})
    notices = state.setdefault(_NOTICES, {})
    fixed = state.setdefault(_FIXED, set())
    state.setdefault(_BOUND, set()).add(key)
    lo = p.min if min_value is None else min_value
    hi = p.max if max_value is None else max_value

    if key in pending:
        value = pending.pop(key)
        seed({key: widget_value(p, value)})
        _write_link(p, value)  # a widget drawn for the first time: Streamlit leaves its value out of the link
    elif key not in state:
        raw = st.query_params.get_all(key)
        if raw:
            wanted, notice = parse(p, raw, min_value=lo, max_value=hi)
            if notice:
                notices[key] = (notice, wanted)
                if state.get(_HEADER_SHOWN):  # drawn after the header: the rerun shows it
                    state[_RERUN] = True
            if (notice or raw != [link_text(p, wanted)]) and key not in fixed:
                fixed.add(key)
                if _write_link(p, wanted):
                    state[_RERUN] = True
                    return wanted  # the widget is drawn on the rerun, seeded from the corrected link
                pending[key] = wanted  # the key is bound (a page switch): through session state
    elif p.kind in ("int", "float") and not lo <= state[key] <= hi:
        seed({key: widget_value(p, min(max(state[key], lo), hi))})  # bounds moved under a kept value

    if p.kind in ("int", "float"):
        # Moved bounds make the widget new to Streamlit, which then takes its default, or a value kept
        # under its key, or the link's (maybe one the bounds just left: that raised on screen). The
        # value the reader sees stays, clamped to the new bounds, and the link is made to say it
        # (streamlit_private.seed_link).
        bounds = state.setdefault(_BOUNDS, {})
        if key in state and bounds.get(key, (lo, hi)) != (lo, hi):
            seed({key: widget_value(p, min(max(state[key], lo), hi))})
        bounds[key] = (lo, hi)
        if key in state and st.query_params.get_all(key) not in ([], [text := link_text(p, state[key])]):
            seed_link(key, text)
    value = _value(p, _widget(p, lo, hi, where))
    if key in pending:
        value = pending[key]
    if p.even and int(value) % 2:
        # Typed into the box: widgets do not enforce the step. Snap, and show the snapped
        # value in the widget (and the link) on the rerun that finish_run asks for.
        value = int(value) - 1 if int(value) - 1 >= lo else int(value) + 1
        pending[key] = value
        notices[key] = (
            _("{label} must be even (sin/cos and rotation pairs): using {value}.").format(
                label=_(p.label), value=value
            ),
            value,
        )
    if key in notices and notices[key][1] != value:
        del notices[key]  # the user has moved on from the value the notice was about
    return value


def _write_link(p: Param, value: Any) -> bool:
    """Put ``value`` in the address bar for ``p.key``; False once a widget is bound to it.

    Streamlit refuses ``st.query_params`` writes to a bound key; it writes a bound
    widget's value given through ``st.session_state`` itself. Defaults stay out of
    the link, as Streamlit keeps them.
    """
    try:
        if value != p.default:
            st.query_params[p.key] = link_text(p, value)
        elif p.key in st.query_params:
            del st.query_params[p.key]
    except StreamlitAPIException:
        return False
    return True


def start_run(page: str | None = None) -> None:
    """Called first on every run (``app.py``) with the page's URL path: no page header drawn yet.

    On a move to another page in the same session, the controls forget the last
    page's values: keys are shared, but their sensible values are not (``seq_len``
    is 8 on the skew walk-through and 16384 for RoPE's curves), and the page
    then opens as its own link would. Lecture mode, in the shared sidebar, stays.
    A link to a page that does not exist opens home (``st.navigation``'s default page) with a notice.
    """
    state = st.session_state
    state[_HEADER_SHOWN] = False
    if page is None:
        return
    last = state.get(_PAGE)
    state[_PAGE] = page
    if last is not None and last != page:
        for key in state.get(_BOUND, set()) | set(PARAMS):
            if key not in EVERY_PAGE_KEYS:
                state.pop(key, None)
        for key in [k for k in state if k.startswith(("show_", "code_"))]:  # open sections and code blocks
            state.pop(key, None)
        for scratch in (_NOTICES, _PENDING, _FIXED):
            state.pop(scratch, None)
    asked = unknown_page(st.context.url, str(st.get_option("server.baseUrlPath") or "")) if page == "" else None
    notices = state.setdefault(_NOTICES, {})
    if asked:
        notices[_UNKNOWN_PAGE] = (
            _("There is no page /{page}: this is the home page. The sidebar lists every page.").format(
                page=quote_raw(asked)
            ),
            None,
        )
    else:
        notices.pop(_UNKNOWN_PAGE, None)


EVERY_PAGE_KEYS = ("lecture", "lang")  # the shared sidebar's: a move to another page keeps them
_UNKNOWN_PAGE = "_page"  # the notices' entry for a link to a page that does not exist


def unknown_page(url: str | None, base_path: str = "") -> str | None:
    """The path a link asked for when it opened home instead, or None.

    Args:
        url: ``st.context.url`` on the home page: the browser's address without its query
            string. ``st.navigation`` runs its default page for a path it does not know and
            leaves the address as it was.
        base_path: the server's ``server.baseUrlPath`` (the app's own prefix, not a page).
    """
    if not url:
        return None
    path = unquote(urlparse(url).path).strip("/")
    base = base_path.strip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base) :].strip("/")
    return path or None


def finish_run() -> None:
    """Called last on every run (``app.py``): rerun once if a link value was corrected after the header."""
    _rerun_if_corrected()


def _rerun_if_corrected() -> None:
    """Rerun now if a control corrected its link value or holds a value for its widget's next run."""
    state = st.session_state
    if state.get(_PENDING) or state.pop(_RERUN, False):
        st.rerun()


def show_notices() -> None:
    """One warning per link value that was refused or adjusted (drawn by the page header).

    The page's settings are read by now: a corrected link reruns here, before the page draws
    (and before a rule error's ``st.stop()``, after which Streamlit refuses a rerun).
    """
    _rerun_if_corrected()
    st.session_state[_HEADER_SHOWN] = True
    for message, _value in st.session_state.get(_NOTICES, {}).values():
        st.warning(message, icon=":material/link_off:")


def lecture_mode() -> bool:
    """Whether lecture mode is on (set by the sidebar toggle in ``app.py``)."""
    return bool(st.session_state.get("lecture", False))


def _shift_step(delta: int, last: int) -> None:
    st.session_state["step"] = min(max(int(st.session_state.get("step", 1)) + delta, 1), last)


def step_through(titles: list[str] | tuple[str, ...], *, where: Any = None) -> int:
    """Previous / Next buttons and a URL-bound ``step`` slider; returns the 1-based step."""
    where = st.container() if where is None else where
    last = len(titles)
    prev_col, next_col, slider_col = where.columns([2, 2, 7], vertical_alignment="bottom")
    step = control("step", max_value=last, where=slider_col)  # first, so a linked step sets the buttons
    for col, key, label, icon, delta, disabled in (
        (prev_col, "step_prev", _("Previous"), ":material/arrow_back:", -1, step <= 1),
        (next_col, "step_next", _("Next"), ":material/arrow_forward:", 1, step >= last),
    ):
        kw = dict(icon=icon, on_click=_shift_step, args=(delta, last), disabled=disabled, key=key)
        col.button(label, **kw, width="stretch")
    return step
