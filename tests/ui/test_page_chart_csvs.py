"""/compare, /vision and /models: each figure carries its CSV (posviz.ui.cache.Chart), and that CSV
is byte for byte what the page built in its own ``csv=lambda: ...`` before the figures carried it.

Each "old" expression below is the page's former one, computed from the same view arrays.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from posviz.encodings.models import CONFIG_DIR
from posviz.ui.exports import columns_csv, panels_csv
from posviz.ui.settings import project

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.cache import Chart


def csv_of(chart) -> str:
    assert isinstance(chart, Chart) and chart.csv is not None
    return chart.csv()


# ---------------------------------------------------------------- /compare


def test_compare_charts_carry_the_pages_former_csvs():
    from posviz.ui.compare import charts
    from posviz.ui.compare.settings import CompareSettings
    from posviz.ui.compare.views import compare_view

    s = CompareSettings()
    v = compare_view(s)
    names, pos = list(v.names), v.positions
    last = len(pos) - 1
    old = {
        charts.term_profile: columns_csv(
            {"key j": pos, "distance i - j": last - pos, **dict(zip(names, v.terms[:, last], strict=True))}
        ),
        charts.term_grid: panels_csv(dict(zip(names, v.terms, strict=True)), pos, pos),
        charts.attention_grid: panels_csv(dict(zip(names, v.weights, strict=True)), pos, pos),
        charts.attention_row: columns_csv({"key j": pos, **dict(zip(names, v.weights[:, last], strict=True))}),
    }
    for fn, want in old.items():
        for lecture in (False, True):
            assert csv_of(fn.uncached(s, lecture)) == want, fn.__name__
        assert csv_of(fn(s, False)) == want, fn.__name__  # through the cache: the text remembered
    assert len(set(old.values())) == len(old)  # four different CSVs


# ---------------------------------------------------------------- /vision


def _old_vision_columns(s) -> dict[str, dict]:
    """The columns each /vision chart function returned beside its figure, for the page's columns_csv."""
    from posviz.ui.vision.settings import OffsetKey, SequenceKey
    from posviz.ui.vision.views import offset_view, pairs_view, sequence_view, split_view, time_view

    sk, ok = project(s, SequenceKey), project(s, OffsetKey)
    v = sequence_view(sk)
    kinds = np.empty(len(v.types), dtype=object)
    for b in v.blocks:
        kinds[b.start : b.stop] = b.kind
    sequence = {
        "token": np.arange(len(v.types)),
        "kind": kinds,
        "mm_token_type_id": v.types,
        "t": v.ids[0],
        "h": v.ids[1],
        "w": v.ids[2],
        "t original": v.original[0],
        "h original": v.original[1],
        "w original": v.original[2],
    }
    p = pairs_view(s.vl_model)
    names = np.array(["t", "h", "w"])
    pairs = {
        "pair k": np.arange(len(p.wavelength)),
        "wavelength (tokens)": p.wavelength,
        "blocks axis": names[p.blocks],
        "interleaved axis": names[p.interleaved],
    }
    t = time_view(sk)
    time = {
        "temporal patch": t.frames,
        "start (s)": t.seconds,
        "time id, frame index": t.frame_ids,
        "time id, seconds": t.second_ids,
    }
    o = offset_view(ok)
    dh, dw = np.meshgrid(np.arange(-(o.height - 1), o.height), np.arange(-(o.width - 1), o.width), indexing="ij")
    offsets = {
        "dh": dh.ravel(),
        "dw": dw.ravel(),
        f"score, query ({ok.q_row}, {ok.q_col})": o.chosen.ravel(),
        f"score, query {o.other_patch}": o.other.ravel(),
    }
    sp = split_view()
    split = {
        "encoder": np.concatenate([[n] * len(a) for n, a in zip(sp.names, sp.axis, strict=True)]),
        "pair k": np.concatenate([np.arange(len(a)) for a in sp.axis]),
        "axis": np.concatenate([np.array(["row", "column"])[a] for a in sp.axis]),
        "wavelength (patches)": np.concatenate(sp.wavelength),
        "channel a": np.concatenate([c[:, 0] for c in sp.channels]),
        "channel b": np.concatenate([c[:, 1] for c in sp.channels]),
    }
    return {"grid": sequence, "sequence": sequence, "pairs": pairs, "time": time, "offsets": offsets, "split": split}


def test_vision_charts_carry_the_pages_former_csvs():
    from posviz.ui.vision import charts
    from posviz.ui.vision.settings import OffsetKey, SequenceKey, VisionSettings

    s = VisionSettings()
    sk, ok = project(s, SequenceKey), project(s, OffsetKey)
    side = max(s.image_rows, s.image_cols)
    calls = {
        "grid": (charts.grid, (sk,)),
        "sequence": (charts.sequence, (sk,)),
        "pairs": (charts.pairs, (s.vl_model, side)),
        "time": (charts.time, (sk,)),
        "offsets": (charts.offsets, (ok,)),
        "split": (charts.split, ()),
    }
    old = _old_vision_columns(s)
    assert set(old) == set(calls)
    for name, (fn, args) in calls.items():
        want = columns_csv(old[name])
        assert csv_of(fn.uncached(*args, False)) == want, name
        assert csv_of(fn(*args, False)) == want, name


# ---------------------------------------------------------------- /models


def _shipped(slug: str) -> bytes:
    return (CONFIG_DIR / f"{slug}.json").read_bytes()


def _old_family_csv(slug: str, upload: bytes | None) -> str:
    """The page's former ``family_csv``: T5's buckets if the model has them, else ALiBi's slopes."""
    from posviz.ui.models.views import alibi_view, t5_view

    t5 = t5_view(slug, upload)
    if t5 is not None:
        return columns_csv({"r = j - i": t5.r, "bucket": t5.bucket})
    v = alibi_view(slug, upload)
    return columns_csv({"head": np.arange(1, len(v.slopes) + 1), "slope": v.slopes})


MODELS = {  # settings, upload: the defaults, windowed masks, T5, ALiBi, an uploaded config
    "default": ({}, None),
    "gemma": ({"model": "gemma-3-27b"}, None),
    "t5": ({"model": "t5-base"}, None),
    "alibi": ({"model": "mpt-7b"}, None),
    "upload": ({}, _shipped("gemma-3-27b")),
}


@pytest.mark.parametrize("case", list(MODELS))
def test_models_charts_carry_the_pages_former_csvs(case):
    from posviz.ui.models import charts
    from posviz.ui.models.settings import ModelsSettings
    from posviz.ui.models.sides import sides
    from posviz.ui.models.views import mask_view, rope_view

    changes, upload = MODELS[case]
    (side,), error = sides(ModelsSettings(**changes), upload)
    assert error is None and (side.slug == "") == (upload is not None)
    slug, up = side.slug, side.upload
    pairs = [(charts.strip(slug, False, up), charts.strip_csv(slug, up))]
    k = side.rope_key
    for i, _ in enumerate(rope_view(k, up)):
        for build in (charts.inv_freq, charts.wavelength):
            pairs.append((build(k, i, False, up), charts.rope_csv(k, i, up)))
    mk = side.mask_key
    for near in [False] + ([True] if mask_view(mk, up).near_k is not None else []):
        pairs.append((charts.masks(mk, near, False, up), charts.mask_csv(mk, near, up)))
    pairs.append((charts.reach(side.reach_key, False, up), charts.reach_csv(side.reach_key, up)))
    mp = side.model.mp
    if mp.t5 is not None:
        pairs.append((charts.t5_buckets(slug, False, up), _old_family_csv(slug, up)))
    elif mp.alibi is not None:
        pairs.append((charts.alibi_slopes(slug, False, up), _old_family_csv(slug, up)))
    for chart, want in pairs:
        assert csv_of(chart) == want
    family = {"t5": "r = j - i,bucket\n", "alibi": "head,slope\n"}.get(case)
    assert family is None or pairs[-1][1].startswith(family)  # the family figure was checked too


def test_models_chart_csvs_are_keyed_by_the_uploaded_bytes():
    """Two uploads share the slug "" and every key: their bytes keep their charts (and CSVs) apart."""
    from posviz.ui.models import charts
    from posviz.ui.models.settings import ReachKey

    config = json.loads(_shipped("mistral-7b"))
    shallow = json.dumps(config | {"num_hidden_layers": 4}).encode()
    deep = json.dumps(config | {"num_hidden_layers": 8}).encode()
    got = [charts.strip("", False, up).csv() for up in (shallow, deep)]
    assert got[0].count("\n") == 1 + 4 and got[1].count("\n") == 1 + 8
    reach = [charts.reach(ReachKey("", 3000, 4), False, up).csv() for up in (shallow, deep)]
    assert reach == [charts.reach_csv(ReachKey("", 3000, 4), up) for up in (shallow, deep)]
