"""AppTest: the real-models page for every shipped model, two side by side, hostile links and hostile uploads."""

from __future__ import annotations

import json
import math
import re
import urllib.parse

import numpy as np
import pytest

from posviz.encodings.model_hf import KINDS
from posviz.encodings.model_layers import reach_curve
from posviz.encodings.model_masks import mask_kinds
from posviz.encodings.models import CONFIG_DIR, model_positions, shipped_models
from posviz.figures.layout import CHAR_EM, TITLE_PAD, look
from posviz.ui.models.links import page_links
from posviz.ui.models.settings import SHIPPED

from .conftest import (
    array,
    assert_healthy,
    chart,
    charts,
    errors,
    open_models,
    open_page,
    tables,
    value_of,
    warnings,
)

CONFIGS = shipped_models()
DEFAULT_POSITION = 100_000


def expected_charts(slug: str, position: int) -> set[str]:
    """The chart keys the page draws for one model, worked out from the encodings (not from the page)."""
    mp = model_positions(CONFIGS[slug])
    keys = {"fig_models_a_strip", "fig_models_a_masks", "fig_models_a_reach"}
    groups = len(set(spec for _, spec in mp.ropes))
    keys |= {f"fig_models_a_{what}_{i}" for i in range(groups) for what in ("invfreq", "wavelength")}
    windows = [w for _, w, _ in mask_kinds(mp.layers) if w]
    if windows and position + 1 > 400:
        keys.add("fig_models_a_masks_near")
    if mp.t5 is not None:
        keys.add("fig_models_a_t5")
    if mp.alibi is not None:
        keys.add("fig_models_a_alibi")
    return keys


def exactly(at, key: str):
    """The chart with element key ``key`` (``chart`` matches a prefix: masks would match masks_near too)."""
    (found,) = [c for c in charts(at) if c.key == key]
    return found


def upload(at, data: bytes, name: str = "config.json"):
    at.file_uploader(key="models_upload").set_value((name, data, "application/json"))
    return at.run()


@pytest.fixture(scope="module")
def default():
    return open_models()


def test_defaults_render(default):
    at = default
    assert_healthy(at)
    assert at.title[0].value.startswith("Real models")
    assert value_of(at, "model") == "llama-3.1-8b" and value_of(at, "vs") == "none"
    assert value_of(at, "position") == DEFAULT_POSITION and value_of(at, "layers") == 32
    assert {c.key for c in charts(at)} == expected_charts("llama-3.1-8b", DEFAULT_POSITION)
    for c in charts(at):
        assert c.title.strip() and "Llama-3.1-8B" in c.title and c.size < 400_000, c.key
    assert any("llama3 scaling" in m.value for m in at.markdown)


@pytest.mark.parametrize("slug", SHIPPED)
def test_every_shipped_model_opens_and_draws_its_charts(slug):
    at = open_models(model=slug)
    assert_healthy(at)
    assert value_of(at, "model") == slug
    mp = model_positions(CONFIGS[slug])
    position = min(DEFAULT_POSITION, (mp.extended_context or mp.max_position or 2**20) - 1)
    assert {c.key for c in charts(at)} == expected_charts(slug, position)
    strip = chart(at, "models_a_strip")
    z = array(strip.spec["data"][0]["z"])
    assert z.shape == (2, mp.num_layers)
    np.testing.assert_array_equal(z[0], [KINDS.index(x.attention) for x in mp.layers])
    np.testing.assert_array_equal(z[1], [len(KINDS) if x.rope else len(KINDS) + 1 for x in mp.layers])
    reach = chart(at, "models_a_reach")
    np.testing.assert_array_equal(array(reach.spec["data"][0]["y"]), reach_curve(mp.layers, position))


def test_inv_freq_chart_is_the_models_rope():
    at = open_models(model="gemma-3-27b", position="5000")
    assert_healthy(at)
    mp = model_positions(CONFIGS["gemma-3-27b"])
    for i, kind in enumerate(("full", "sliding")):  # two distinct RoPEs: base 1e6 linear x8, base 1e4 unscaled
        c = chart(at, f"models_a_invfreq_{i}")
        scaled = array(c.spec["data"][-1]["y"])
        np.testing.assert_allclose(scaled, mp.rope(kind)[0].numpy().astype(np.float32), rtol=1e-6)
    full = array(chart(at, "models_a_invfreq_0").spec["data"][-1]["y"])
    assert math.isclose(full[0], 1 / 8, rel_tol=1e-6)  # linear x8: the fastest pair turns 1/8 radian per token


@pytest.mark.parametrize("position, which", [("4095", "long factors"), ("4096", "short factors")])
def test_longrope_switches_factors_at_the_trained_context(position, which):
    at = open_models(model="phi-3.5-mini", position=position)  # frequencies for L + 1 tokens
    assert_healthy(at)
    mp = model_positions(CONFIGS["phi-3.5-mini"])
    c = chart(at, "models_a_invfreq_0")
    names = [t.get("name", "") for t in c.spec["data"]]
    assert any(which in n for n in names), names
    used = mp.rope("full", int(position) + 1)[0].numpy().astype(np.float32)
    np.testing.assert_allclose(array(c.spec["data"][-1]["y"]), used, rtol=1e-6)


def test_window_view_shows_the_128_token_window():
    at = open_models(model="gpt-oss-20b", position="20000")
    assert_healthy(at)
    near = chart(at, "models_a_masks_near")
    z, x = array(near.spec["data"][0]["z"]), array(near.spec["data"][0]["x"])
    assert list(x[[0, -1]]) == [20000 - 255, 20000] and len(x) == 256  # every key of two windows
    assert z[0].sum() == 256 and z[1].sum() == 128  # full sees all shown keys, sliding the last 128
    assert list(x[z[1] == 1][[0, -1]]) == [20000 - 127, 20000]


def test_reach_follows_the_layers_slider():
    at = open_models(model="mistral-7b", position="30000", layers="5")
    assert_healthy(at)
    y = array(chart(at, "models_a_reach").spec["data"][0]["y"])
    assert list(y) == [0, 4095, 8190, 12285, 16380, 20475]  # a 4,096 window carries 4,095 tokens per layer


def test_two_models_side_by_side():
    at = open_models(model="gemma-3-27b", vs="llama-4-scout", position="50000")
    assert_healthy(at)
    keys = {c.key for c in charts(at)}
    assert {k.replace("_b_", "_a_") for k in keys if "_b_" in k} == expected_charts("llama-4-scout", 50_000)
    assert {k for k in keys if "_a_" in k} == expected_charts("gemma-3-27b", 50_000)
    assert "gemma-3-27b-it" in chart(at, "models_a_strip").title
    assert "Llama-4-Scout-17B-16E" in chart(at, "models_b_strip").title
    heads = [h.value for h in at.subheader]
    assert "gemma-3-27b-it" in heads and "Llama-4-Scout-17B-16E" in heads
    assert len(tables(at)) == 4 and not at.table  # facts and RoPE, one of each per model, as static tables


def test_the_shorter_model_beside_is_clipped_with_a_note():
    at = open_models(model="gpt2", vs="llama-3.1-8b", position="5000")
    assert not at.exception and not warnings(at)  # within the longer model's context: no link notice
    assert value_of(at, "position") == 5000
    assert any("reads at most 1,024 tokens" in i.value for i in at.info)
    assert "position 1,023" in exactly(at, "fig_models_a_masks").title
    assert "position 5,000" in exactly(at, "fig_models_b_masks").title


@pytest.mark.parametrize(
    "params, key",
    [
        ({"model": "nonexistent"}, "model"),
        ({"model": "<script>alert(1)</script>"}, "model"),
        ({"vs": "[x](http://evil.example)"}, "vs"),
        ({"position": "1e30"}, "position"),
        ({"position": "junk"}, "position"),
        ({"position": "-3"}, "position"),
        ({"model": "gpt2", "position": "5000"}, "position"),  # past GPT-2's 1,024 positions
        ({"layers": "0"}, "layers"),
        ({"layers": "abc"}, "layers"),
    ],
)
def test_hostile_links_give_notices_and_fall_back(params, key):
    at = open_models(**params)
    assert_healthy(at)
    notices = warnings(at)
    assert any(key in n for n in notices), notices
    assert not any("<script>" in n or "](http" in n for n in notices), notices
    assert charts(at)
    if key == "model":
        assert value_of(at, "model") == "llama-3.1-8b"


# ---------------------------------------------------------------- uploads


def shipped_bytes(slug: str) -> bytes:
    return (CONFIG_DIR / f"{slug}.json").read_bytes()


def test_a_valid_upload_replaces_the_first_model(default):
    config = json.loads(shipped_bytes("mistral-7b"))
    config.pop("_model_id"), config.pop("_source")
    config["sliding_window"] = 512
    at = upload(open_models(position="3000"), json.dumps(config).encode())
    assert_healthy(at)
    assert at.success and "uploaded config.json" in at.success[0].value
    strip = chart(at, "models_a_strip")
    assert "your config.json (mistral)" in strip.title
    assert "sliding (512): 32 layers" in [t.get("name") for t in strip.spec["data"]]
    assert {c.key for c in charts(at)} == expected_charts("mistral-7b", 3000)


def test_an_upload_beside_a_shipped_model():
    at = upload(open_models(vs="gpt2", position="800"), shipped_bytes("gemma-3-4b"))
    assert_healthy(at)
    assert "gemma-3-4b-it" in chart(at, "models_a_strip").title and "gpt2" in chart(at, "models_b_strip").title


HOSTILE = [
    (b"{not json", "not valid JSON"),
    (b"[1, 2, 3]", "JSON object, not a list"),
    (b'"a string"', "JSON object, not a str"),
    (b"", "not valid JSON"),
    (b"\xff\xfe\x00garbage", "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
    (b" " * (256 * 1024 + 1), "at most 256 KiB"),
    (json.dumps({"model_type": "llama", "num_hidden_layers": 10**9}).encode(), "num_hidden_layers"),
    (json.dumps({"model_type": "llama", "rope_theta": -1}).encode(), "rope_theta"),
    (json.dumps({"model_type": "llama", "max_position_embeddings": "lots"}).encode(), "max_position_embeddings"),
    (json.dumps({"model_type": "llama", "max_position_embeddings": 10**30}).encode(), "max_position_embeddings"),
    (b'{"model_type": "llama", "rope_theta": NaN}', "rope_theta"),
    (json.dumps({"model_type": "llama", "rope_scaling": {"rope_type": "[x](http://evil)", "factor": 2}}).encode(), ""),
    (json.dumps({"model_type": "t5", "num_heads": 8, "relative_attention_max_distance": 2**29}).encode(), None),
]


@pytest.mark.parametrize("data, says", HOSTILE, ids=lambda v: repr(v)[:40] if isinstance(v, bytes) else str(v))
def test_hostile_uploads_give_a_clear_error_and_change_nothing(data, says):
    at = upload(open_models(), data)
    assert not at.exception, [e.value for e in at.exception]
    if says is None:  # absurd but valid: read and drawn, without allocating for its size
        assert not errors(at) and charts(at)
        return
    (message,) = errors(at)
    shown = re.sub(r"\\(.)", r"\1", message)  # as rendered: the markup characters are escaped
    assert message.startswith("Your config.json was not read") and says in shown, message
    assert "](http" not in message and "<script>" not in message
    assert "Llama-3.1-8B" in message and "Llama-3.1-8B" in chart(at, "models_a_strip").title  # unchanged
    assert {c.key for c in charts(at)} == expected_charts("llama-3.1-8b", DEFAULT_POSITION)


def test_an_uploaded_name_is_cleaned():
    config = json.loads(shipped_bytes("llama-2-7b"))
    config["_model_id"] = "<b>evil</b>/[x](javascript:alert(1))"
    at = upload(open_models(position="100"), json.dumps(config).encode())
    assert_healthy(at)
    title = chart(at, "models_a_strip").title
    assert "<b>" not in title and "(" not in title.split(":")[0] and "javascript" in title


# ---------------------------------------------------------------- links to the scheme pages and lecture mode


@pytest.mark.parametrize(
    "slug",
    ["llama-3.1-8b", "gpt-oss-20b", "deepseek-v3", "t5-base", "bloom", "opus-mt-en-de", "gemma-4", "mistral-small-4"],
)
def test_links_open_the_scheme_page_with_the_models_settings(slug):
    mp = model_positions(CONFIGS[slug])
    for _, path, params, left in page_links(mp):
        assert not left
        at = open_page(f"pages/{path}.py", **params)
        assert not at.exception and not warnings(at), (path, params, warnings(at))
        if path == "rope":  # the scaling section opens, drawn with the model's values
            assert params["show_scaling"] == "true" and any("scal" in c.key for c in charts(at)), [
                c.key for c in charts(at)
            ]
        for key, raw in params.items():
            if key.startswith("show_"):
                continue
            value = value_of(at, key)
            if isinstance(value, bool):
                assert value == (raw == "true"), key
            elif isinstance(value, int | float):
                assert math.isclose(value, float(raw)), (key, value, raw)
            else:
                assert value == raw, key


def test_links_are_on_the_page_and_built_from_numbers():
    at = open_models(model="phi-3.5-mini")
    links = [m.value for m in at.markdown if "](rope?" in m.value]
    assert len(links) == 1 and "longrope is not on that page" in links[0]
    assert re.fullmatch(r"[-\w\[\]()'., ;?=&:]+", links[0].replace("\n", " ")), links[0]


VL = ["qwen2.5-vl", "qwen3-vl", "gemma-4", "pixtral-mistral-small-3.1"]


def vision_link(at) -> dict[str, str]:
    """The query of the page's one /vision link."""
    (link,) = [m.value for m in at.markdown if "](vision?" in m.value]
    return dict(urllib.parse.parse_qsl(re.search(r"\]\(vision\?([^)]*)\)", link).group(1)))


@pytest.mark.parametrize("slug", VL)
def test_a_vision_language_model_shows_its_mrope_and_opens_vision_with_it(slug):
    at = open_models(model=slug)
    assert_healthy(at)
    v = model_positions(CONFIGS[slug]).vision
    (table,) = [t for t in tables(at) if "vision head dim" in list(t["fact"])]
    facts = dict(zip(table["fact"], table["value"], strict=True))
    assert facts["patch size"] == f"{v.patch_size} × {v.patch_size} pixels"
    assert facts["vision head dim"].startswith(f"{v.head_dim}: {v.head_dim // 4} pairs")
    assert facts["merge size"].startswith(f"{v.merge} × {v.merge}") and facts["vision rope_theta"] == f"{v.theta:,.10g}"
    if v.mrope_section is not None:  # Qwen2.5-VL [16, 24, 24] in blocks, Qwen3-VL [24, 20, 20] interleaved
        assert facts["M-RoPE mrope_section (t, h, w pairs)"].startswith(str(list(v.mrope_section)))
        assert facts["t, h, w across the pairs"].startswith("interleaved" if v.interleaved else "in blocks")
    else:
        assert facts["M-RoPE"].startswith("none")
    if v.tokens_per_second is not None:
        assert facts["tokens_per_second"].startswith(f"{v.tokens_per_second:g} ")
    params = vision_link(at)
    vision = open_page("pages/vision.py", all_open=False, **params)
    assert not vision.exception and not warnings(vision), warnings(vision)  # no link notice
    assert vision.radio(key="encoder").value == params["encoder"]
    assert vision.slider(key="merge").value == v.merge
    assert len(charts(vision)) == 6  # the link opens the offset heatmap and the encoders' split
    if v.mrope_section is not None:
        assert vision.radio(key="vl_model").value == v.model_type == params["vl_model"]
    if v.tokens_per_second is not None:
        assert vision.number_input(key="tokens_per_second").value == v.tokens_per_second


LECTURE = look(True)


def test_lecture_mode_enlarges_and_wraps(default):
    at = open_models(lecture="1", model="llama-4-scout")
    assert_healthy(at)
    for c in charts(at):
        assert c.spec["layout"]["font"]["size"] == 20, c.key
        size = c.spec["layout"]["title"]["font"]["size"]  # every title line fits the narrowest lecture chart
        assert all(len(line) * CHAR_EM * size <= LECTURE.width - 2 * TITLE_PAD for line in c.title.split("<br>"))
    plain = {c.key: c.spec["layout"]["height"] for c in charts(open_models(model="llama-4-scout"))}
    assert all(c.spec["layout"]["height"] > plain[c.key] for c in charts(at))


def test_nothing_is_computed_in_the_page_for_a_huge_context():
    # Llama 4 Scout reads 10,485,760 tokens: the views draw a strided sample, never a matrix of that size
    at = open_models(model="llama-4-scout", position="10485759")
    assert_healthy(at)
    assert sum(c.size for c in charts(at)) < 1_000_000
    assert "position 10,485,759" in exactly(at, "fig_models_a_masks").title


def test_a_new_model_opens_at_its_own_depth():
    """Changing the model (or uploading) does not keep the last model's layers n."""
    at = open_models(model="gpt2", layers="6")
    assert value_of(at, "layers") == 6
    at.selectbox(key="model").set_value("deepseek-v3").run()
    assert not at.exception
    assert value_of(at, "layers") == 61
    at.slider(key="layers").set_value(10).run()
    assert value_of(at, "layers") == 10  # moving the slider itself is kept
    upload(at, json.dumps(dict(CONFIGS["llama-3.2-1b"])).encode())
    at.run()
    assert value_of(at, "layers") == 61  # the bound (the upload's 16 layers are drawn: sides clip)


# ---------------------------------------------------------------- models by Hub id, from a local Hub


@pytest.fixture(scope="module")
def local_hub():
    """A local server answering like the Hub (tests/data/local_hub.py), as HF_ENDPOINT: nothing reaches the internet."""
    from posviz import hub
    from tests.data.local_hub import LocalHub

    with pytest.MonkeyPatch.context() as mp, LocalHub(slow_for=5.0) as server:
        mp.setenv("HF_ENDPOINT", server.url)
        mp.delenv("HF_HUB_OFFLINE", raising=False)
        mp.setattr(hub, "TIMEOUT", 1.0)  # the slow repository times out quickly
        hub.CACHE.clear()
        yield server
        hub.CACHE.clear()


def test_a_hub_id_in_the_link_opens_that_model(local_hub):
    at = open_models(model="org/llama-tiny")
    assert_healthy(at)
    assert not warnings(at) and not errors(at)
    assert value_of(at, "model") == "org/llama-tiny"
    assert at.query_params["model"] == "org/llama-tiny"  # the address bar is the link
    assert "llama-tiny" in chart(at, "models_a_strip").title
    facts = {r["fact"]: r["value"] for _, r in tables(at)[0].iterrows()}
    assert facts["checkpoint"] == "org/llama-tiny" and facts["layers"] == "6"
    assert value_of(at, "layers") == 6  # the Hub model's own depth bounds the slider
    assert any("fetched from the Hugging Face Hub" in c.value for c in at.caption)
    assert local_hub.hits["/org/llama-tiny/resolve/main/config.json"] == 1


def test_a_revision_and_a_hub_model_beside_a_shipped_one(local_hub):
    at = open_models(model="gpt2", vs="org/llama-tiny@v2")
    assert_healthy(at)
    assert not warnings(at)
    assert "llama-tiny" in chart(at, "models_b_strip").title
    assert len(array(chart(at, "models_b_strip").spec["data"][0]["z"])[0]) == 4  # revision v2: 4 layers


def test_a_hub_vision_language_model_links_to_vision(local_hub):
    at = open_models(model="org/qwen2-vl")
    assert_healthy(at)
    assert not warnings(at)
    params = vision_link(at)
    assert params["vl_model"] == "qwen2_vl"


@pytest.mark.parametrize(
    "ref, says",
    [
        ("org/gated", "gated or private"),
        ("org/private", "no model"),
        ("org/missing", "no model"),
        ("org/no-config", "has no config.json"),
        ("org/huge", "larger than 256 KiB"),
        ("org/not-json", "not valid JSON"),
        ("org/refused", "num_hidden_layers"),
        ("org/llama-tiny@nope", "no such revision"),
        ("org/slow", "did not answer within 10 s"),
        ("org/away", "not followed"),
    ],
)
def test_each_hub_failure_has_its_own_notice_and_the_page_works(local_hub, ref, says):
    at = open_models(model=ref)
    assert_healthy(at)
    notices = [n.replace("\\", "") for n in warnings(at)]  # markdown escapes off
    assert len(notices) == 1 and says.lower() in notices[0].lower(), notices
    assert "Llama-3.1-8B" in notices[0]  # what the page shows instead
    assert "Llama-3.1-8B" in chart(at, "models_a_strip").title and len(charts(at)) >= 5


def test_a_server_without_hub_access_says_so_once(local_hub, monkeypatch):
    from posviz import hub

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub.CACHE.clear()
    before = sum(local_hub.hits.values())
    at = open_models(model="org/llama-tiny", vs="org/qwen2-vl")
    assert_healthy(at)
    (notice,) = warnings(at)
    assert "no access to the Hugging Face Hub" in notice and "Your own config" in notice
    assert sum(local_hub.hits.values()) == before  # not one request
    hub.CACHE.clear()


@pytest.mark.parametrize("ref", ["a--b/c", "org/x@..", "-org/x", "org/x/y"])
def test_an_invalid_hub_id_in_the_link_sends_nothing(local_hub, ref):
    before = sum(local_hub.hits.values())
    at = open_models(model=ref)
    assert_healthy(at)
    assert any("is not a shipped config or a Hub model id" in n for n in warnings(at)), warnings(at)
    assert value_of(at, "model") == "llama-3.1-8b" and "model" not in at.query_params
    assert sum(local_hub.hits.values()) == before


def test_the_text_box_opens_a_hub_model_and_writes_the_link(local_hub):
    at = open_models()
    at.text_input(key="_models_hub_model").set_value("org/llama-tiny").run()
    assert_healthy(at)
    assert at.query_params["model"] == "org/llama-tiny"
    assert "llama-tiny" in chart(at, "models_a_strip").title
    assert at.text_input(key="_models_hub_model").value == ""
    at.text_input(key="_models_hub_vs").set_value("not an id/").run()
    assert any("was not opened" in n for n in warnings(at)), warnings(at)
    assert "vs" not in at.query_params
    at.selectbox(key="model").set_value("gpt2").run()  # back to a shipped model from the list
    assert at.query_params["model"] == "gpt2" and "gpt2" in chart(at, "models_a_strip").title


def test_a_model_in_session_state_goes_into_the_link_and_a_page_switch_forgets_it():
    """A value handed to the list (as a deck's slide does) is drawn and linked; leaving the page drops it."""
    at = open_models()
    at.session_state["model"] = "gpt2"
    at.run()
    assert at.query_params["model"] == "gpt2" and "gpt2" in chart(at, "models_a_strip").title
    at.query_params.clear()
    at.switch_page("pages/rope.py").run()
    at.query_params.clear()
    at.switch_page("pages/models.py").run()
    assert value_of(at, "model") == "llama-3.1-8b" and "model" not in at.query_params
