"""The models page's plain-Python parts: snippets rebuild the views, lessons and links say the models' facts."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

from posviz.encodings.model_bias import bucket_profile
from posviz.encodings.model_layers import reach_curve
from posviz.encodings.model_load import read_model
from posviz.encodings.model_masks import key_masks, reach_curves
from posviz.encodings.model_rope_groups import reads_seq_len, rope_groups
from posviz.encodings.models import model_positions, shipped_models
from posviz.figures.model_facts import model_facts
from posviz.figures.model_rope import ranges, rope_facts
from posviz.ui.models.links import link_markdown, page_links
from posviz.ui.models.notes import lesson
from posviz.ui.models.settings import SHIPPED, UNBOUNDED_CONTEXT, limits
from posviz.ui.models.shipped import said, sentences, unmarked
from posviz.ui.models.snippets import MODELS_PARTS, models_snippet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.models.sides import load

CONFIGS = shipped_models()


def run(code: str) -> dict:
    scope: dict = {}
    exec(compile(code, "<snippet>", "exec"), scope)  # noqa: S102 - our own generated code
    return scope


def test_the_choice_list_is_every_shipped_config():
    assert tuple(sorted(CONFIGS)) == SHIPPED and len(SHIPPED) >= 20


@pytest.mark.parametrize("slug", ["llama-3.1-8b", "gemma-3-27b", "phi-3.5-mini", "deepseek-v3", "qwen2.5-7b-yarn"])
def test_rope_snippet_rebuilds_the_view(slug):
    mp = model_positions(CONFIGS[slug])
    seq_len = 50_001 if reads_seq_len(mp) else None
    groups = rope_groups(read_model(slug), seq_len)
    assert groups
    for g in groups:
        got = run(models_snippet(slug, part="rope", kind=g.kinds[0], seq_len=seq_len))
        np.testing.assert_allclose(got["inv_freq"].numpy(), g.inv_freq, rtol=1e-12)
        np.testing.assert_allclose(got["default"].numpy(), g.default, rtol=1e-12)
        np.testing.assert_array_equal(got["never"].numpy(), g.never)


@pytest.mark.parametrize("slug, position", [("gpt-oss-20b", 20_000), ("llama-4-scout", 100_000), ("t5-base", 300)])
def test_mask_and_reach_snippets_rebuild_the_views(slug, position):
    v = key_masks(read_model(slug).layers, position)
    got = run(models_snippet(slug, part="masks", position=position))
    np.testing.assert_array_equal(got["k_pos"].numpy(), v.k_pos)
    np.testing.assert_array_equal(got["masks"].numpy(), v.masks)
    r = reach_curves(read_model(slug).layers[:7], position)
    got = run(models_snippet(slug, part="reach", position=position, layers=7))
    np.testing.assert_array_equal(got["reach"], r.reach)


def test_family_snippets_run():
    assert run(models_snippet("bloom", part="alibi"))["slopes"].shape == (112,)
    t5 = run(models_snippet("t5-base", part="t5"))
    t = read_model("t5-base").t5
    v = bucket_profile(t.num_buckets, t.max_distance)
    np.testing.assert_array_equal(t5["bucket"].numpy(), v.bucket)  # every distance up to 256: all drawn
    assert len(run(models_snippet("mistral-7b", part="strip"))["layers"]) == 32
    with pytest.raises(ValueError, match="part"):
        models_snippet("gpt2", part="nope")
    assert "strip" in MODELS_PARTS


def test_an_upload_snippet_reads_a_file():
    code = models_snippet("", part="strip")
    assert 'open("config.json", "rb")' in code and "shipped_models" not in code


def test_reach_view_counts_only_windowed_layers_separately():
    mp = model_positions(CONFIGS["gemma-3-27b"])
    v = reach_curves(read_model("gemma-3-27b").layers[:62], 100_000)
    np.testing.assert_array_equal(v.reach, reach_curve(mp.layers, 100_000))
    assert v.windowed[-1] == 52 * 1023  # 52 sliding layers of 1,024 tokens
    assert reach_curves(read_model("llama-2-7b").layers[:32], 100).windowed is None  # no windows: no second curve


def test_t5_view_stays_small_for_an_absurd_max_distance():
    data = b'{"model_type": "t5", "num_heads": 8, "relative_attention_max_distance": 536870912}'
    t = read_model("", data).t5
    v = bucket_profile(t.num_buckets, t.max_distance)
    assert len(v.r) < 20_000 and v.r[0] == -2 * 2**29 and v.r[-1] == 2 * 2**29
    assert v.bucket.max() == 31 and v.bucket.min() == 0


@pytest.mark.parametrize(
    "data, says",
    [
        (b"{", "not valid JSON"),
        (b"null", "JSON object"),
        (b'{"model_type": "llama", "num_attention_heads": true}', "num\\_attention\\_heads"),
        (b'{"model_type": "llama", "rope_scaling": {"rope_type": "yarn"}}', "factor"),
        (b" " * (256 * 1024 + 1), "256 KiB"),
    ],
)
def test_load_refuses_hostile_uploads_with_a_message(data, says):
    m = load("", data)
    assert m.mp is None and says in m.error


def test_limits_follow_the_model():
    assert limits("gpt2").context == 1024 and limits("gpt2").num_layers == 12
    assert limits("llama-4-scout").context == 10_485_760
    assert limits("bloom").context == 2**20  # no limit in the config: the page offers 2^20 positions
    assert limits("none").context == 1


@pytest.mark.parametrize("slug", SHIPPED)
def test_every_model_has_a_lesson_and_a_link(slug):
    mp = model_positions(CONFIGS[slug])
    text = lesson(mp, slug)
    assert text.startswith(f"**{slug}** ") and text.endswith(".") and len(text) < 450
    links = page_links(mp)
    assert all(path in ("rope", "t5", "alibi", "sinusoidal", "vision") for _, path, _, _ in links)
    assert (mp.vision is not None) == any(path == "vision" for _, path, _, _ in links)
    assert links or not any(x.rope for x in mp.layers)  # Kimi Linear: no layer has position encoding to open
    assert link_markdown(mp).count("- [Open ") == len(links)


@pytest.mark.parametrize(
    "slug, facts",
    [
        ("llama-4-scout", ["12 of its 48 layers have no position encoding", "8,192-token chunk", "hard cut"]),
        ("gpt-oss-20b", ["12 of 24 layers see only the last 128 tokens", "YaRN ×32"]),
        ("gemma-3-27b", ["52 of 62 layers", "10,000 and 1,000,000", "linear"]),
        ("mistral-7b", ["4,095 tokens per layer", "131,040"]),
        ("deepseek-v3", ["64 of each head's 192", "multi-head latent attention"]),
        ("pythia-1.4b", ["32 of each head's 128", "partial rotary"]),
        ("phi-3.5-mini", ["LongRoPE", "4,096"]),
        ("llama-3.1-8b", ["8,192-token training context to 131,072", "2,048", "divided by 8"]),
        ("gpt2", ["1,024 positions", "1,025 tokens"]),
        ("bert-base-uncased", ["512 positions"]),
        ("t5-base", ["32 buckets", "0 to 7", "past 128"]),
        ("bloom", ["112 heads", "no length limit"]),
        ("opus-mt-en-de", ["[sin | cos]", "512 rows"]),
        ("smollm3-3b", ["9 of its 36 layers have no position encoding"]),
    ],
)
def test_lessons_state_the_models_facts(slug, facts):
    text = lesson(model_positions(CONFIGS[slug]), slug)
    for fact in facts:
        assert fact in text, (fact, text)


def test_llama2_lesson_counts_the_pairs_that_never_turn():
    # base 10,000, 64 pairs: pair k turns every 2 pi 10000^(k/64) tokens; it exceeds 4,096 from k = 46 on
    never = sum(1 for k in range(64) if 2 * math.pi * 10000 ** (k / 64) > 4096)
    assert f"{never} of its 64 pairs never complete a turn" in lesson(model_positions(CONFIGS["llama-2-7b"]), "x")


def test_links_leave_out_what_the_page_cannot_show():
    (what, path, params, left) = page_links(model_positions(CONFIGS["bert-base-uncased"]))[0]
    assert path == "sinusoidal" and "dim" not in params and left == ["dim 768 is past the page's 512"]
    assert "it opens with its own default" in link_markdown(model_positions(CONFIGS["bert-base-uncased"]))
    phi = page_links(model_positions(CONFIGS["phi-3.5-mini"]))[0]
    assert phi[2]["method"] == "default" and "longrope is not on that page" in phi[0]
    scout = page_links(model_positions(CONFIGS["llama-4-scout"]))[0][2]
    assert scout["seq_len"] == str(2**20)  # the RoPE page's longest curve, not 10,485,760


def test_tables():
    assert ranges(np.array([3, 4, 5, 9, 11, 12])) == "3–5, 9, 11–12" and ranges(np.array([], dtype=int)) == ""
    facts = model_facts(slug="t5-base")
    assert dict(zip(facts["fact"], facts["value"], strict=True))["layers"] == "24 (12 encoder + 12 decoder)"
    rope = rope_facts(slug="gemma-3-27b", seq_len=None)
    assert list(rope.columns) == ["fact", "full layers (10)", "sliding layers (52)"]
    row = dict(zip(rope["fact"], rope["full layers (10)"], strict=True))
    assert row["base (rope_theta)"] == "1,000,000" and row["scaling (rope_type)"] == "linear"
    oss = rope_facts(slug="gpt-oss-20b", seq_len=None)
    assert list(oss.columns) == ["fact", "full and sliding layers (24)"]  # one RoPE shared by both kinds
    assert dict(zip(oss["fact"], oss.iloc[:, 1], strict=True))["truncate"] == "false"


def test_a_hub_snippet_fetches_the_same_config(monkeypatch):
    """The code under a Hub model's figures reads its config.json through posviz.hub (from a local Hub)."""
    from posviz import hub
    from tests.data.local_hub import LLAMA_TINY, LocalHub

    with LocalHub() as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        hub.CACHE.clear()
        got = run(models_snippet("org/llama-tiny@v2", part="strip"))
        hub.CACHE.clear()
    assert len(got["layers"]) == 4
    assert got["mp"] == model_positions({**LLAMA_TINY, "num_hidden_layers": 4})
    with pytest.raises(ValueError):
        models_snippet("org/x", part="nope")


def test_a_recurrent_gemma_table_says_it_has_no_limit():
    from transformers import CONFIG_MAPPING

    data = json.dumps(CONFIG_MAPPING["recurrent_gemma"]().to_dict()).encode()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        facts = dict(zip(*model_facts(slug="", upload=data).to_dict("list").values(), strict=True))
    assert facts["longest input"] == "no limit in the config" and facts["extended context"] == "no limit in the config"
    assert limits_of_upload(data).context == UNBOUNDED_CONTEXT


def limits_of_upload(data: bytes):
    from posviz.encodings.models import read_config
    from posviz.ui.models.settings import limits_of

    return limits_of(model_positions(read_config(data)))


@pytest.mark.parametrize("slug", SHIPPED)
def test_every_sentence_of_a_shipped_configs_prose_is_marked_for_translation(slug):
    """A shipped config's ``_source`` and ``_note`` are data the page shows: each sentence must be marked in
    posviz.ui.models.shipped, or it reads in English on a translated page."""
    config = CONFIGS[slug]
    left = [s for key in ("_source", "_note") for s in unmarked(str(config.get(key, "")))]
    assert not left, f"{slug}: add these sentences to posviz.ui.models.shipped.SENTENCES: {left}"


def test_a_shipped_source_of_the_class_defaults_pattern_keeps_its_names():
    text = CONFIGS["qwen3-vl"]["_source"]
    assert sentences(text) == [text] and not unmarked(text)
    assert said(text) == text  # English: unchanged
