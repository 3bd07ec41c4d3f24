"""The compare page's figures: every compared scheme on one toy sequence, on shared scales.

``term_profile``, ``term_grid``, ``attention_grid`` and ``attention_row`` are what the page (and a
notebook) calls: functions of the toy sequence's settings returning a :class:`Chart`. They share one
run of every scheme (:func:`comparison`); the ``*_figure`` builders below them turn arrays into plain specs,
encoded once by :meth:`Chart.of` (no Plotly figure is built on the way).
The schemes, their names and colours come from the registry, in its order: the selection ``schemes``
(a key of :data:`posviz.schemes.COMPARE_SETS`; ``"core"`` by default) names which.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from posviz.encodings.compare import compare_schemes
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, compact, finish, heatmap_grid, look, subtitle_lines
from posviz.figures.csv import columns_csv, panels_csv
from posviz.i18n import N_, _, ngettext
from posviz.schemes import compared_in

RUNS = 16  # comparisons kept: each is a few hundred KB at the largest sequence


@dataclass(frozen=True)
class Run:
    """Every compared scheme on the toy sequence, as read-only numpy arrays, in the registry's order."""

    names: tuple[str, ...]  # the registry's short names
    colours: tuple[str, ...]
    positions: np.ndarray  # (L,)
    terms: np.ndarray  # (schemes, L, L) float32, logits - content; NaN where masked
    weights: np.ndarray  # (schemes, L, L) float32
    nbytes: tuple[int, ...]  # bytes of the position tensors each scheme built
    always_causal: tuple[str, ...] = ()  # the names of those that see only past keys whatever the setting
    own_weights: tuple[str, ...] = ()  # the names of those whose weights are not a softmax (rows sum to <= 1)


def _frozen(a) -> np.ndarray:
    out = a.numpy()
    out.flags.writeable = False  # shared by every figure and table of the view
    return out


@functools.lru_cache(maxsize=RUNS)
def comparison(seq_len: int, dim: int, base: float, causal: bool, seed: int, schemes: str = "core") -> Run:
    """One run of the selection ``schemes``, shared by the page's four figures and its table (bounded cache)."""
    chosen = compared_in(schemes)
    keys = tuple(c.key for c in chosen)
    run = compare_schemes(keys, seq_len=seq_len, dim=dim, base=base, causal=causal, seed=seed)
    return Run(
        names=tuple(c.short for c in chosen),
        colours=tuple(c.compared.colour for c in chosen if c.compared),
        positions=_frozen(run.positions),
        terms=_frozen(run.terms),
        weights=_frozen(run.weights),
        nbytes=tuple(run.nbytes),
        always_causal=tuple(c.short for c in chosen if c.compared and c.compared.always_causal),
        own_weights=tuple(c.short for c in chosen if c.compared and not c.compared.softmax),
    )


def term_profile(
    *, seq_len: int, dim: int, base: float, causal: bool, seed: int, schemes: str = "core", lecture: bool = False
) -> Chart:
    """The last query's position term against distance, one line per scheme; CSV: that row, a column each."""
    r = comparison(seq_len, dim, base, causal, seed, schemes)
    figure = term_profile_figure(
        r.terms,
        names=shown(r.names),
        positions=r.positions,
        causal=causal,
        colours=r.colours,
        lecture=lecture,
        always_causal=shown(r.always_causal),
        schemes=schemes,
    )
    return Chart.of(figure, lambda: view_csv("term_profile", (seq_len, dim, base, causal, seed, schemes)))


def term_grid(
    *, seq_len: int, dim: int, base: float, causal: bool, seed: int, schemes: str = "core", lecture: bool = False
) -> Chart:
    """Every scheme's ``(L, L)`` position term; CSV: one row per (query, key), a column per scheme."""
    r = comparison(seq_len, dim, base, causal, seed, schemes)
    figure = term_grid_figure(
        r.terms,
        names=shown(r.names),
        positions=r.positions,
        causal=causal,
        lecture=lecture,
        always_causal=shown(r.always_causal),
    )
    return Chart.of(figure, lambda: view_csv("term_grid", (seq_len, dim, base, causal, seed, schemes)))


def attention_grid(
    *, seq_len: int, dim: int, base: float, causal: bool, seed: int, schemes: str = "core", lecture: bool = False
) -> Chart:
    """Every scheme's attention map; CSV: one row per (query, key), a column per scheme."""
    r = comparison(seq_len, dim, base, causal, seed, schemes)
    figure = attention_grid_figure(
        r.weights,
        names=shown(r.names),
        positions=r.positions,
        causal=causal,
        lecture=lecture,
        always_causal=shown(r.always_causal),
        own_weights=shown(r.own_weights),
    )
    return Chart.of(figure, lambda: view_csv("attention_grid", (seq_len, dim, base, causal, seed, schemes)))


def attention_row(
    *, seq_len: int, dim: int, base: float, causal: bool, seed: int, schemes: str = "core", lecture: bool = False
) -> Chart:
    """The last query's attention over keys, one line per scheme; CSV: that row, a column per scheme."""
    r = comparison(seq_len, dim, base, causal, seed, schemes)
    figure = attention_row_figure(
        r.weights, names=shown(r.names), positions=r.positions, colours=r.colours, lecture=lecture
    )
    return Chart.of(figure, lambda: view_csv("attention_row", (seq_len, dim, base, causal, seed, schemes)))


@functools.lru_cache(maxsize=4 * RUNS)
def view_csv(figure: str, view: tuple[int, int, float, bool, int, str]) -> str:
    """The CSV of the page's ``figure`` (its function's name) for ``view``, the arguments of :func:`comparison`.

    In no language (its columns are the registry's names): made once and shared by the chart of every
    language (a chart is cached per language).
    """
    r = comparison(*view)
    if figure == "term_profile":
        return _last_row_csv(r, r.terms, distance=True)
    if figure == "attention_row":
        return _last_row_csv(r, r.weights, distance=False)
    matrices = {"term_grid": r.terms, "attention_grid": r.weights}[figure]
    return panels_csv(dict(zip(r.names, matrices, strict=True)), r.positions, r.positions)


def shown(names: Sequence[str]) -> tuple[str, ...]:
    """The registry's short names as a figure shows them, in this run's language (CSV columns keep the English)."""
    return tuple(_(name) for name in names)


def _last_row_csv(r: Run, matrices: np.ndarray, *, distance: bool) -> str:
    """The last query's row of each ``(L, L)`` matrix of ``matrices`` (schemes, L, L), a column per scheme."""
    pos, last = r.positions, len(r.positions) - 1
    keys = {"key j": pos, "distance i - j": last - pos} if distance else {"key j": pos}
    return columns_csv({**keys, **dict(zip(r.names, matrices[:, last], strict=True))})


CORE_ALWAYS_CAUSAL = ("CoPE",)  # the figure builders' default: the core selection's


def _mode(causal: bool, always_causal: Sequence[str]) -> str:
    """The mask in words: ``always_causal`` names the schemes that see only past keys whatever the setting."""
    names = ", ".join(always_causal)
    if causal:
        return _("causal ({names} always)").format(names=names) if names else _("causal")
    if not names:
        return _("every key visible")
    return ngettext(
        "every key visible ({names} stays causal)", "every key visible ({names} stay causal)", len(always_causal)
    ).format(names=names)


def _normalised(own_weights: Sequence[str]) -> str:
    """How each row's weights are made: ``own_weights`` names the schemes whose are not a softmax."""
    if not own_weights:
        return _("softmax over keys of each row")
    return _("softmax over keys of each row ({names}: its own weights, summing to at most 1)").format(
        names=", ".join(own_weights)
    )


# What the profile's shapes say, per selection (the core one's names its schemes; the others' stay general).
PROFILE_NOTES = {
    "core": N_(
        "a function of distance alone: ALiBi (a straight line), T5 (one learned value per bucket; "
        "random here, so steps with no trend); content-dependent: Shaw, RoPE, CoPE; no pattern: learned"
    ),
    "beyond": N_(
        "a function of distance alone: ALiBi, KERPLE, FIRE; content-dependent: RoPE, xPos, "
        "Transformer-XL, stick-breaking (what nearer keys took); flat at 0: none, NoPE"
    ),
}
PROFILE_NOTE = N_("a smooth line: a function of distance alone; a jagged one: the term depends on the content too")


def _lines(x, ys, *, names, colours, hover: tuple[str, str, str], lecture: bool, markers: bool) -> dict[str, Any]:
    """One line per scheme: ``ys`` (schemes, n) against ``x`` (n,), in each scheme's colour (None: Plotly's).

    A spec as plain data (``finish`` builds the figure once, see ``posviz.figures.rebuild``).
    """
    lk = look(lecture)
    x_name, y_name, y_format = hover
    traces = []
    for i, (name, y) in enumerate(zip(names, ys, strict=True)):
        line = dict(width=lk.line) if colours is None else dict(width=lk.line, color=colours[i])
        trace = dict(
            type="scatter",
            x=compact(x),
            y=np.asarray(y, dtype=np.float32),
            mode="lines+markers" if markers else "lines",
            name=name,
            line=line,
            hovertemplate=f"{name}<br>{x_name} = %{{x}}<br>{y_name} = %{{y:{y_format}}}<extra></extra>",
        )
        if markers:
            trace["marker"] = dict(size=lk.line + 3)
        traces.append(trace)
    return dict(data=traces, layout=dict(legend=dict(orientation="h", y=-0.2, x=0)))


def term_profile_figure(
    terms,
    *,
    names,
    positions,
    causal: bool,
    colours: Sequence[str] | None = None,
    lecture: bool = False,
    always_causal: Sequence[str] = CORE_ALWAYS_CAUSAL,
    schemes: str = "core",
) -> dict[str, Any]:
    """The last query's position term against distance ``i - j``, one line per scheme, one y axis."""
    z = as_array(terms).astype(np.float64)
    pos = as_array(positions).astype(np.int64)
    last = len(pos) - 1
    distance = last - pos  # (L,) i - j for the last query
    order = np.argsort(distance)
    fig = _lines(
        distance[order],
        z[:, last][:, order],
        names=names,
        colours=colours,
        hover=(_("distance i − j"), _("term"), ".3f"),
        lecture=lecture,
        markers=True,
    )
    fig["layout"].update(
        xaxis=dict(title=dict(text=_("distance i − j from the last query (i = {last})").format(last=last))),
        yaxis=dict(title=dict(text=_("position term: logit − q·k/√d"))),
    )
    return finish(
        fig,
        title=_("What each scheme adds to one query's logits, against distance"),
        subtitle=subtitle_lines(
            _(PROFILE_NOTES.get(schemes, PROFILE_NOTE)),
            _("the same q and k for every scheme; {mask}").format(mask=_mode(causal, always_causal)),
        ),
        lecture=lecture,
        plain=True,
    )


def term_grid_figure(
    terms, *, names, positions, causal: bool, lecture: bool = False, always_causal: Sequence[str] = CORE_ALWAYS_CAUSAL
) -> dict[str, Any]:
    """Every scheme's ``(L, L)`` position term on one diverging colour scale."""
    pos = as_array(positions)
    return heatmap_grid(
        terms,
        q_pos=pos,
        k_pos=pos,
        titles=list(names),
        title=_("Position terms, every query and key, one colour scale"),
        subtitle=_("logit − q·k/√d; blank: masked keys; {mask}").format(mask=_mode(causal, always_causal)),
        value_name=_("term"),
        palette="diverging",
        lecture=lecture,
        plain=True,
    )


def attention_grid_figure(
    weights,
    *,
    names,
    positions,
    causal: bool,
    lecture: bool = False,
    always_causal: Sequence[str] = CORE_ALWAYS_CAUSAL,
    own_weights: Sequence[str] = (),
) -> dict[str, Any]:
    """Every scheme's attention map on one sequential colour scale."""
    pos = as_array(positions)
    w = as_array(weights)
    return heatmap_grid(
        w,
        q_pos=pos,
        k_pos=pos,
        titles=list(names),
        title=_("Attention on the same toy sequence, one colour scale"),
        subtitle=_("{weights}; {mask}; colour: log scale").format(
            weights=_normalised(own_weights), mask=_mode(causal, always_causal)
        ),
        value_name=_("weight"),
        palette="sequential",
        lecture=lecture,
        mask=~np.isfinite(w) | (w == 0),  # exactly 0 only where a key is masked (softmax of -inf)
        mask_label=_("masked keys"),
        log_scale=True,
        plain=True,
    )


def attention_row_figure(
    weights, *, names, positions, colours: Sequence[str] | None = None, lecture: bool = False
) -> dict[str, Any]:
    """The last query's attention over keys, one line per scheme."""
    w = as_array(weights).astype(np.float32)
    pos = as_array(positions)
    last = len(pos) - 1
    fig = _lines(
        pos,
        w[:, last],
        names=names,
        colours=colours,
        hover=(_("key j"), _("weight"), ".3f"),
        lecture=lecture,
        markers=False,
    )
    fig["layout"].update(
        xaxis=dict(title=dict(text=_("key position j"))),
        yaxis=dict(title=dict(text=_("attention weight")), rangemode="tozero"),
    )
    return finish(
        fig,
        title=_("Where the last query (i = {last}) looks, scheme by scheme").format(last=last),
        subtitle=_("the same content scores; only the position term differs"),
        lecture=lecture,
        plain=True,
    )
