"""LongRoPE, partial rotary dimensions and MLA's decoupled RoPE against values derived by hand and the
published reference code (Microsoft's Phi-3 ``Phi3LongRoPEScaledRotaryEmbedding``, DeepSeek's ``yarn_get_mscale``)."""

from __future__ import annotations

import inspect
import math

import pytest
import torch

import posviz.encodings.rope as rope
import posviz.i18n as i18n
from posviz.encodings.rope import rope_inv_freq
from posviz.encodings.rope_scaling import (
    ALL_METHODS,
    METHODS,
    ROPE_SCALING,
    RULES,
    longrope_attention_factor,
    method_source,
    mla_head_dims,
    mla_softmax_scale,
    rope_scaling,
    rotary_dim,
    rule_message,
    rule_pattern,
)

SHORT, LONG = [1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 8.0, 16.0]


def phi3_reference(dim: int, base: float, ext: list[float], scale: float, original: int) -> tuple[list[float], float]:
    """Microsoft's Phi-3 reference, a loop: inv_freq_k = 1 / (ext_k * base ** (2k / dim)); its scaling factor."""
    inv = [1.0 / (ext[k] * base ** (2 * k / dim)) for k in range(dim // 2)]
    factor = 1.0 if scale <= 1.0 else math.sqrt(1 + math.log(scale) / math.log(original))
    return inv, factor


def longrope(seq_len: int | None, **extra):
    opts = dict(short_factor=SHORT, long_factor=LONG, seq_len=seq_len, **extra)
    return rope_scaling("longrope", 8, base=10000.0, factor=32.0, original_max_position=4096, **opts)


def test_the_registry_holds_the_page_methods_and_longrope():
    assert METHODS == ("default", "linear", "dynamic", "yarn", "llama3")
    assert ALL_METHODS[-1] == "longrope" and ALL_METHODS[:-1] == METHODS
    assert not hasattr(rope, "rope_scaling")  # no forwarding: rope.py knows nothing of scaling


@pytest.mark.parametrize("method", ALL_METHODS)
def test_each_entry_names_its_options_as_its_function_does(method):
    """An option's default is the function's keyword default (Hugging Face's), in the same order."""
    m = ROPE_SCALING[method]
    keywords = inspect.signature(m.compute).parameters
    shared = ["inv_freq", "dim", "base", "factor", "original_max_position"]
    assert list(keywords)[: len(shared)] == shared
    own = {k: p.default for k, p in keywords.items() if k not in shared and k != "lenient"}
    assert own == {o.name: o.default for o in m.options}
    assert list(own) == [o.name for o in m.options]


@pytest.mark.parametrize("method", ALL_METHODS)
def test_each_function_runs_from_its_shown_source_alone(method):
    """The page shows a method's source; with math and torch alone it computes what rope_scaling does."""
    ns = {"math": math, "torch": torch}
    exec(compile(method_source(method), "<source>", "exec"), ns)  # noqa: S102 - our own code, the point of the test
    opts = dict(short_factor=SHORT, long_factor=LONG, seq_len=5000) if method == "longrope" else {}
    kw = dict(dim=8, base=10000.0, factor=4.0, original_max_position=16)
    want = rope_scaling(method, **kw, **opts)
    got = ns[ROPE_SCALING[method].compute.__name__](rope_inv_freq(8), **kw, **opts)
    assert torch.equal(got[0], want[0]) and got[1] == want[1]


@pytest.mark.parametrize("seq_len, ext", [(None, SHORT), (1, SHORT), (4096, SHORT), (4097, LONG), (131072, LONG)])
def test_longrope_switches_factors_past_the_trained_context(seq_len, ext):
    inv, att = longrope(seq_len)
    ref, ref_att = phi3_reference(8, 10000.0, ext, 32.0, 4096)
    torch.testing.assert_close(inv, torch.tensor(ref, dtype=torch.float64), rtol=1e-12, atol=0)
    # ln 32 / ln 4096 = 5 ln 2 / 12 ln 2: the attention factor is sqrt(17 / 12) exactly
    assert att == pytest.approx(math.sqrt(17 / 12), rel=1e-12) == ref_att


def test_longrope_by_hand():
    inv, _ = longrope(5000)
    assert inv.tolist() == pytest.approx([1 / 2, 0.1 / 4, 0.01 / 8, 0.001 / 16], rel=1e-12)


def test_longrope_attention_factor():
    assert longrope(None, attention_factor=1.5)[1] == 1.5
    assert longrope_attention_factor(1.0, 4096) == 1.0
    # Phi-3.5-mini: 131072 / 4096 = 32
    assert longrope_attention_factor(131072 / 4096, 4096) == pytest.approx(1.1902380714238083, rel=1e-12)


@pytest.mark.parametrize(
    "opts, words",
    [
        (dict(short_factor=None, long_factor=LONG), "short_factor"),
        (dict(short_factor=SHORT, long_factor=LONG[:3]), "long_factor: one number per pair, 4"),
        (dict(short_factor=[1.0, -2.0, 1.0, 1.0], long_factor=LONG), "positive"),
        (dict(short_factor=SHORT, long_factor=LONG, beta_fast=2.0), "no option beta_fast"),
    ],
)
def test_longrope_refuses_bad_factors(opts, words):
    with pytest.raises(ValueError, match=words):
        rope_scaling("longrope", 8, factor=2.0, original_max_position=16, **opts)


# --- llama3 with no smooth band (Llama 4 Scout: low_freq_factor == high_freq_factor == 1) -----------


def test_llama3_hard_cut_is_lenient_only():
    with pytest.raises(ValueError, match="low_freq"):
        rope_scaling("llama3", 128, base=500000.0, factor=16.0, original_max_position=8192,
                     low_freq_factor=1.0, high_freq_factor=1.0)  # fmt: skip
    inv, att = rope_scaling("llama3", 128, base=500000.0, factor=16.0, original_max_position=8192,
                            low_freq_factor=1.0, high_freq_factor=1.0, lenient=True)  # fmt: skip
    base = rope_inv_freq(128, base=500000.0)
    wavelen = 2 * math.pi / base
    expected = torch.where(wavelen > 8192, base / 16, base)  # every pair either kept or divided, none between
    assert torch.equal(inv, expected) and att == 1.0
    assert not torch.isnan(inv).any()
    assert 0 < int((wavelen > 8192).sum()) < 64


# --- which components rotate --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "head_dim, partial, expected",
    [(128, 0.25, 32), (80, 0.4, 32), (96, 1.0, 96), (64, 0.5, 32), (128, 0.75, 96)],
)
def test_rotary_dim(head_dim, partial, expected):
    # Pythia (rotary_pct 0.25), Phi-2 (0.4), Phi-3, Phi-1.5 (0.5), Phi-4-mini (0.75)
    assert rotary_dim(head_dim, partial) == expected


@pytest.mark.parametrize("head_dim, partial", [(90, 0.3), (128, 0.0), (128, 1.5), (1, 1.0), (10, 0.1)])
def test_rotary_dim_refuses(head_dim, partial):
    with pytest.raises(ValueError):
        rotary_dim(head_dim, partial)


def test_partial_rotary_frequencies_are_those_of_the_rotary_part():
    # GPT-NeoX: inv_freq = 1 / base ** (arange(0, rotary_dim, 2) / rotary_dim), not over head_dim
    inv, _ = rope_scaling("default", rotary_dim(128, 0.25), base=10000.0)
    assert inv.shape == (16,)
    assert inv[1].item() == pytest.approx(10000.0 ** (-2 / 32), rel=1e-12)


def test_mla_decoupled_rope():
    assert mla_head_dims(128, 64) == (64, 128, 192)  # DeepSeek-V3: 64 of 192 query/key components rotate
    with pytest.raises(ValueError):
        mla_head_dims(128, 63)


def test_mla_softmax_scale_carries_yarn_mscale():
    m = 0.1 * 1.0 * math.log(40) + 1  # DeepSeek's yarn_get_mscale(40, mscale_all_dim=1.0)
    assert mla_softmax_scale(192, factor=40.0, mscale_all_dim=1.0) == pytest.approx(192**-0.5 * m * m, rel=1e-12)
    assert m * m == pytest.approx(1.8739, abs=1e-4)
    assert mla_softmax_scale(192, factor=40.0, mscale_all_dim=None) == 192**-0.5
    # with mscale == mscale_all_dim the rotary attention factor is exactly 1
    _, att = rope_scaling("yarn", 64, base=10000.0, factor=40.0, original_max_position=4096,
                          mscale=1.0, mscale_all_dim=1.0)  # fmt: skip
    assert att == 1.0


# --- the rules' messages in the reader's language ----------------------------------------------------------
# The methods' functions are shown as source and run with math and torch alone, so they raise in English;
# rope_scaling gives each message in the run's language through its template in RULES.

RULE_CASES = [
    ("dynamic", 2, {}),
    ("yarn", 8, dict(beta_fast=1.0, beta_slow=8.0)),
    ("yarn", 8, dict(beta_fast=-1.0)),
    ("llama3", 8, dict(low_freq_factor=4.0, high_freq_factor=2.0)),
    ("longrope", 8, dict(short_factor=[1.0, -2.0, 1.0, 1.0], long_factor=LONG)),
]


def raised_by_function(method: str, dim: int, opts: dict) -> str:
    with pytest.raises(ValueError) as raised:
        ROPE_SCALING[method].compute(
            rope_inv_freq(dim), dim=dim, base=10000.0, factor=4.0, original_max_position=64, **opts
        )
    return str(raised.value)


@pytest.mark.parametrize("method, dim, opts", RULE_CASES)
def test_each_rule_of_a_shown_function_has_its_template(method, dim, opts):
    message = raised_by_function(method, dim, opts)
    templates = [t for t in RULES if rule_pattern(t).fullmatch(message)]
    assert len(templates) == 1, message
    assert templates[0].format(**rule_pattern(templates[0]).fullmatch(message).groupdict()) == message
    assert rule_message(message) == message  # English: unchanged


def test_rope_scaling_gives_a_rule_in_the_runs_language(monkeypatch):
    template = "beta_fast ({beta_fast}) must be at least beta_slow ({beta_slow}): the fast pairs turn more often."
    assert template in RULES
    zh = i18n.Catalogue("zh", messages={template: "beta_fast（{beta_fast}）不能小于 beta_slow（{beta_slow}）"})
    monkeypatch.setattr(i18n, "catalogue", lambda lang: zh)
    kw = dict(factor=4.0, original_max_position=64, beta_fast=1.0, beta_slow=8.0)
    with pytest.raises(ValueError) as english:
        rope_scaling("yarn", 8, **kw)
    assert str(english.value) == template.format(beta_fast=1, beta_slow=8)  # {:g} of 1.0 and 8.0
    with i18n.use("zh"), pytest.raises(ValueError) as chinese:
        rope_scaling("yarn", 8, **kw)
    assert str(chinese.value) == "beta_fast（1）不能小于 beta_slow（8）"
    assert rule_message("a message of no rule") == "a message of no rule"
