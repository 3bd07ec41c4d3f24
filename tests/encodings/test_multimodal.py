"""Images and video: M-RoPE ids, t/h/w pairs and 2-D vision RoPE equal to transformers 5.23's own code.

The reference is the real code: ``get_rope_index`` and ``get_vision_position_ids`` of Qwen2-VL,
Qwen2.5-VL and Qwen3-VL called unbound on a stand-in holding only the config fields they read,
and the rotary modules built from tiny configs (no weights, no network).
"""

from __future__ import annotations

import math
import random
import types

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import Gemma4VisionConfig, PixtralVisionConfig
from transformers.models.gemma4 import modeling_gemma4 as g4
from transformers.models.pixtral import modeling_pixtral as px
from transformers.models.qwen2_5_vl.configuration_qwen2_5_vl import Qwen2_5_VLVisionConfig
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLModel, Qwen2_5_VLVisionRotaryEmbedding
from transformers.models.qwen2_vl import modeling_qwen2_vl as q2
from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig, Qwen2VLVisionConfig
from transformers.models.qwen3_vl import modeling_qwen3_vl as q3
from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig, Qwen3VLVisionConfig
from transformers.vision_utils import get_vision_position_ids

from posviz.encodings.multimodal import (
    apply_vision_rope,
    mrope_axes,
    mrope_position_ids,
    vision_offset_scores,
    vision_pair_dims,
    vision_rope_angles,
    vision_rope_frequencies,
)

MODEL_CLASSES = {"qwen2_vl": q2.Qwen2VLModel, "qwen2_5_vl": Qwen2_5_VLModel, "qwen3_vl": q3.Qwen3VLModel}
CASES_PER_SETTING = 60  # random sequences per (model, merge size)


def hf_rope_index(model, types_, images, videos, *, merge, tps, seconds):
    """transformers' own get_rope_index for one sequence, on a stand-in with only the config it reads."""
    cls = MODEL_CLASSES[model]
    me = types.SimpleNamespace()
    me.config = types.SimpleNamespace(
        vision_config=types.SimpleNamespace(spatial_merge_size=merge, tokens_per_second=tps)
    )
    me.get_vision_position_ids = types.MethodType(cls.get_vision_position_ids, me)
    kwargs = {}
    if model == "qwen2_5_vl" and seconds is not None:
        kwargs["second_per_grid_ts"] = seconds
    ids, _ = cls.get_rope_index(
        me,
        torch.zeros(1, len(types_), dtype=torch.long),
        torch.tensor([types_]),
        torch.tensor(images) if images else None,
        torch.tensor(videos) if videos else None,
        **kwargs,
    )
    return ids[:, 0]  # (3, seq)


def assert_ids_equal_transformers(model, types_, images, videos, *, merge, tps, seconds) -> None:
    """Our (3, seq) ids for one sequence are transformers' to the last id; ``seconds``: per video, or None."""
    ours = mrope_position_ids(
        torch.tensor(types_),
        images,
        videos,
        model=model,
        spatial_merge_size=merge,
        tokens_per_second=tps,
        seconds_per_grid=() if seconds is None else seconds,
    )
    ref = hf_rope_index(model, types_, images, videos, merge=merge, tps=tps, seconds=seconds)
    assert ours.dtype == torch.long and ours.shape == (3, len(types_))
    assert torch.equal(ours, ref), (model, merge, types_, images, videos, tps, seconds)


def random_sequence(rng: random.Random, model: str, merge: int):
    """Text, images and videos in random order; Qwen3-VL videos one run per frame with text between."""
    types_, images, videos = [0] * rng.randint(0, 3), [], []
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice((1, 2))
        h, w = merge * rng.randint(1, 4), merge * rng.randint(1, 4)
        tokens = (h // merge) * (w // merge)
        if types_ and types_[-1] == kind or rng.random() < 0.5:
            types_ += [0] * rng.randint(1, 4)  # same kinds back to back would be one run
        if kind == 1:
            t = rng.choice((1, 1, 2))
            images.append((t, h, w))
            types_ += [1] * (t * tokens)
            continue
        t = rng.choice((1, 2, 3, 8, 16))  # long videos outrun their grid
        videos.append((t, h, w))
        if model == "qwen3_vl":
            for frame in range(t):
                types_ += ([0] * rng.randint(1, 3) if frame else []) + [2] * tokens
        else:
            types_ += [2] * (t * tokens)
    types_ += [0] * rng.randint(0, 3)
    return types_, images, videos


@pytest.mark.parametrize("merge", [1, 2])
@pytest.mark.parametrize("model", list(MODEL_CLASSES))
def test_ids_equal_transformers_on_random_sequences(model, merge):
    rng = random.Random(f"{model}-{merge}")
    for _ in range(CASES_PER_SETTING):
        types_, images, videos = random_sequence(rng, model, merge)
        tps = rng.choice((1, 2, 4, 25))
        seconds = None
        if videos and rng.random() < 0.7:
            seconds = torch.tensor([rng.choice((0.5, 1.0, 2.0, 1 / 3, 0.1)) for _ in videos], dtype=torch.float32)
        assert_ids_equal_transformers(model, types_, images, videos, merge=merge, tps=tps, seconds=seconds)


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    model=st.sampled_from(list(MODEL_CLASSES)),
    merge=st.sampled_from([1, 2, 3]),
    tps=st.integers(1, 50),
    seconds=st.floats(0.0625, 4.0, width=32),  # bounds exact in float32
)
def test_ids_equal_transformers_property(seed, model, merge, tps, seconds):
    types_, images, videos = random_sequence(random.Random(seed), model, merge)
    per_video = torch.full((len(videos),), seconds, dtype=torch.float32) if videos else None
    assert_ids_equal_transformers(model, types_, images, videos, merge=merge, tps=tps, seconds=per_video)


def test_text_resumes_after_the_larger_side_and_a_long_video_overlaps_it():
    # text 2, image 4x6 patches (2x3 merged), text 1, video of 5 frames 2x2 patches (1x1), text 1
    types_ = torch.tensor([0, 0] + [1] * 6 + [0] + [2] * 5 + [0])
    ids = mrope_position_ids(types_, [(1, 4, 6)], [(5, 2, 2)], model="qwen2_vl")
    assert ids[:, 2:8].tolist() == [[2] * 6, [2, 2, 2, 3, 3, 3], [2, 3, 4, 2, 3, 4]]
    assert ids[:, 8].tolist() == [5, 5, 5]  # 2 + max(2, 3)
    assert ids[0, 9:14].tolist() == [6, 7, 8, 9, 10]  # frames run to 10 ...
    assert ids[:, 14].tolist() == [7, 7, 7]  # ... but text resumes at 6 + 1 in transformers 5.23
    original = mrope_position_ids(types_, [(1, 4, 6)], [(5, 2, 2)], model="qwen2_vl", resume="original")
    assert torch.equal(original[:, :14], ids[:, :14])  # images alone: the two rules agree
    assert original[:, 14].tolist() == [11, 11, 11]  # the original: largest id + 1


def test_original_rule_starts_every_block_past_the_largest_id():
    rng = random.Random(7)
    for _ in range(40):
        model = rng.choice(list(MODEL_CLASSES))
        types_, images, videos = random_sequence(rng, model, 2)
        ids = mrope_position_ids(torch.tensor(types_), images, videos, model=model, resume="original")
        bounds = [0] + [i for i in range(1, len(types_)) if types_[i] != types_[i - 1]] + [len(types_)]
        for a, b in zip(bounds[1:-1], bounds[2:], strict=True):
            assert int(ids[:, a:b].min()) == int(ids[:, :a].max()) + 1


def test_qwen25_seconds_space_the_frames():
    types_ = torch.tensor([0] + [2] * 4)
    ids = mrope_position_ids(types_, (), [(4, 2, 2)], model="qwen2_5_vl", tokens_per_second=2, seconds_per_grid=[1.5])
    assert ids[0, 1:].tolist() == [1 + 0, 1 + 3, 1 + 6, 1 + 9]  # frame * 1.5 s * 2 tokens/s


@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(token_types=torch.tensor([0, 1, 1]), image_grids=[(1, 3, 2)]), "spatial_merge_size"),
        (dict(token_types=torch.tensor([0, 1, 1]), image_grids=[(1, 2, 2)]), "token_types"),
        (dict(token_types=torch.tensor([0, 1]), image_grids=[(1, 2, 2), (1, 2, 2)]), "image_grids"),
        (dict(token_types=torch.tensor([0, 2])), "video_grids"),
        (dict(token_types=torch.tensor([0, 3])), "token_types"),
        (dict(token_types=torch.tensor([[0]])), "token_types"),
        (dict(token_types=torch.tensor([0.0])), "token_types"),
        (dict(token_types=torch.tensor([0]), model="llava"), "model"),
        (dict(token_types=torch.tensor([0]), spatial_merge_size=0), "spatial_merge_size"),
        (dict(token_types=torch.tensor([0]), image_grids=[(1, 2)]), "image_grids"),
        (dict(token_types=torch.tensor([0]), image_grids=[(0, 2, 2)]), "image_grids"),
        (dict(token_types=torch.tensor([0]), resume="later"), "resume"),
        (dict(token_types=torch.tensor([2]), video_grids=[(1, 2, 2)], seconds_per_grid=[1, 2]), "seconds_per_grid"),
        (dict(token_types=torch.tensor([0]), tokens_per_second=-1), "tokens_per_second"),
    ],
)
def test_bad_ids_input_names_the_argument(kwargs, word):
    with pytest.raises(ValueError, match=word):
        mrope_position_ids(**kwargs)


def random_section(rng: random.Random, n: int) -> list[int]:
    a, b = sorted(rng.randint(0, n) for _ in range(2))
    return [a, b - a, n - b]


def axes_of_module(recompose, section, n):
    """Feed the module's recomposition a (3, 1, 1, n) tensor whose axis-a row holds a: out comes the axis per pair."""
    me = types.SimpleNamespace(mrope_section=section)
    freq = torch.arange(3.0)[:, None, None, None].expand(3, 1, 1, n).clone()
    return recompose(me, freq).reshape(-1)[:n].long()  # (1, 1, 2n): the pairs, then again for rotate_half


@pytest.mark.parametrize("interleaved", [False, True])
def test_axes_equal_transformers_recomposition(interleaved):
    recompose = (
        q3.Qwen3VLTextRotaryEmbedding.recomposition_frequencies
        if interleaved
        else q2.Qwen2VLRotaryEmbedding.recomposition_frequencies
    )
    rng = random.Random(int(interleaved))
    for _ in range(200):
        n = rng.randint(1, 80)
        section = random_section(rng, n)
        assert torch.equal(mrope_axes(2 * n, section, interleaved=interleaved), axes_of_module(recompose, section, n))


def test_interleaved_by_hand():
    assert mrope_axes(12, [2, 2, 2], interleaved=True).tolist() == [0, 1, 2, 0, 1, 2]
    assert mrope_axes(12, [3, 2, 1], interleaved=True).tolist() == [0, 1, 2, 0, 1, 0]
    assert mrope_axes(12, [4, 1, 1], interleaved=True).tolist() == [0, 1, 2, 0, 0, 0]
    assert mrope_axes(12, [2, 2, 2]).tolist() == [0, 0, 1, 1, 2, 2]
    qwen3 = mrope_axes(128, [24, 20, 20], interleaved=True)
    assert qwen3[:6].tolist() == [0, 1, 2, 0, 1, 2] and qwen3[60:].tolist() == [0, 0, 0, 0]
    assert [int((qwen3 == a).sum()) for a in range(3)] == [24, 20, 20]


@pytest.mark.parametrize("interleaved", [False, True])
def test_text_rotary_forward_turns_each_pair_by_its_axis(interleaved):
    """The whole module, not just its recomposition: cos of (t, h, w) = (3, 50, 700) per pair."""
    if interleaved:
        cfg = Qwen3VLTextConfig(hidden_size=64, num_attention_heads=2, head_dim=32, rope_parameters=None)
        cfg.rope_parameters = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [6, 5, 5]}
        module, section = q3.Qwen3VLTextRotaryEmbedding(cfg), [6, 5, 5]
    else:
        cfg = Qwen2VLTextConfig(hidden_size=64, num_attention_heads=2)
        cfg.rope_parameters = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [4, 6, 6]}
        module, section = q2.Qwen2VLRotaryEmbedding(cfg), [4, 6, 6]
    pos = torch.tensor([3, 50, 700]).view(3, 1, 1)  # (3, batch, seq)
    cos, _ = module(torch.zeros(1, dtype=torch.float32), pos)
    axes = mrope_axes(32, section, interleaved=interleaved)
    expected = torch.cos(pos.view(3)[axes].float() * module.inv_freq)
    torch.testing.assert_close(cos[0, 0, :16], expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize(
    "args, word",
    [((12, [2, 2]), "mrope_section"), ((12, [2, 2, 3]), "mrope_section"), ((11, [2, 2, 1]), "rotary_dim"),
     ((12, [7, -1, 0]), "mrope_section"), ((0, [0, 0, 0]), "rotary_dim")],
)  # fmt: skip
def test_bad_axes_input_names_the_argument(args, word):
    with pytest.raises(ValueError, match=word):
        mrope_axes(*args)


# --- vision encoders --------------------------------------------------------------------------


def vision_case(model: str, dim: int, theta: float):
    """(config, rotary module, position_ids in the model's own order as (row, col), apply function)."""
    rope = {"rope_type": "axial", "rope_theta": theta}
    heads = 2
    if model == "pixtral":
        cfg = PixtralVisionConfig(hidden_size=dim * heads, num_attention_heads=heads)
        cfg.rope_parameters = rope
        return cfg, px.PixtralVisionRotaryEmbedding(cfg)
    if model == "gemma4":
        cfg = Gemma4VisionConfig(head_dim=dim, hidden_size=dim * heads, num_attention_heads=heads)
        cfg.rope_parameters = rope
        return cfg, g4.Gemma4VisionRotaryEmbedding(cfg)
    if model == "qwen2_vl":
        cfg = Qwen2VLVisionConfig(embed_dim=dim * heads, num_heads=heads)
        cfg.rope_parameters = rope
        return cfg, q2.Qwen2VLVisionRotaryEmbedding(cfg)
    if model == "qwen2_5_vl":
        cfg = Qwen2_5_VLVisionConfig(hidden_size=dim * heads, num_heads=heads)
        cfg.rope_parameters = rope
        return cfg, Qwen2_5_VLVisionRotaryEmbedding(cfg)
    cfg = Qwen3VLVisionConfig(hidden_size=dim * heads, num_heads=heads)
    cfg.rope_parameters = rope
    return cfg, q3.Qwen3VLVisionRotaryEmbedding(cfg)


def model_positions(model: str, h: int, w: int, merge: int) -> torch.Tensor:
    """(N, 2) (row, col) of each patch in the order the model's vision tower lays them out."""
    if model == "pixtral":  # PixtralTransformer.forward
        rr, cc = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        return torch.stack([rr.flatten(), cc.flatten()], dim=-1)
    if model == "gemma4":  # Gemma4ImageProcessor: (x, y) = (column, row), flipped back here
        xy = torch.stack(torch.meshgrid(torch.arange(w), torch.arange(h), indexing="xy"), dim=-1).reshape(-1, 2)
        return xy.flip(-1)
    return get_vision_position_ids(torch.tensor([[1, h, w]]), merge)  # Qwen: blocks of merge x merge


VISION_MODELS = ["pixtral", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "gemma4"]


@pytest.mark.parametrize("model", VISION_MODELS)
def test_vision_angles_and_rotation_equal_transformers(model):
    rng = random.Random(model)
    for _ in range(25):
        dim = 4 * rng.randint(1, 20)
        theta = rng.choice((100.0, 10000.0, 1e6))
        merge = rng.choice((1, 2))
        h, w = merge * rng.randint(1, 6), merge * rng.randint(1, 6)
        cfg, module = vision_case(model, dim, theta)
        rc = model_positions(model, h, w, merge)  # (N, 2) row, col in the model's order
        order = rc[:, 0] * w + rc[:, 1]  # our row-major index of each
        angles = vision_rope_angles(model, cfg, h, w)[order]  # (N, dim/2) in the model's patch order
        pairs = vision_pair_dims(model, dim)
        model_ids = rc.flip(-1)[None] if model == "gemma4" else rc  # gemma4 takes (x, y), batched
        cos, sin = module(torch.zeros(1), model_ids)
        cos, sin = cos.reshape(-1, dim), sin.reshape(-1, dim)
        for side in (0, 1):  # both channels of a pair see the same angle
            assert torch.equal(cos[:, pairs[:, side]], angles.cos()), (model, dim, h, w)
            assert torch.equal(sin[:, pairs[:, side]], angles.sin()), (model, dim, h, w)
        # the rotation itself, with the model's own apply function
        q = torch.randn(len(rc), heads := 2, dim, generator=torch.Generator().manual_seed(dim))
        if model == "gemma4":
            ref = g4.apply_multidimensional_rope(q[None], cos[None], sin[None], model_ids, unsqueeze_dim=2)[0]
        elif model == "pixtral":
            ref = px.apply_rotary_pos_emb(q.transpose(0, 1), q.transpose(0, 1), cos, sin, unsqueeze_dim=0)[0]
            ref = ref.transpose(0, 1)
        else:
            ref = q2.apply_rotary_pos_emb_vision(q, q, cos, sin)[0]
        ours = apply_vision_rope(q.transpose(0, 1), angles, pairs).transpose(0, 1)  # (heads, N, dim) inside
        torch.testing.assert_close(ours, ref, rtol=1e-5, atol=1e-5)
        assert heads == 2


def test_vision_frequency_split_by_model():
    cfg = {"head_dim": 16, "rope_parameters": {"rope_theta": 10000.0}}
    axis, inv = vision_rope_frequencies("pixtral", cfg)
    table = 1.0 / 10000.0 ** (torch.arange(0, 16, 2).float() / 16)
    assert axis.tolist() == [0] * 4 + [1] * 4
    assert torch.equal(inv, torch.cat([table[0::2], table[1::2]]))  # rows even, columns odd
    axis, inv = vision_rope_frequencies("qwen2_vl", cfg)
    assert axis.tolist() == [0] * 4 + [1] * 4 and torch.equal(inv[:4], inv[4:])
    axis, _ = vision_rope_frequencies("gemma4_vision", cfg)
    assert axis.tolist() == [1] * 4 + [0] * 4  # column first


def test_vision_score_depends_only_on_the_offset():
    cfg = {"head_dim": 32, "rope_theta": 100.0}
    for model in VISION_MODELS:
        angles = vision_rope_angles(model, cfg, 6, 7)  # (42, 16)
        pairs = vision_pair_dims(model, 32)
        gen = torch.Generator().manual_seed(0)
        q, k = torch.randn(32, generator=gen, dtype=torch.float64), torch.randn(32, generator=gen, dtype=torch.float64)
        rq = apply_vision_rope(q.expand(42, 32), angles.double(), pairs)
        rk = apply_vision_rope(k.expand(42, 32), angles.double(), pairs)
        score = rq @ rk.T  # (42, 42)
        # query (1, 1) key (3, 4) and query (2, 3) key (4, 6): both offset (2, 3); float32 angles
        assert float(score[1 * 7 + 1, 3 * 7 + 4]) == pytest.approx(float(score[2 * 7 + 3, 4 * 7 + 6]), abs=1e-5)


@pytest.mark.parametrize(
    "args, word",
    [(("llava", {"head_dim": 16}, 2, 2), "model_type"), (("pixtral", {"head_dim": 18}, 2, 2), "head_dim"),
     (("pixtral", {}, 2, 2), "config"), (("pixtral", {"head_dim": 16}, 0, 2), "height"),
     (("gemma4", {"head_dim": 16}, 2, 1.5), "width"),
     (("gemma4", {"head_dim": 16, "rope_theta": 1.0}, 2, 2), "rope_theta")],
)  # fmt: skip
def test_bad_vision_input_names_the_argument(args, word):
    with pytest.raises(ValueError, match=word):
        vision_rope_angles(*args)


@pytest.mark.parametrize("model", VISION_MODELS)
def test_offset_scores_equal_a_loop_and_agree_between_query_patches(model):
    h, w, dim = 5, 4, 24
    cfg = {"head_dim": dim}
    angles, pairs = vision_rope_angles(model, cfg, h, w), vision_pair_dims(model, dim)
    gen = torch.Generator().manual_seed(1)
    q, k = torch.randn(2, dim, generator=gen, dtype=torch.float64)
    a = vision_offset_scores(q, k, angles, pairs, height=h, width=w, row=1, col=3)
    b = vision_offset_scores(q, k, angles, pairs, height=h, width=w, row=4, col=0)
    for r in range(h):  # naive: rotate at each key patch and dot
        for c in range(w):
            rq = apply_vision_rope(q[None], angles[1 * w + 3][None].double(), pairs)[0]
            rk = apply_vision_rope(k[None], angles[r * w + c][None].double(), pairs)[0]
            assert float(a[r - 1 + h - 1, c - 3 + w - 1]) == pytest.approx(float(rq @ rk), abs=1e-12)
    both = ~(a.isnan() | b.isnan())
    assert int(both.sum()) == 2 * 1  # offsets reachable from both (1, 3) and (4, 0): dh in {-1, 0}, dw 0
    torch.testing.assert_close(a[both], b[both], rtol=0, atol=1e-5)  # float32 angles
    assert int((~a.isnan()).sum()) == h * w
    with pytest.raises(ValueError, match="query patch"):
        vision_offset_scores(q, k, angles, pairs, height=h, width=w, row=h, col=0)


def test_token_types_from_runs():
    from posviz.encodings.multimodal import IMAGE, TEXT, VIDEO, token_types

    assert token_types((TEXT, 2), (IMAGE, 1), (VIDEO, 3)).tolist() == [0, 0, 1, 2, 2, 2]
    assert token_types((VIDEO, 4)).dtype == torch.int64 and token_types().numel() == 0


# --- a prompt as the processors lay it out (multimodal_prompt), and the pairs /vision draws (multimodal_pairs) ---

from posviz.encodings.model_vision import ENCODERS, PRESETS  # noqa: E402
from posviz.encodings.multimodal_pairs import (  # noqa: E402
    axis_wavelengths,
    encoder_splits,
    mrope_pairs,
    offset_maps,
    other_patch,
    pair_wavelengths,
)
from posviz.encodings.multimodal_prompt import STAMP_TOKENS, seconds_per_grid, video_time_ids, vl_prompt  # noqa: E402
from posviz.encodings.rope import rope_inv_freq  # noqa: E402

PROMPT = dict(vl_model="qwen2_vl", merge=2, text_before=2, image_rows=3, image_cols=4, text_mid=3, video=True,
              frames=6, video_rows=2, video_cols=2, fps=2.0, tokens_per_second=2, text_after=3)  # fmt: skip
PROMPTS = [
    PROMPT,
    PROMPT | dict(vl_model="qwen2_5_vl", fps=0.7, tokens_per_second=3, frames=9),
    PROMPT | dict(vl_model="qwen3_vl", frames=4, video_rows=3, video_cols=1, text_mid=0),
    PROMPT | dict(merge=1, video=False, image_rows=5, image_cols=2, text_before=0),
    PROMPT | dict(vl_model="qwen2_5_vl", merge=3, frames=40, video_rows=1, video_cols=2, text_after=0, fps=7.0),
]


@pytest.mark.parametrize("args", PROMPTS, ids=lambda a: f"{a['vl_model']}-{a['merge']}-{a['video']}")
def test_prompt_ids_equal_transformers(args):
    p = vl_prompt(**args)
    seconds = torch.tensor([2 / args["fps"]], dtype=torch.float32) if args["video"] else None
    videos = [p.video_grid] if p.video_grid else []
    ref = hf_rope_index(args["vl_model"], p.types.tolist(), [p.image_grid], videos, merge=args["merge"],
                        tps=args["tokens_per_second"], seconds=seconds)  # fmt: skip
    assert torch.equal(p.ids, ref)
    assert p.image_grid == (1, args["image_rows"] * args["merge"], args["image_cols"] * args["merge"])
    # the runs: every token once, in order, each of its own type; Qwen3-VL a run per frame after a stamp
    assert [r.start for r in p.runs[1:]] == [r.stop for r in p.runs[:-1]] and p.runs[-1].stop == len(p.types)
    code = {"text": 0, "stamp": 0, "image": 1, "video": 2}
    for r in p.runs:
        assert set(p.types[r.start : r.stop].tolist()) == {code[r.kind]}, r
    frames = [r for r in p.runs if r.kind == "video"]
    stamps = [r for r in p.runs if r.kind == "stamp"]
    if not args["video"]:
        assert not frames and p.video_grid is None
    elif args["vl_model"] == "qwen3_vl":
        assert [r.frame for r in frames] == list(range(args["frames"]))
        assert [r.stop - r.start for r in stamps] == [STAMP_TOKENS] * (args["frames"] - 1)
    else:
        assert len(frames) == 1 and not stamps
        assert frames[0].stop - frames[0].start == args["frames"] * args["video_rows"] * args["video_cols"]
    original = mrope_position_ids(p.types, [p.image_grid], videos, model=args["vl_model"], resume="original",
                                  spatial_merge_size=args["merge"], tokens_per_second=args["tokens_per_second"],
                                  seconds_per_grid=[] if seconds is None else seconds)  # fmt: skip
    assert torch.equal(p.original, original)


@pytest.mark.parametrize("fps", [0.7, 2.0, 7.0])
def test_video_time_ids_are_the_first_token_of_each_temporal_patch(fps):
    t, m, rows, cols, tps = 9, 2, 3, 2, 3
    v = video_time_ids(frames=t, merge=m, video_rows=rows, video_cols=cols, fps=fps, tokens_per_second=tps)
    assert v.frames.tolist() == list(range(t)) == v.frame_ids.tolist()
    video = [(t, rows * m, cols * m)]
    seconds = torch.tensor([seconds_per_grid(fps)], dtype=torch.float32)
    ref = hf_rope_index("qwen2_5_vl", [2] * (t * rows * cols), [], video, merge=m, tps=tps, seconds=seconds)
    assert torch.equal(v.second_ids, ref[0, :: rows * cols])
    torch.testing.assert_close(v.seconds, torch.tensor([f * 2 / fps for f in range(t)], dtype=torch.float32))
    assert v.resume == max(rows, cols)
    with pytest.raises(ValueError, match="fps"):
        seconds_per_grid(0.0)


def test_pair_wavelengths_are_correctly_rounded_and_each_model_has_both_layouts():
    inv = rope_inv_freq(128, base=1e6)
    assert pair_wavelengths(inv).tolist() == [2 * math.pi / x for x in inv.tolist()]  # one rounding, as Python's
    for model, preset in PRESETS.items():
        p = mrope_pairs(model)
        inv = rope_inv_freq(preset.head_dim, base=preset.rope_theta).tolist()
        assert p.wavelength.tolist() == [2 * math.pi / x for x in inv]  # the model's own rope_theta
        assert torch.equal(p.blocks, mrope_axes(128, (16, 24, 24)))
        assert torch.equal(p.interleaved, mrope_axes(128, (24, 20, 20), interleaved=True))
        for axes in (p.blocks, p.interleaved):
            found = axis_wavelengths(p.wavelength, axes)
            waves = [[w for w, a in zip(p.wavelength.tolist(), axes.tolist(), strict=True) if a == i] for i in range(3)]
            assert found == [(len(w), min(w), max(w)) for w in waves]
    assert axis_wavelengths(torch.tensor([1.0, 2.0]), torch.tensor([0, 0]))[1:] == [None, None]


def test_encoder_splits_are_each_encoders_rotary_module():
    splits = encoder_splits()
    assert [e.name for e in splits] == [name for name, _ in ENCODERS.values()]
    for e, (key, (_, cfg)) in zip(splits, ENCODERS.items(), strict=True):
        axis, inv = vision_rope_frequencies(key, cfg)
        assert torch.equal(e.axis, axis) and torch.equal(e.channels, vision_pair_dims(key, cfg["head_dim"]))
        assert e.wavelength.tolist() == [2 * math.pi / x for x in inv.double().tolist()]


@pytest.mark.parametrize("encoder", list(ENCODERS))
def test_offset_maps_score_one_vector_at_two_patches(encoder):
    h, w, row, col = 6, 8, 1, 5
    o = offset_maps(encoder, height=h, width=w, row=row, col=col, seed=3)
    assert o.other_patch == other_patch(h, w, row, col) == (4, 2)
    cfg = ENCODERS[encoder][1]
    q = torch.randn(cfg["head_dim"], generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    angles, pairs = vision_rope_angles(encoder, cfg, h, w), vision_pair_dims(encoder, cfg["head_dim"])
    for got, (r, c) in ((o.chosen, (row, col)), (o.other, o.other_patch)):
        want = vision_offset_scores(q, q, angles, pairs, height=h, width=w, row=r, col=c)
        torch.testing.assert_close(got, want, equal_nan=True, rtol=0, atol=0)
    both = ~(o.chosen.isnan() | o.other.isnan())
    assert o.gap == float((o.chosen - o.other)[both].abs().max()) and 0 < o.gap < 1e-4  # rounding only
    assert float(o.chosen[h - 1, w - 1]) == pytest.approx(float(q @ q))  # offset (0, 0): |q|^2
    assert other_patch(3, 3, 1, 1) == (0, 0)  # the centre is its own mirror: the corner instead
