"""The frontend's widgets as the load test sees them: decoded from deltas, changed as a student would."""

from __future__ import annotations

import random
import urllib.parse
from dataclasses import dataclass
from typing import Any


@dataclass
class Widget:
    """A widget as the frontend knows it: its id, key, kind and current value."""

    id: str
    key: str  # the user key: the bound query parameter, or the id's suffix
    kind: str  # number, slider, toggle, radio, text
    value: Any
    default: Any = None
    lo: float | None = None
    hi: float | None = None
    step: float = 1.0
    options: tuple[str, ...] = ()
    bound: bool = False
    disabled: bool = False
    fragment_id: str = ""
    set_value: bool = False  # the server set the value (the frontend then drops the user's)

    def state(self, proto: Any) -> None:
        """Fill one ``WidgetState`` as the frontend's WidgetStateManager does."""
        proto.id = self.id
        if self.kind == "number":
            proto.double_value = float(self.value)
        elif self.kind == "slider":
            proto.double_array_value.data[:] = [float(v) for v in self.value]
        elif self.kind == "toggle":
            proto.bool_value = bool(self.value)
        else:  # radio, text
            proto.string_value = str(self.value)

    def link_text(self) -> str:
        """The value as the frontend writes it in the address bar (JavaScript's ``String``)."""
        value = self.value[0] if self.kind == "slider" and len(self.value) == 1 else self.value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return str(int(value)) if value.is_integer() else repr(value)
        if isinstance(value, list):
            return ",".join(_js_number(v) for v in value)
        return str(value)


def _js_number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _user_key(widget_id: str) -> str:
    """Streamlit ids of keyed widgets end with ``-<key>`` after the ``$$ID-<hash>`` prefix."""
    if widget_id.startswith("$$ID-"):
        parts = widget_id.split("-", 2)
        if len(parts) == 3:
            return parts[2]
    return widget_id


def widget_of(element: Any, fragment_id: str) -> Widget | None:
    """The widget a ``new_element`` delta draws, or None for anything else."""
    kind = element.WhichOneof("type")
    if kind not in ("number_input", "slider", "checkbox", "radio", "text_area", "text_input"):
        return None
    w = getattr(element, kind)
    key = w.query_param_key if w.HasField("query_param_key") and w.query_param_key else _user_key(w.id)
    common = dict(
        id=w.id,
        key=key,
        bound=bool(w.query_param_key),
        disabled=w.disabled,
        fragment_id=fragment_id,
        set_value=w.set_value,
    )
    if kind == "number_input":
        value = w.value if w.set_value and w.HasField("value") else w.default
        return Widget(
            kind="number",
            value=value,
            default=w.default,
            lo=w.min if w.has_min else None,
            hi=w.max if w.has_max else None,
            step=w.step or 1.0,
            **common,
        )
    if kind == "slider":
        if w.options:  # select_slider: not used by posviz
            return None
        value = list(w.value) if w.set_value and len(w.value) else list(w.default)
        return Widget(kind="slider", value=value, default=list(w.default), lo=w.min, hi=w.max, step=w.step, **common)
    if kind == "checkbox":
        value = w.value if w.set_value else w.default
        return Widget(kind="toggle", value=bool(value), default=bool(w.default), **common)
    if kind == "radio":
        options = tuple(w.options)
        default = options[w.default] if w.HasField("default") and 0 <= w.default < len(options) else None
        value = w.raw_value if w.set_value and w.HasField("raw_value") else default
        return Widget(kind="radio", value=value, default=default, options=options, **common)
    value = w.value if w.set_value and w.HasField("value") else w.default
    return Widget(kind="text", value=value, default=w.default, **common)


def changed_value(w: Widget, rng: random.Random) -> Any:
    """A new value a student might pick: a few steps, a doubling or a halving, a flip, another option."""
    if w.kind == "toggle":
        return not w.value
    if w.kind == "radio":
        others = [o for o in w.options if o != w.value]
        return rng.choice(others) if others else w.value
    current = float(w.value[0] if w.kind == "slider" else w.value)
    step = w.step or 1.0
    for _ in range(8):
        if rng.random() < 0.3 and current > 0:
            new = current * 2 if rng.random() < 0.5 else current / 2
            new = round(new / step) * step
        else:
            new = current + rng.choice([1, 2, 3, 5, 8]) * rng.choice([-1, 1]) * step
        if w.lo is not None:
            new = max(new, w.lo)
        if w.hi is not None:
            new = min(new, w.hi)
        if new != current:
            break
    if w.kind == "slider":
        return [float(new)] + [float(v) for v in w.value[1:]]
    return float(new)


def with_param(query_string: str, key: str, text: str | None) -> str:
    """``query_string`` with ``key`` set to ``text`` (removed for None), as the frontend rewrites its URL."""
    pairs = [(k, v) for k, v in urllib.parse.parse_qsl(query_string, keep_blank_values=True) if k != key]
    if text is not None:
        pairs.append((key, text))
    return urllib.parse.urlencode(pairs)
