"""posviz.figures.csv writes numeric columns itself: byte for byte what pandas writes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from posviz.figures.csv import columns_csv, panels_csv

DTYPES = st.sampled_from([np.float32, np.float64, np.float16, np.int64, np.int32, np.uint8, np.bool_])


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 30).flatmap(lambda n: st.lists(hnp.arrays(DTYPES, n), min_size=1, max_size=4)))
def test_columns_are_written_as_pandas_writes_them(arrays):
    columns = {f"c{i}, {a.dtype}": a for i, a in enumerate(arrays)}  # a name that needs quoting
    assert columns_csv(columns) == pd.DataFrame(columns).to_csv(index=False)


INTS = st.sampled_from([np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.uint64])


@settings(max_examples=300, deadline=None)
@given(INTS.flatmap(lambda t: st.tuples(st.just(t), st.integers(np.iinfo(t).min, np.iinfo(t).max))), st.data())
def test_long_integer_columns_of_few_values_are_written_as_pandas_writes_them(dtype_low, data):
    """A column of few distinct values (a panel's query, key and distance) is written value by value once."""
    dtype, low = dtype_low
    top = min(int(np.iinfo(dtype).max), low + data.draw(st.integers(0, 300)))
    n = data.draw(st.integers(1, 600))
    values = data.draw(hnp.arrays(dtype, n, elements=st.integers(low, top)))
    columns = {"v": values, "w": values[::-1].copy()}
    assert columns_csv(columns) == pd.DataFrame(columns).to_csv(index=False)


def test_edge_values_and_the_panels():
    x = np.array([np.nan, 1e-8, -0.0, 3.4e38, 0.1, np.inf, -np.inf], dtype=np.float32)
    columns = {"x": x, "x64": x.astype(np.float64), "i": range(7), "names": ["a", "b,c", "d", "e", "f", "g", "h"]}
    assert columns_csv(columns) == pd.DataFrame(columns).to_csv(index=False)  # text: through pandas
    assert columns_csv({"x": x, "i": range(7)}).splitlines()[1:4] == [",0", "1e-08,1", "-0.0,2"]  # NaN: empty
    assert columns_csv({"x": x}).splitlines()[1] == '""'  # a row of one empty cell, as the csv module writes it
    panels = {"a": np.arange(6, dtype=np.float32).reshape(2, 3) / 7, "b": np.full((2, 3), np.nan)}
    q, k = np.meshgrid([5, 6], [0, 1, 2], indexing="ij")
    frame = pd.DataFrame({"query i": q.ravel(), "key j": k.ravel(), "r = j - i": (k - q).ravel()})
    frame["a"], frame["b"] = panels["a"].ravel(), panels["b"].ravel()
    assert panels_csv(panels, [5, 6], [0, 1, 2]) == frame.to_csv(index=False)
    with pytest.raises(ValueError):
        columns_csv({"a": np.zeros(2), "b": np.zeros(3)})
