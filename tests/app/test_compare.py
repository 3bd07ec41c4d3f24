"""AppTest: the compare page, its properties table, and its links to every scheme's page."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from posviz.figures.compare_properties import property_rows
from posviz.schemes import COMPARED, compared_in
from posviz.ui.compare.links import page_links
from posviz.ui.compare.settings import CompareSettings

from .conftest import assert_healthy, chart, charts, open_compare, open_page, tables, value_of, warnings

CHARTS = 4
SCHEMES = [c.short for c in compared_in("core")]  # the default selection's names, in the registry's order
ALL = [c.short for c in COMPARED]  # every compared scheme: the links list them all
# Each compared scheme's page (not home) and its name: its link must open it cleanly.
LINKED = [
    (f"pages/{c.key if c.compared.opens is None else c.compared.opens}.py", c.short)
    for c in COMPARED
    if c.compared and c.compared.opens != ""
]


def test_every_compared_scheme_has_a_row_and_a_link():
    keys = [c.key for c in COMPARED]
    s = CompareSettings()
    assert list(property_rows(seq_len=s.seq_len, dim=s.dim, base=s.base, causal=s.causal, schemes="all")) == keys
    assert [key for key, _, _ in page_links(s)] == keys


@pytest.fixture(scope="module")
def default():
    return open_compare()


def test_defaults_render(default):
    at = default
    assert_healthy(at)
    assert len(charts(at)) == CHARTS
    assert value_of(at, "seq_len") == 32 and value_of(at, "causal") is True
    assert not at.table and not at.dataframe  # one way to draw a read-only table: static_table's HTML
    [table] = tables(at)  # a static table: every column visible, none cut off at the right
    assert list(table["scheme"]) == list(SCHEMES)
    assert not [c for c in table.columns if "time" in c or "µs" in c]  # dropped: see test_table_states_no_time
    nbytes = dict(zip(table["scheme"], table["position tensors (bytes)"].astype(int), strict=True))
    L, d, K = 32, 64, 8  # noqa: N806 - the paper's names
    assert nbytes["none"] == 0 and nbytes["sinusoidal"] == nbytes["learned absolute"] == L * d * 4  # (L, d) float32
    assert nbytes["Shaw"] == (2 * K + 1) * d * 4 + L * L * 8 + L * L * 4  # a^K, int64 index, float32 q·a
    grid = chart(default, "compare_terms")
    assert [a["text"] for a in grid.spec["layout"]["annotations"]][:8] == list(SCHEMES)


def test_table_states_no_time_and_no_smoothness_for_t5(default):
    """Times of a 32-token toy varied up to 1000x between page opens on a shared server: the page says
    why it shows none. T5's table is random per bucket, so nothing claims it is smooth in distance."""
    assert any("no time column" in m.value for m in default.markdown)
    s = CompareSettings()
    rows = property_rows(seq_len=s.seq_len, dim=s.dim, base=s.base, causal=s.causal)
    assert not any("smooth" in cell for cell in map(str, rows["t5"]))
    assert "last bucket" in rows["t5"][3]


def _links(at) -> dict[str, str]:
    """Scheme -> the URL of its link on the page."""
    text = next(m.value for m in at.markdown if "**RoPE**" in m.value)
    return dict(re.findall(r"- \*\*(.+?)\*\*: \[[^\]]+\]\(([^)]+)\)", text))


def test_links_carry_the_shared_settings():
    at = open_compare(seq_len="16", dim="32", seed="5", causal="false")
    assert_healthy(at)
    links = _links(at)
    assert set(links) == set(ALL)  # every compared scheme's page, whichever selection is drawn
    rope = parse_qs(urlparse(links["RoPE"]).query)
    assert urlparse(links["RoPE"]).path == "rope"
    assert rope["seq_len"] == ["16"] and rope["dim"] == ["32"] and rope["seed"] == ["5"]
    t5 = parse_qs(urlparse(links["T5"]).query)
    assert t5["q_len"] == ["16"] and t5["bidirectional"] == ["true"]
    assert parse_qs(urlparse(links["ALiBi"]).query)["causal"] == ["false"]


@pytest.mark.parametrize(("page", "scheme"), LINKED)
def test_each_link_opens_its_page_cleanly(page, scheme):
    at = open_compare(seq_len="16", dim="32", seed="5")
    params = {k: v[0] for k, v in parse_qs(urlparse(_links(at)[scheme]).query).items()}
    target = open_page(page, **params)
    assert_healthy(target)
    assert not warnings(target), warnings(target)
    for key, value in params.items():
        assert str(value_of(target, key)).lower() in (value.lower(), value + ".0"), key


@pytest.mark.parametrize(
    "key, raw",
    [("seq_len", "65"), ("seq_len", "-5"), ("dim", "abc"), ("dim", "256"), ("base", "inf"), ("causal", "<b>x</b>")],
)
def test_hostile_links_give_notices(key, raw):
    at = open_compare(**{key: raw})
    assert_healthy(at)
    assert any(key in w for w in warnings(at)), warnings(at)
    assert len(charts(at)) == CHARTS


@pytest.mark.parametrize("selection", ["beyond", "all"])
def test_a_selection_draws_its_schemes(selection):
    at = open_compare(schemes=selection, seq_len="12", dim="16")
    assert_healthy(at)
    assert not warnings(at), warnings(at)
    assert len(charts(at)) == CHARTS
    names = [c.short for c in compared_in(selection)]
    [table] = tables(at)
    assert list(table["scheme"]) == names
    grid = chart(at, "compare_terms")
    assert [a["text"] for a in grid.spec["layout"]["annotations"]][: len(names)] == names
    profile = chart(at, "compare_term_profile")
    assert [t["name"] for t in profile.spec["data"]] == names
    assert any("newer ones" in c.value for c in at.caption)  # what is fixed for them


def test_the_default_selection_is_the_first_eight(default):
    assert value_of(default, "schemes") == "core"
    assert not any("newer ones" in c.value for c in default.caption)
