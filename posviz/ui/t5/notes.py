"""The T5 page's tables and notes: what each bucket covers, and the step and pitfall texts."""

from __future__ import annotations

import numpy as np
import pandas as pd

from posviz.encodings.t5 import T5BucketRange, t5_half
from posviz.ui.t5.settings import BucketKey, HeadKey


def ranges_frame(ranges: list[T5BucketRange], *, r_min: int, r_max: int, max_distance: int) -> pd.DataFrame:
    """The bucket table: what each bucket covers, how many distances, exact or log."""
    rows = []
    for rg in ranges:
        if rg.kind == "unused":
            covers, count, used = "nothing", 0, False
        elif rg.direction == "self and future":
            covers, count, used = "r ≥ 0 (self and every future key)", "all", r_max >= 0
        elif rg.last is None:
            covers = f"r ≤ {rg.first}" if rg.first < 0 else f"r ≥ {rg.first}"
            count = "all beyond"
            used = r_min <= rg.first if rg.first < 0 else r_max >= rg.first
        else:
            lo, hi = sorted((rg.first, rg.last))
            covers = f"r = {lo}" if lo == hi else f"{lo} ≤ r ≤ {hi}"
            count, used = rg.count, lo <= r_max and hi >= r_min
        note = ""
        if rg.kind == "unused":
            note = f"never used: {rg.why}"
        elif rg.last is None and rg.direction in ("past", "future"):
            start = abs(rg.first)
            note = f"the last {rg.direction} bucket starts at distance {start}" + (
                f", not at max_distance = {max_distance}" if start != max_distance else ""
            )
        rows.append(
            dict(
                bucket=rg.bucket,
                direction=rg.direction,
                covers=covers,
                distances=str(count),
                kind=rg.kind,
                **{"reached in this view": "yes" if used else "no"},
                note=note,
            )
        )
    return pd.DataFrame(rows).set_index("bucket")


def pitfall_shape_note(s: HeadKey) -> str:
    """What adding the transpose(0, 2) bias does when q_len != k_len."""
    scores, wrong = (1, s.heads, s.q_len, s.k_len), (1, s.heads, s.k_len, s.q_len)
    if min(s.q_len, s.k_len) == 1:
        side = max(s.q_len, s.k_len)
        return (
            f"With q_len = {s.q_len} and k_len = {s.k_len}, adding the transposed bias {wrong} to scores {scores} "
            f"silently broadcasts both to (1, {s.heads}, {side}, {side}): a wrong shape and no error."
        )
    return (
        f"With q_len = {s.q_len} ≠ k_len = {s.k_len}, adding the transposed bias {wrong} to scores {scores} "
        "fails with a shape error. Set q_len = k_len to see the version that fails silently."
    )


def step_note(template: str, s: BucketKey, max_exact: int) -> str:
    """A pipeline step's explanation with this page's numbers filled in."""
    return template.format(
        half=t5_half(s.num_buckets, bidirectional=s.bidirectional),
        bidirectional_half=t5_half(s.num_buckets, bidirectional=True),  # the note describes both modes
        max_exact=max_exact,
        max_exact_minus_1=max_exact - 1,
        garbage=np.iinfo(np.int64).min + max_exact,
    )


def last_bucket_start(ranges: list[T5BucketRange]) -> int | None:
    """Distance where the last past bucket begins (the same for the future side)."""
    return next((abs(rg.first) for rg in ranges if rg.direction == "past" and rg.last is None), None)


def int_ranges(values: list[int]) -> str:
    """[1, 2, 3, 7, 9, 10] -> '1–3, 7, 9–10'."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs)


def bucket_notes(frame: pd.DataFrame) -> list[str]:
    """The table's notes, one line per distinct note, naming its buckets."""
    noted = frame[frame["note"] != ""]
    return [
        f"bucket{'s' if len(group) > 1 else ''} {int_ranges(group.index.tolist())}: {note}"
        for note, group in noted.groupby("note", sort=False)
    ]
