"""The snippets of the xPos, KERPLE, FIRE, NoPE, stick-breaking and Transformer-XL pages run and rebuild what
the pages draw: each snippet's tensors against its Chart's CSV (or the drawn figure), for several settings."""

from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd
import pytest

from posviz.figures import fire, kerple, nope, stickbreaking, xpos
from posviz.figures import transformer_xl as txl
from posviz.ui.fire.settings import FireSettings
from posviz.ui.fire.snippets import page_snippets as fire_snippets
from posviz.ui.kerple.settings import KerpleSettings
from posviz.ui.kerple.snippets import page_snippets as kerple_snippets
from posviz.ui.nope.settings import DROPE_LEN, MAX_TOKENS, NopeSettings
from posviz.ui.nope.snippets import page_snippets as nope_snippets
from posviz.ui.params import MAX_CURVE_LEN, MAX_LEN
from posviz.ui.stickbreaking.settings import StickbreakingSettings
from posviz.ui.stickbreaking.snippets import page_snippets as sb_snippets
from posviz.ui.transformer_xl.settings import TransformerXlSettings
from posviz.ui.transformer_xl.snippets import page_snippets as txl_snippets
from posviz.ui.xpos.settings import XposSettings
from posviz.ui.xpos.snippets import page_snippets as xpos_snippets


def run(code: str) -> dict:
    assert "posviz" not in code  # plain PyTorch a learner can paste
    scope: dict = {}
    exec(compile(code, "<snippet>", "exec"), scope)  # noqa: S102 - our own generated code
    return scope


def frame(chart, **kwargs) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(chart.csv()), **kwargs)


def drawn_z(chart) -> np.ndarray:
    """The z of a chart's first trace, decoded from Plotly's base64 encoding."""
    z = chart.figure().data[0].z
    values = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
    return values.reshape([int(n) for n in z["shape"].split(",")]).astype(np.float64)


def close(got, want, *, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    np.testing.assert_allclose(got, np.asarray(want, dtype=np.float64), rtol=rtol, atol=atol, equal_nan=True)


XPOS = [
    XposSettings(),
    XposSettings(dim=2, scale_base=1.0, seq_len=2, seed=5),
    XposSettings(dim=6, scale_base=37.5, seq_len=1001, seed=2),
    XposSettings(dim=512, scale_base=1_000_000.0, seq_len=MAX_CURVE_LEN, seed=1),
    XposSettings(dim=512, scale_base=1.0, seq_len=MAX_CURVE_LEN, seed=4),
]


@pytest.mark.parametrize("s", XPOS, ids=str)
def test_xpos_snippets_match_the_page(s):
    codes = xpos_snippets(s, pairs=xpos.shown_pairs(s.dim).tolist())
    assert set(codes) == {"xpos_decay", "xpos_scores"}
    drawn = frame(xpos.decay(dim=s.dim, scale_base=s.scale_base, seq_len=s.seq_len))
    got = run(codes["xpos_decay"])
    close(got["r"], drawn["distance"], rtol=0, atol=0)
    pairs = [c for c in drawn.columns if c.startswith("pair ")]
    assert [f"pair {p}" for p in got["pairs"].tolist()] == pairs
    close(got["factors"], drawn[pairs].to_numpy())
    drawn = frame(xpos.scores(dim=s.dim, scale_base=s.scale_base, seq_len=s.seq_len, seed=s.seed))
    got = run(codes["xpos_scores"])  # it also checks itself against torchscale's XPOS on its first positions
    close(got["r"], drawn["distance"], rtol=0, atol=0)
    close(got["rope"], drawn["RoPE score"], atol=1e-9)
    close(got["xpos"], drawn["xPos score"], atol=1e-9)


KERPLE = [
    KerpleSettings(),
    KerpleSettings(heads=1, seq_len=2, seed=3),
    KerpleSettings(heads=5, seq_len=129, seed=11),
    KerpleSettings(heads=16, seq_len=MAX_CURVE_LEN, seed=7),
]


@pytest.mark.parametrize("s", KERPLE, ids=str)
def test_kerple_snippet_matches_the_page(s):
    drawn = frame(kerple.family(heads=s.heads, seq_len=s.seq_len, seed=s.seed))
    got = run(kerple_snippets(s)["kerple_family"])
    close(got["r"], drawn["distance"], rtol=0, atol=0)
    for name, short, rtol in (("alibi", "ALiBi", 1e-6), ("log_kernel", "KERPLE log", 1e-9),
                              ("power_kernel", "KERPLE power", 1e-9), ("t5", "T5", 1e-9)):  # fmt: skip
        columns = [f"{short} head {h + 1}" for h in range(s.heads)]
        close(got[name], drawn[columns].to_numpy().T, rtol=rtol)  # ALiBi's bias is drawn in float32


FIRE = [
    FireSettings(),
    FireSettings(c=0.001, threshold=0.0, seq_len=2, heads=1, seed=1),
    FireSettings(c=0.37, threshold=10.5, seq_len=65, heads=3, seed=2),
    FireSettings(c=100.0, threshold=float(MAX_LEN), seq_len=MAX_LEN, heads=16, seed=9),
]


@pytest.mark.parametrize("s", FIRE, ids=str)
def test_fire_snippets_match_the_page(s):
    codes = fire_snippets(s)
    normal = dict(c=s.c, threshold=s.threshold, seq_len=s.seq_len)
    drawn = frame(fire.interpolation(**normal))
    curves = run(codes["fire_interpolation"])["curves"]
    assert sorted(curves) == sorted(set(drawn["distance"]))
    for r, (queries, u) in curves.items():
        rows = drawn[drawn["distance"] == r]
        close(queries, rows["query i"], rtol=0, atol=0)
        close(u, rows["u"])
    drawn = frame(fire.normalized(**normal), index_col=0)
    got = run(codes["fire_normalized"])
    close(got["positions"], drawn.index, rtol=0, atol=0)
    close(got["positions"], drawn.columns.astype(float), rtol=0, atol=0)
    u = got["normalized_distances"].numpy()
    future = np.triu(np.ones_like(u, dtype=bool), 1)
    assert np.isnan(u[future]).all() and not np.isnan(u[~future]).any()
    close(u[~future], drawn.to_numpy()[~future])
    drawn = frame(fire.mlp(heads=s.heads, seed=s.seed))
    got = run(codes["fire_mlp"])
    close(got["u"], drawn["u"])
    close(got["bias"], drawn[[f"head {h + 1}" for h in range(s.heads)]].to_numpy().T)


NOPE = [
    NopeSettings(),
    NopeSettings(seq_len=2, dim=2, base=2.0, seed=3),
    NopeSettings(seq_len=37, dim=6, base=500.0, seed=1),
    NopeSettings(seq_len=MAX_TOKENS, dim=512, base=1_000_000.0, seed=8),
]


@pytest.mark.parametrize("s", NOPE, ids=str)
def test_nope_snippets_match_the_page(s):
    codes = nope_snippets(s, drope_len=DROPE_LEN)
    chart = nope.marker(length=s.seq_len)
    got = run(codes["nope_marker"])
    close(got["out"], frame(chart)["output 1/t"])
    close(got["weights"], drawn_z(chart), rtol=1e-6)
    drawn = frame(nope.permutation(dim=s.dim, seed=s.seed))
    change = run(codes["nope_permutation"])["change"]
    close(change["causal mask"], drawn["causal mask"], rtol=1e-6)
    close(change["no mask"], drawn["no mask"], atol=1e-9)  # both rounding noise only
    assert change["no mask"].max() < 1e-9
    drawn = frame(nope.layers(), index_col=0)
    rotates = run(codes["nope_layers"])["rotates"]
    assert [name.split(" (")[0] for name in drawn.index] == list(rotates)
    for (_, row), layers in zip(drawn.iterrows(), rotates.values(), strict=True):
        close(layers.double(), row.to_numpy()[: len(layers)], rtol=0, atol=0)
        assert row.iloc[len(layers) :].isna().all()
    drawn = frame(nope.temperature())
    got = run(codes["nope_temperature"])
    close(got["cache_position"], drawn["position"], rtol=0, atol=0)
    close(got["attn_scales"], drawn["scale"])
    drawn = frame(nope.drope(dim=s.dim, base=s.base, length=DROPE_LEN, seed=s.seed))
    got = run(codes["nope_drope"])
    close(got["with_rope"], drawn["with rope"])
    close(got["dropped"], drawn["dropped"])


STICK = [
    StickbreakingSettings(),
    StickbreakingSettings(seq_len=2, dim=2, seed=3, query=1),
    StickbreakingSettings(seq_len=7, dim=6, seed=1, query=3),
    StickbreakingSettings(seq_len=128, dim=512, seed=5, query=127),
]


@pytest.mark.parametrize("s", STICK, ids=str)
def test_stickbreaking_snippets_match_the_page(s):
    codes = sb_snippets(s, scores=stickbreaking.EQUAL_SCORES, recency_len=stickbreaking.EQUAL_LEN)
    toy = dict(length=s.seq_len, dim=s.dim, seed=s.seed)
    drawn = frame(stickbreaking.weights(**toy))
    got = run(codes["stickbreaking_weights"])
    close(got["A"].ravel(), drawn["stick-breaking"])
    close(got["softmax"].ravel(), drawn["softmax"])
    drawn = frame(stickbreaking.row(**toy, query=s.query))
    got = run(codes["stickbreaking_row"])
    close([*got["shares"].tolist(), got["left"]], drawn["share"])
    drawn = frame(stickbreaking.recency())
    curves = run(codes["stickbreaking_recency"])["curves"]
    close(curves[0.0].numpy(), 0.5 ** np.arange(1, stickbreaking.EQUAL_LEN))  # beta (1 - beta)^(r - 1), beta = 1/2
    close(np.arange(1, stickbreaking.EQUAL_LEN), drawn["distance"], rtol=0, atol=0)
    for z in stickbreaking.EQUAL_SCORES:
        close(curves[z], drawn[f"score {z:g}"])


TXL = [
    TransformerXlSettings(),
    TransformerXlSettings(seq_len=1, mem_len=0, dim=2, seed=1),
    TransformerXlSettings(seq_len=7, mem_len=3, dim=6, seed=2),
    TransformerXlSettings(seq_len=64, mem_len=64, dim=512, seed=3),
]


@pytest.mark.parametrize("s", TXL, ids=str)
def test_transformer_xl_snippets_match_the_page(s):
    codes = txl_snippets(s)
    head = dict(q_len=s.seq_len, mem_len=s.mem_len, dim=s.dim, seed=s.seed)
    drawn = frame(txl.terms(**head))
    got = run(codes["txl_terms"])
    for name, title in zip(("content", "position", "content_bias", "position_bias"), txl.TERM_TITLES, strict=True):
        close(got[name].ravel(), drawn[title])
    assert got["mask"].ravel().tolist() == (drawn["key j"] > drawn["query i"]).tolist()
    drawn = frame(txl.r_matrix(k_len=s.seq_len + s.mem_len, dim=s.dim), index_col=0)
    got = run(codes["txl_r"])
    close(got["pos_seq"], drawn.index, rtol=0, atol=0)
    close(got["R"], drawn.to_numpy())
    drawn = frame(txl.shift(**head))
    got = run(codes["txl_shift"])
    close(got["BD_raw"].ravel(), drawn["before shift"])
    close(got["BD"].ravel(), drawn["after shift"])  # the garbage above the diagonal too
    drawn = frame(txl.memory(**head), index_col=0)
    close(run(codes["txl_memory"])["attn_prob"], drawn.to_numpy())
