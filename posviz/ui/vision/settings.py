"""The /vision page's settings: its URL parameters (defaults written once); presets from model_vision."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.model_vision import ENCODERS, PRESETS
from posviz.encodings.v2pe import STRIDES
from posviz.encodings.video_rope import VIDEO_MODELS
from posviz.i18n import N_
from posviz.ui.params import PARAMS, Param
from posviz.ui.settings import setting


def count(key: str, label: str, default: int, hi: int, help: str, widget: str = "number") -> Param:
    return Param(key, label, "int", default, widget, min=0, max=hi, step=1, help=help)  # type: ignore[arg-type]


VL_MODEL = Param(
    "vl_model",
    N_("Model"),
    "choice",
    "qwen2_vl",
    "radio",
    options=tuple(PRESETS),
    option_labels={
        "qwen2_vl": N_("Qwen2-VL: blocks, time = frame"),
        "qwen2_5_vl": N_("Qwen2.5-VL: blocks, time = seconds"),
        "qwen3_vl": N_("Qwen3-VL: interleaved, a run per frame"),
    },
    help=N_("The model whose get_rope_index and rotary layout are drawn (transformers 5.23)."),
)
MERGE = Param(
    "merge", N_("Merge size m"), "int", 2, "slider", min=1, max=4, step=1,
    help=N_("spatial_merge_size: the vision encoder merges m x m patches into one token (2 in every Qwen-VL)."),
)  # fmt: skip
TEXT_BEFORE = count("text_before", N_("Text tokens before the image"), 2, 64, N_("Text tokens at the start."))
IMAGE_ROWS = Param(
    "image_rows", N_("Image: rows of tokens"), "int", 3, "slider", min=1, max=16, step=1,
    help=N_("Rows of the image after merging: the image is rows x m patches high."),
)  # fmt: skip
IMAGE_COLS = Param(
    "image_cols", N_("Image: columns of tokens"), "int", 4, "slider", min=1, max=16, step=1,
    help=N_("Columns of the image after merging: the image is columns x m patches wide."),
)  # fmt: skip
TEXT_MID = count("text_mid", N_("Text tokens after the image"), 3, 64, N_("Text between the image and the video."))
VIDEO = Param("video", N_("A video after it"), "bool", True, "toggle", help=N_("Add a video of t temporal patches."))
FRAMES = Param(
    "frames", N_("Video: temporal patches t"), "int", 6, "slider", min=1, max=64, step=1,
    help=N_("video_grid_thw's t: each temporal patch holds 2 frames. Past the video's larger side, Qwen2-VL's "
    "time ids outrun the text that follows."),
)  # fmt: skip
VIDEO_ROWS = Param("video_rows", N_("Video: rows of tokens"), "int", 2, "slider", min=1, max=8, step=1,
                   help=N_("Rows of each video frame after merging."))  # fmt: skip
VIDEO_COLS = Param("video_cols", N_("Video: columns of tokens"), "int", 2, "slider", min=1, max=8, step=1,
                   help=N_("Columns of each video frame after merging."))  # fmt: skip
FPS = Param(
    "fps", N_("Video: frames sampled per second"), "float", 2.0, "number", min=0.1, max=60.0, step=0.1,
    help=N_("Qwen2.5-VL: second_per_grid_t = 2 frames / fps seconds per temporal patch."),
)  # fmt: skip
TOKENS_PER_SECOND = Param(
    "tokens_per_second", "tokens_per_second", "int", 2, "number", min=1, max=100, step=1,
    help=N_("Qwen2.5-VL's vision_config.tokens_per_second: time ids per second of video (2 in its config)."),
)  # fmt: skip
TEXT_AFTER = count("text_after", N_("Text tokens at the end"), 3, 64, N_("Text after everything else."))
ENCODER = Param(
    "encoder",
    N_("Vision encoder"),
    "choice",
    "qwen2_vl",
    "radio",
    options=tuple(ENCODERS),
    option_labels={k: v[0] for k, v in ENCODERS.items()},
    help=N_("Whose 2-D RoPE scores the patches in the offset heatmap."),
)
Q_ROW = Param("q_row", N_("Query patch: row"), "int", 1, "number", min=0, max=63, step=1,
              help=N_("Row of the query patch in the image's patch grid (before merging)."))  # fmt: skip
Q_COL = Param("q_col", N_("Query patch: column"), "int", 2, "number", min=0, max=63, step=1,
              help=N_("Column of the query patch in the image's patch grid (before merging)."))  # fmt: skip
VIDEO_MODEL = Param(
    "video_model",
    N_("Video generator"),
    "choice",
    "wan2.1",
    "radio",
    options=tuple(VIDEO_MODELS),
    option_labels={
        "wan2.1": N_("Wan 2.1: 44/42/42 of 128, θ = 10000"),
        "hunyuan_video": N_("HunyuanVideo: 16/56/56 of 128, θ = 256"),
    },
    help=N_(
        "The video generator whose 3-D RoPE is drawn (as diffusers' WanRotaryPosEmbed and "
        "HunyuanVideoRotaryPosEmbed compute it)."
    ),
)
LATENT_FRAMES = Param("latent_frames", N_("Latent: frames"), "int", 3, "slider", min=1, max=8, step=1,
                      help=N_("Frames of the video's latent (each stands for several frames of video)."))  # fmt: skip
LATENT_HEIGHT = Param("latent_height", N_("Latent: rows"), "int", 4, "slider", min=1, max=6, step=1,
                      help=N_("Rows of patches in each latent frame."))  # fmt: skip
LATENT_WIDTH = Param("latent_width", N_("Latent: columns"), "int", 4, "slider", min=1, max=6, step=1,
                     help=N_("Columns of patches in each latent frame."))  # fmt: skip
V2PE_STRIDE = Param(
    "v2pe_stride",
    N_("V2PE stride (δ = stride / 256)"),
    "choice",
    "16",
    "select",
    options=tuple(str(s) for s in STRIDES),
    help=N_(
        "Each image token advances the position by δ = stride / 256 (V2PE trains with these strides); "
        "256 gives the ordinary ids."
    ),
)


def _video(v) -> bool:
    return bool(v["video"])


@dataclass(frozen=True)
class VisionSettings:
    """Everything that determines the /vision page's tensors, in sidebar order."""

    vl_model: str = setting(VL_MODEL, section=N_("Model"))
    merge: int = setting(MERGE)
    text_before: int = setting(TEXT_BEFORE, section=N_("Sequence"))
    image_rows: int = setting(IMAGE_ROWS)
    image_cols: int = setting(IMAGE_COLS)
    text_mid: int = setting(TEXT_MID)
    video: bool = setting(VIDEO)
    frames: int = setting(FRAMES, when=_video)
    video_rows: int = setting(VIDEO_ROWS, when=_video)
    video_cols: int = setting(VIDEO_COLS, when=_video)
    fps: float = setting(FPS, when=lambda v: v["video"] and PRESETS[v["vl_model"]].seconds)
    tokens_per_second: int = setting(TOKENS_PER_SECOND, when=lambda v: v["video"] and PRESETS[v["vl_model"]].seconds)
    text_after: int = setting(TEXT_AFTER)
    encoder: str = setting(ENCODER, section=N_("2-D RoPE in the encoder"))
    q_row: int = setting(Q_ROW, bounds=lambda v: (0, v["image_rows"] * v["merge"] - 1))
    q_col: int = setting(Q_COL, bounds=lambda v: (0, v["image_cols"] * v["merge"] - 1))
    seed: int = setting(PARAMS["seed"])
    video_model: str = setting(VIDEO_MODEL, section=N_("Video generators' 3-D RoPE"))
    latent_frames: int = setting(LATENT_FRAMES)
    latent_height: int = setting(LATENT_HEIGHT)
    latent_width: int = setting(LATENT_WIDTH)
    v2pe_stride: str = setting(V2PE_STRIDE, section=N_("V2PE"))
