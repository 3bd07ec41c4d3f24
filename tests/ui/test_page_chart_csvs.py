"""/compare, /vision and /models: each figure carries its CSV (posviz.figures.chart.Chart), and that CSV
holds the arrays of the view the figure is drawn from.

Each CSV is parsed back (pandas) and its columns are checked by name and by value against the view's
arrays (``posviz.ui.*.views``), not against a second copy of the code that writes it.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from posviz.encodings.models import CONFIG_DIR
from posviz.figures.chart import Chart as FigureChart


def csv_of(chart) -> str:
    assert isinstance(chart, FigureChart)
    text = chart.csv()
    assert text is not None
    return text


def frame_of(chart, columns: list[str]) -> pd.DataFrame:
    """The chart's CSV parsed back; its header must be ``columns``, in that order."""
    frame = pd.read_csv(io.StringIO(csv_of(chart)), keep_default_na=False, na_values=[""])
    assert list(frame.columns) == columns
    return frame


def assert_column(frame: pd.DataFrame, name: str, values) -> None:
    """The column holds ``values`` exactly, read back at their own dtype (a float32 array's text is its
    shortest float32 form); NaN where the array has NaN."""
    values = np.asarray(values)
    assert len(frame) == len(values), name
    np.testing.assert_array_equal(frame[name].to_numpy().astype(values.dtype), values, err_msg=name)


def assert_grid(frame: pd.DataFrame, name: str, matrix, q_pos, k_pos) -> None:
    """A (query, key) matrix flattened to one row per pair: pivoted back, it is ``matrix``."""
    grid = frame.pivot(index="query i", columns="key j", values=name)
    assert list(grid.index) == list(q_pos) and list(grid.columns) == list(k_pos), name
    np.testing.assert_array_equal(grid.to_numpy().astype(np.asarray(matrix).dtype), matrix, err_msg=name)


# ---------------------------------------------------------------- /compare


def test_compare_chart_csvs_hold_the_runs_arrays():
    from posviz.figures import compare

    toy = dict(seq_len=32, dim=64, base=10000.0, causal=True, seed=0)
    v = compare.comparison(32, 64, 10000.0, True, 0)
    names, pos = list(v.names), v.positions
    assert len(names) >= 2 and len(set(names)) == len(names)
    np.testing.assert_array_equal(pos, np.arange(len(pos)))  # the last query i is len - 1
    last = len(pos) - 1
    texts = {}
    for fn in (compare.term_profile, compare.term_grid, compare.attention_grid, compare.attention_row):
        chart = fn(**toy)
        texts[fn] = csv_of(chart)
        assert csv_of(fn(**toy, lecture=True)) == texts[fn], fn.__name__  # lecture mode: the same data
        assert chart.csv() is texts[fn], fn.__name__  # made once, then remembered
    assert len(set(texts.values())) == len(texts)  # four different CSVs

    profile = frame_of(compare.term_profile(**toy), ["key j", "distance i - j", *names])
    assert_column(profile, "key j", pos)
    assert_column(profile, "distance i - j", pos[::-1])  # the last query: i - j runs down to 0
    row = frame_of(compare.attention_row(**toy), ["key j", *names])
    assert_column(row, "key j", pos)
    for n, name in enumerate(names):
        assert_column(profile, name, v.terms[n][last])
        assert_column(row, name, v.weights[n][last])
    for fn, matrices in ((compare.term_grid, v.terms), (compare.attention_grid, v.weights)):
        grid = frame_of(fn(**toy), ["query i", "key j", "r = j - i", *names])
        assert len(grid) == len(pos) ** 2
        assert_column(grid, "r = j - i", grid["key j"] - grid["query i"])
        for name, matrix in zip(names, matrices, strict=True):
            assert_grid(grid, name, matrix, pos, pos)


# ---------------------------------------------------------------- /vision


def test_vision_chart_csvs_hold_the_arrays_they_draw():
    from posviz.encodings.multimodal_pairs import encoder_splits, mrope_pairs, offset_maps
    from posviz.encodings.multimodal_prompt import video_time_ids, vl_prompt
    from posviz.figures import multimodal, multimodal_pairs
    from posviz.ui.cache import chart as cached
    from posviz.ui.vision.settings import VisionSettings
    from tests.figures.test_multimodal import offsets_of, prompt_of, side_of, video_of

    s = VisionSettings()
    calls = {
        "grid": (multimodal.grid, prompt_of(s)),
        "sequence": (multimodal.sequence, prompt_of(s)),
        "pairs": (multimodal_pairs.pairs, dict(vl_model=s.vl_model, side=side_of(s))),
        "time": (multimodal.time, video_of(s)),
        "offsets": (multimodal_pairs.offsets, offsets_of(s)),
        "split": (multimodal_pairs.split, {}),
    }
    built = {name: fn(**args) for name, (fn, args) in calls.items()}
    for name, (fn, args) in calls.items():
        assert csv_of(cached(fn, **args, lecture=False)) == csv_of(built[name]), name  # through the cache: the same

    v = vl_prompt(**prompt_of(s))
    ids = ["t", "h", "w"]
    original = [f"{a} original" for a in ids]
    assert csv_of(built["grid"]) == csv_of(built["sequence"])  # the grid's data is the whole sequence
    sequence = frame_of(built["sequence"], ["token", "kind", "mm_token_type_id", *ids, *original])
    assert_column(sequence, "token", np.arange(len(v.types)))
    assert_column(sequence, "mm_token_type_id", v.types.numpy())
    for a, (name, old) in enumerate(zip(ids, original, strict=True)):
        assert_column(sequence, name, v.ids[a].numpy())
        assert_column(sequence, old, v.original[a].numpy())
    assert sum(r.stop - r.start for r in v.runs) == len(sequence)  # the runs cover every token
    for r in v.runs:
        assert set(sequence["kind"].iloc[r.start : r.stop]) == {r.kind}, r

    p = mrope_pairs(s.vl_model)
    pairs = frame_of(built["pairs"], ["pair k", "wavelength (tokens)", "blocks axis", "interleaved axis"])
    assert_column(pairs, "pair k", np.arange(len(p.wavelength)))
    assert_column(pairs, "wavelength (tokens)", p.wavelength.numpy())
    axis_of = {name: a for a, name in enumerate(ids)}
    np.testing.assert_array_equal(pairs["blocks axis"].map(axis_of), p.blocks)
    np.testing.assert_array_equal(pairs["interleaved axis"].map(axis_of), p.interleaved)

    t = video_time_ids(**video_of(s))
    time = frame_of(built["time"], ["temporal patch", "start (s)", "time id, frame index", "time id, seconds"])
    for name, values in zip(time.columns, (t.frames, t.seconds, t.frame_ids, t.second_ids), strict=True):
        assert_column(time, name, values.numpy())

    args = offsets_of(s)
    o = offset_maps(args.pop("encoder"), height=args["height"], width=args["width"], row=args["q_row"],
                    col=args["q_col"], seed=args["seed"])  # fmt: skip
    h, w = args["height"], args["width"]
    chosen, other = f"score, query ({s.q_row}, {s.q_col})", f"score, query {o.other_patch}"
    offsets = frame_of(built["offsets"], ["dh", "dw", chosen, other])
    for name, matrix in ((chosen, o.chosen.numpy()), (other, o.other.numpy())):
        grid = offsets.pivot(index="dh", columns="dw", values=name)
        assert list(grid.index) == list(range(-(h - 1), h))
        assert list(grid.columns) == list(range(-(w - 1), w))
        np.testing.assert_array_equal(grid.to_numpy().astype(matrix.dtype), matrix, err_msg=name)

    splits = encoder_splits()
    split = frame_of(built["split"], ["encoder", "pair k", "axis", "wavelength (patches)", "channel a", "channel b"])
    assert list(dict.fromkeys(split["encoder"])) == [e.name for e in splits]
    assert len(split) == sum(len(e.axis) for e in splits)
    for e in splits:
        rows = split[split["encoder"] == e.name]
        assert_column(rows, "pair k", np.arange(len(e.axis)))
        np.testing.assert_array_equal(rows["axis"].map({"row": 0, "column": 1}), e.axis, err_msg=e.name)
        assert_column(rows, "wavelength (patches)", e.wavelength.numpy())
        assert_column(rows, "channel a", e.channels[:, 0].numpy())
        assert_column(rows, "channel b", e.channels[:, 1].numpy())


# ---------------------------------------------------------------- /models


def _shipped(slug: str) -> bytes:
    return (CONFIG_DIR / f"{slug}.json").read_bytes()


def models_frame(chart, columns: list[str]) -> pd.DataFrame:
    """A /models chart (``posviz.figures.chart.Chart``) has a CSV; parsed back, its header is ``columns``."""
    from posviz.figures.chart import Chart as FigureChart

    assert isinstance(chart, FigureChart) and chart.make_csv is not None
    frame = pd.read_csv(io.StringIO(chart.csv()), keep_default_na=False, na_values=[""])
    assert list(frame.columns) == columns
    return frame


def assert_family_csv(chart, mp) -> None:
    """The family figure's CSV: T5's bucket of each distance if the model has them, else ALiBi's slope per head."""
    from posviz.encodings.model_bias import bucket_profile, head_slopes

    if mp.t5 is not None:
        v = bucket_profile(mp.t5.num_buckets, mp.t5.max_distance)
        frame = models_frame(chart, ["r = j - i", "bucket"])
        assert_column(frame, "r = j - i", v.r)
        assert_column(frame, "bucket", v.bucket)
        return
    slopes = head_slopes(mp.alibi.heads).slopes
    frame = models_frame(chart, ["head", "slope"])
    assert_column(frame, "head", np.arange(1, len(slopes) + 1))
    assert_column(frame, "slope", slopes)


MODELS = {  # settings, upload: the defaults, windowed masks, T5, ALiBi, an uploaded config
    "default": ({}, None),
    "gemma": ({"model": "gemma-3-27b"}, None),
    "t5": ({"model": "t5-base"}, None),
    "alibi": ({"model": "mpt-7b"}, None),
    "upload": ({}, _shipped("gemma-3-27b")),
}


@pytest.mark.parametrize("case", list(MODELS))
def test_models_charts_carry_their_csvs(case):
    """Every figure's CSV holds the arrays it is drawn from, as ``posviz.encodings`` computes them."""
    from posviz.encodings.model_masks import key_masks, reach_curves
    from posviz.encodings.model_rope_groups import rope_groups
    from posviz.figures import model_family, model_layers, model_rope
    from posviz.ui.models.settings import ModelsSettings
    from posviz.ui.models.sides import sides

    changes, upload = MODELS[case]
    (side,), error = sides(ModelsSettings(**changes), upload)
    assert error is None and (side.slug == "") == (upload is not None)
    model = {"slug": side.slug, "upload": side.upload, "name": side.model.name}
    mp = side.model.mp

    frame = models_frame(model_layers.strip(**model), ["layer", "stack", "attention", "window", "rope", "causal"])
    assert_column(frame, "layer", np.arange(1, mp.num_layers + 1))
    assert list(frame["attention"]) == [x.attention for x in mp.layers]
    assert_column(frame, "window", [x.window or 0 for x in mp.layers])
    assert_column(frame, "rope", [int(x.rope) for x in mp.layers])

    groups = rope_groups(mp, side.seq_len)
    assert len(groups) == len(model_rope.rope_kinds(slug=side.slug, upload=side.upload, seq_len=side.seq_len))
    for i, g in enumerate(groups):
        for build in (model_rope.inv_freq, model_rope.wavelength):
            chart = build(**model, seq_len=side.seq_len, group=i)
            columns = ["pair k", "inv_freq", "unscaled inv_freq", "wavelength (tokens)", "unscaled wavelength"]
            frame = models_frame(chart, columns + ([g.other_name] if g.other is not None else []))
            assert_column(frame, "inv_freq", g.inv_freq)
            assert_column(frame, "unscaled inv_freq", g.default)
            np.testing.assert_allclose(frame["wavelength (tokens)"], 2 * np.pi / g.inv_freq, rtol=1e-15)

    v = key_masks(mp.layers, side.position)
    views = [(False, v.k_pos, v.masks)] + ([(True, v.near_k, v.near_masks)] if v.near_k is not None else [])
    assert (v.near_k is not None) == (case == "gemma" or case == "upload")  # Gemma 3's windows: a near view
    for near, keys, rows in views:
        chart = model_layers.masks(**model, position=side.position, near=near)
        frame = models_frame(chart, ["key j", *v.labels])
        assert_column(frame, "key j", keys)
        for label, row in zip(v.labels, rows, strict=True):
            assert_column(frame, label, row.astype(np.int8))

    r = reach_curves(mp.layers[: side.layers], side.position)
    names = ["layers passed n", "tokens back"] + (
        ["tokens back, windowed layers alone"] if r.windowed is not None else []
    )
    frame = models_frame(model_layers.reach(**model, position=side.position, layers=side.layers), names)
    assert_column(frame, "tokens back", r.reach)

    if mp.t5 is not None:
        assert_family_csv(model_family.t5_buckets(**model), mp)
    elif mp.alibi is not None:
        assert_family_csv(model_family.alibi_slopes(**model), mp)
    assert (mp.t5 is not None or mp.alibi is not None) == (case in ("t5", "alibi"))


def test_models_chart_csvs_are_keyed_by_the_uploaded_bytes():
    """Two uploads share the slug "": their bytes are an argument, so their charts (and CSVs) stay apart."""
    from posviz.figures import model_layers

    config = json.loads(_shipped("mistral-7b"))
    shallow = json.dumps(config | {"num_hidden_layers": 4}).encode()
    deep = json.dumps(config | {"num_hidden_layers": 8}).encode()
    got = [model_layers.strip(slug="", upload=up, name="x").csv() for up in (shallow, deep)]
    assert got[0].count("\n") == 1 + 4 and got[1].count("\n") == 1 + 8
    reach = [model_layers.reach(slug="", upload=up, name="x", position=3000, layers=8).csv() for up in (shallow, deep)]
    assert reach[0].count("\n") == 1 + 5 and reach[1].count("\n") == 1 + 9  # 0 .. 4 and 0 .. 8 layers passed
