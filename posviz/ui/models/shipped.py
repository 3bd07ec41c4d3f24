"""The prose a shipped config.json carries (``_source``, ``_note``), in the run's language.

The shipped configs are data, so their sentences are marked here, each once, and looked up one by
one (:func:`said`): a sentence added to a config reads in English until it is marked here too (a
test lists the ones that are not). A source of the form "transformers 5.23.0 <Class> defaults (...),
whose docstring names the checkpoint <id>" is read by its pattern, its names kept as written.
"""

from __future__ import annotations

import re

from posviz.i18n import DEFAULT, N_, _, current

SOURCE = N_("transformers {version} {cls} defaults ({path}), whose docstring names the checkpoint {checkpoint}")
_SOURCE = re.compile(
    r"transformers (?P<version>[\d.]+) (?P<cls>\w+) defaults \((?P<path>[^()\s]+)\), "
    r"whose docstring names the checkpoint (?P<checkpoint>\S+)"
)
_SENTENCE_END = re.compile(r"(?<=\.) (?=[A-Za-z])")  # "... the hub. max_position_embeddings is ...", not "al. 2017"

SENTENCES = (
    N_(
        "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/blob/main/config.json plus the YaRN block from "
        "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct (model card)"
    ),
    N_(
        "Position fields only, derived offline from the configuration class's defaults (which mirror the flagship "
        "checkpoint), not copied from the hub."
    ),
    N_("Command A (c4ai-command-a-03-2025) is a Cohere2 model: the same class and layer pattern; its sizes differ."),
    N_(
        "max_position_embeddings is the class default (2,048), not the checkpoint's longer context (no network to "
        "copy it): at this length the 4,096-token sliding windows cover everything, full attention in effect."
    ),
    N_("As for gemma-3-4b, defaults of Gemma3TextConfig are written out."),
    N_(
        "The published text_config writes only the fields that differ from Gemma3TextConfig's defaults; the "
        "defaults it relies on (head_dim, heads, rope_theta, rope_local_base_freq, sliding_window_pattern, "
        "max_position_embeddings) are written out here with their default values."
    ),
    N_("Gemma4Config sets no vision_config by default: it is Gemma4VisionConfig's own defaults (no audio)."),
    N_(
        "GptOssConfig's defaults are the 120b's depth (36 layers, 128 experts; its docstring names gpt-oss-20b, "
        "which has 24 layers and ships separately)."
    ),
    N_(
        "attn_temperature_tuning is written as a bool, the type the current transformers expects; copies of the "
        "file made before that change carry the integer 4."
    ),
    N_("YaRN factor 128 from original 8,192 positions."),
    N_(
        "The original Transformer (Vaswani et al. 2017) has no Hugging Face config.json; Marian (opus-mt) is its "
        "base setup (d_model 512, 6 + 6 layers, 8 heads) with the fixed sinusoidal table."
    ),
    N_(
        "Stands in for Phi-3-mini-128k-instruct (same 3.8B architecture, 4k trained, 128k with LongRoPE): the 128k "
        "model's factors were revised after release and could not be confirmed here."
    ),
    N_(
        "Mistral Small 3.1 reads images with the Pixtral vision encoder (PixtralVisionConfig) and merges 2 x 2 "
        "patches (spatial_merge_size)."
    ),
    N_(
        "config.json ships rope_scaling null; the model card's processing-long-texts section says to add this "
        "rope_scaling block for contexts past 32,768 tokens."
    ),
    N_(
        "The class defaults are a mix (its docstring copies Qwen2-VL's checkpoint): an 80-layer, 8,192-wide text "
        "model, and a vision hidden_size of 3,584 (a 224-wide vision head, 3,584 / 16)."
    ),
    N_("mrope_section is not set: the modeling code's [16, 24, 24] applies."),
    N_("mrope_section is not set: the modeling code's [24, 20, 20] applies."),
)


def sentences(text: str) -> list[str]:
    """The sentences of a shipped config's prose, as they are looked up (a source of the pattern: itself)."""
    return [text] if _SOURCE.fullmatch(text) or text in SENTENCES else _SENTENCE_END.split(text)


def said(text: str) -> str:
    """``text`` (a shipped config's ``_source`` or ``_note``) in the run's language, sentence by sentence."""
    if current() == DEFAULT or not text:
        return text
    found = _SOURCE.fullmatch(text)
    if found:
        return _(SOURCE).format(**found.groupdict())
    parts = [_(part) for part in sentences(text)]
    return "".join(parts) if all(p != s for p, s in zip(parts, sentences(text), strict=True)) else " ".join(parts)


def unmarked(text: str) -> list[str]:
    """The sentences of ``text`` that are not marked here (for the test that keeps this list complete)."""
    if not text or _SOURCE.fullmatch(text) or (text.startswith("https://") and " " not in text):
        return []
    return [s for s in sentences(text) if s not in SENTENCES]
