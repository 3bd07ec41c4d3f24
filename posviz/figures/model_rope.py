"""A real model's RoPE per attention kind as charts and a table: frequencies, wavelengths and the facts.

Each function takes what identifies the model (``slug`` and ``upload``, as in :mod:`posviz.figures.model_layers`),
``seq_len`` (the length the frequencies are for; None for the methods that do not read it), and for the
figures ``group``: the index of one distinct RoPE among the model's attention kinds (:func:`rope_kinds`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from posviz.encodings.model_load import read_model
from posviz.encodings.model_rope_groups import RopeGroup, rope_groups, wavelengths
from posviz.figures import models as fig
from posviz.figures.chart import Chart
from posviz.figures.csv import columns_csv
from posviz.i18n import DEFAULT, _, current, use


def _groups(slug: str, upload: bytes | None, seq_len: int | None, lang: str | None = None) -> tuple[RopeGroup, ...]:
    """The model's RoPE groups, their names in ``lang`` (the run's language by default)."""
    return _groups_in(slug, upload, seq_len, lang or current())


@lru_cache(maxsize=32)  # the frequency and wavelength figures and the table of one length share the groups
def _groups_in(slug: str, upload: bytes | None, seq_len: int | None, lang: str) -> tuple[RopeGroup, ...]:
    with use(lang):
        return rope_groups(read_model(slug, upload), seq_len)


def rope_kinds(*, slug: str, upload: bytes | None = None, seq_len: int | None = None) -> tuple[tuple[str, ...], ...]:
    """The attention kinds of each distinct RoPE, in figure order (empty for a model without RoPE)."""
    return tuple(g.kinds for g in _groups(slug, upload, seq_len))


def _csv(g: RopeGroup, english: RopeGroup) -> str:
    """The group's columns; ``english`` is the same group read in English (the CSV's column names)."""
    columns = {"pair k": np.arange(len(g.inv_freq)), "inv_freq": g.inv_freq, "unscaled inv_freq": g.default}
    columns |= {"wavelength (tokens)": wavelengths(g.inv_freq), "unscaled wavelength": wavelengths(g.default)}
    if g.other is not None:
        columns[english.other_name] = g.other
    return columns_csv(columns)


def inv_freq(
    *, slug: str, upload: bytes | None = None, name: str, seq_len: int | None, group: int, lecture: bool = False
) -> Chart:
    """``inv_freq`` of every pair of one RoPE against the unscaled RoPE of the same base."""
    g = _groups(slug, upload, seq_len)[group]
    english = _groups(slug, upload, seq_len, DEFAULT)[group]
    figure = fig.inv_freq_figure(
        g.inv_freq,
        g.default,
        method=g.spec.rope_type,
        attention=_(" and ").join(g.kinds),
        model=name,
        other=g.other,
        other_name=g.other_name,
        lecture=lecture,
    )
    return Chart.of(figure, lambda: _csv(g, english))


def wavelength(
    *, slug: str, upload: bytes | None = None, name: str, seq_len: int | None, group: int, lecture: bool = False
) -> Chart:
    """The wavelength of every pair of one RoPE against the trained and the extended context."""
    g = _groups(slug, upload, seq_len)[group]
    english = _groups(slug, upload, seq_len, DEFAULT)[group]
    figure = fig.wavelength_figure(
        g.inv_freq,
        g.default,
        trained=g.spec.trained_context,
        extended=g.spec.extended_context,
        attention=_(" and ").join(g.kinds),
        model=name,
        lecture=lecture,
    )
    return Chart.of(figure, lambda: _csv(g, english))


def ranges(indices: np.ndarray) -> str:
    """``[3, 4, 5, 9]`` -> ``"3–5, 9"``: runs of consecutive pair indices."""
    out, run = [], []
    for i in (int(x) for x in indices):
        if run and i != run[-1] + 1:
            out.append(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]))
            run = []
        run.append(i)
    if run:
        out.append(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(out)


def _group_column(g: RopeGroup, seq_len: int | None) -> dict[str, str]:
    s = g.spec
    col = {
        _("layers"): str(g.layers),
        _("base (rope_theta)"): f"{s.base:,.10g}",
        _("head dim → rotary dims"): _("{head} → {rotary} ({pairs} pairs turn)").format(
            head=s.head_dim, rotary=2 * s.turning_pairs, pairs=s.turning_pairs
        ),
        _("pairs"): _("interleaved (x[2k], x[2k+1])") if s.layout == "interleaved" else _("halves (x[k], x[k + d/2])"),
        _("scaling (rope_type)"): s.rope_type,
        _("factor"): f"{s.factor:g}",
        _("trained context"): f"{s.trained_context:,}" if s.trained_context else _("not stated"),
        _("extended context"): f"{s.extended_context:,}",
    }
    for key, value in s.options:
        if isinstance(value, tuple):
            col[key] = _("{count} factors, {low:.3g} to {high:.3g}").format(
                count=len(value), low=min(value), high=max(value)
            )
        elif isinstance(value, bool):
            col[key] = "true" if value else "false"
        elif value is not None:
            col[key] = f"{value:g}" if isinstance(value, float) else str(value)
    factor = (
        _("attention factor at {tokens:,} tokens").format(tokens=seq_len)
        if seq_len
        else _("attention factor (any length)")
    )
    col[factor] = f"{g.attention_factor:.6g}"
    if s.softmax_scale_factor != 1.0:
        col[_("softmax scale × (MLA)")] = f"{s.softmax_scale_factor:.6g}"
    never = _("{never} of {pairs}").format(never=len(g.never), pairs=len(g.inv_freq))
    which = _(": k = {pairs}").format(pairs=ranges(g.never)) if len(g.never) else ""
    col[_("pairs that never complete a turn")] = never + which
    return col


def rope_facts(*, slug: str, upload: bytes | None = None, seq_len: int | None = None) -> pd.DataFrame:
    """The RoPE of each attention kind: a row per fact, a column per distinct RoPE (every value text)."""
    columns = {g.label: _group_column(g, seq_len) for g in _groups(slug, upload, seq_len)}
    facts = list(dict.fromkeys(f for col in columns.values() for f in col))
    data = {_("fact"): facts} | {label: [col.get(f, "—") for f in facts] for label, col in columns.items()}
    return pd.DataFrame(data)
