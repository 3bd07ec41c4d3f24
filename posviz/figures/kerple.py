"""The KERPLE page's figures: one function of plain arguments per figure, each returning a :class:`Chart`.

KERPLE's kernels beside ALiBi's line and T5's buckets: one family of additive relative biases, each a
function of the distance ``r = i - j`` added to the logits. Parameters are seeded and illustrative
(drawn as each reference initialises them), not a trained model's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from posviz.encodings.alibi import alibi_bias
from posviz.encodings.attention import toy_normal
from posviz.encodings.kerple import COMPARE_HEADS, kerple_log_bias, kerple_parameters, kerple_power_bias
from posviz.encodings.positions import curve_positions
from posviz.encodings.t5 import t5_bucket
from posviz.figures.chart import Chart
from posviz.figures.csv import columns_csv
from posviz.figures.layout import finish, look, number, on_panel, subplot_grid, subtitle_lines
from posviz.i18n import N_, _

DENSE, POINTS = 128, 300
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128  # T5's defaults, causal (decoder) buckets
# The panels' titles (in English, the keys of the biases and of the CSV's columns; shown translated).
PANELS = (
    N_("ALiBi: −m·r"),
    N_("KERPLE log: −p·log(1 + a·r)"),
    N_("KERPLE power: −a·r^p"),
    N_("T5: a learned scalar per bucket"),
)


def distances(seq_len: int) -> torch.Tensor:
    """(r,) int64: every distance up to 128, then log-spaced up to ``seq_len - 1``."""
    return curve_positions(max(seq_len - 1, 1), dense=DENSE, points=POINTS)


def family_biases(*, heads: int, seq_len: int, seed: int) -> dict[str, np.ndarray]:
    """Each scheme's bias at every drawn distance, per head: name -> (heads, r) float64, and ``"distance"``."""
    g = torch.Generator().manual_seed(seed)
    r = distances(seq_len)
    last = torch.tensor([int(r[-1])])  # one query, at the last distance drawn; keys at every distance before it
    keys = last - r
    p, a = kerple_parameters(heads, generator=g)
    table = toy_normal(T5_BUCKETS, heads, generator=g).double()  # (buckets, heads) as nn.Embedding starts
    buckets = t5_bucket(-r, bidirectional=False, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)
    return {
        "distance": r.numpy(),
        PANELS[0]: alibi_bias(last, keys, heads)[:, 0].double().numpy(),
        PANELS[1]: kerple_log_bias(last, keys, p=p, a=a)[:, 0].numpy(),
        PANELS[2]: kerple_power_bias(last, keys, a=a, p=p)[:, 0].numpy(),  # p < 2 as drawn
        PANELS[3]: table[buckets].T.numpy(),
        "p": p.numpy(),
        "a": a.numpy(),
    }


def family(*, heads: int, seq_len: int, seed: int, lecture: bool = False) -> Chart:
    """Four panels, bias against distance, one line per head: ALiBi, KERPLE's two kernels, T5."""
    lk = look(lecture)
    b = family_biases(heads=heads, seq_len=seq_len, seed=seed)
    x = b["distance"].astype(np.int32)
    layout = subplot_grid(2, 2, titles=[_(p) for p in PANELS], horizontal_spacing=0.12, vertical_spacing=0.2)
    data = []
    for panel, name in enumerate(PANELS, start=1):
        for h in range(heads):
            head = _("head {h}").format(h=h + 1)
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "x": x,
                    "y": b[name][h].astype(np.float32),
                    "name": head,
                    "legendgroup": f"head {h + 1}",
                    "showlegend": panel == 1,
                    "line": {"width": lk.line, "color": f"hsl({int(240 * h / max(heads - 1, 1))}, 70%, 42%)"},
                    "hovertemplate": _("r = %{x}<br>bias %{y:.3g}") + "<extra>" + head + "</extra>",
                    **on_panel(panel),
                }
            )
        suffix = "" if panel == 1 else str(panel)
        layout[f"xaxis{suffix}"].update(type="log", title={"text": _("distance r = i − j (log)")})
        layout[f"yaxis{suffix}"].update(title={"text": _("bias")})
    figure = finish(
        {"data": data, "layout": layout},
        title=_("One family: a bias added to the logits, as a function of the distance"),
        subtitle=subtitle_lines(
            _(
                "{heads} heads; KERPLE's p and a drawn as its code initialises them (seed {seed}), T5's table from "
                "N(0, 1): illustrative, not trained"
            ).format(heads=heads, seed=seed),
            _("ALiBi is the power kernel with p = 1; the log kernel flattens where ALiBi falls on"),
        ),
        lecture=lecture,
        height=int(lk.height * 1.3),
    )
    columns = {"distance": b["distance"]}
    for name in PANELS:
        short = name.split(":")[0]
        columns.update({f"{short} head {h + 1}": b[name][h] for h in range(heads)})
    return Chart.of(figure, lambda: columns_csv(columns))


def parameters_table(*, heads: int, seed: int) -> pd.DataFrame:
    """Each head's illustrative KERPLE parameters, as the page's table: (heads, 3); headers in the run's language."""
    p, a = kerple_parameters(heads, generator=torch.Generator().manual_seed(seed))
    cells = {"p": [number(v, 3) for v in p.tolist()], "a": [number(v, 3) for v in a.tolist()]}
    return pd.DataFrame({_("head"): np.arange(1, heads + 1), **cells})


def compare_row(*, seq_len: int, dim: int, base: float, causal: bool) -> tuple[str, str, int, str]:
    """KERPLE's row of the compare page's properties table: the log kernel, ``p`` and ``a`` per head."""
    stops = _("never: the penalty p·log(1 + a·r) keeps growing, ever more slowly")
    return (_("relative, bias on the logits (log kernel)"), _("learned"), 2 * COMPARE_HEADS, stops)
