"""The /vision page's notes that depend on the settings (plain text)."""

from __future__ import annotations

from posviz.encodings.model_vision import Preset
from posviz.i18n import _


def preset_note(preset: Preset) -> str:
    """The chosen model's language-side facts: head size, base, mrope_section and its layout."""
    text = (
        _("{name}: head_dim {head_dim}, rope_theta {theta}, mrope_section {section}, interleaved.")
        if preset.interleaved
        else _("{name}: head_dim {head_dim}, rope_theta {theta}, mrope_section {section}, in blocks.")
    )
    return text.format(
        name=preset.name,
        head_dim=preset.head_dim,
        theta=f"{preset.rope_theta:,.0f}",
        section=list(preset.mrope_section),
    )
