"""The T5 bucket table and the notes the page lists above it."""

from posviz.encodings.t5 import t5_bucket_ranges
from posviz.figures.t5 import bucket_notes, bucket_table, bucket_table_and_notes, int_ranges, ranges_frame


def frame(bidirectional=True, num_buckets=32, max_distance=128, r_min=-127, r_max=127):
    ranges = t5_bucket_ranges(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    return ranges_frame(ranges, r_min=r_min, r_max=r_max, max_distance=max_distance)


def test_int_ranges():
    assert int_ranges([1, 2, 3, 7, 9, 10]) == "1–3, 7, 9–10"
    assert int_ranges([5]) == "5"


def test_t5_defaults_table_facts():
    f = frame()
    assert f.loc[15, "covers"] == "r ≤ -91"
    assert f.loc[31, "covers"] == "r ≥ 91"
    assert f.loc[16, "kind"] == "unused" and f.loc[16, "reached in this view"] == "no"
    assert f.loc[8, "covers"] == "-11 ≤ r ≤ -8" and f.loc[8, "distances"] == "4"
    notes = bucket_notes(f)
    assert "bucket 15: the last past bucket starts at distance 91, not at max_distance = 128" in notes
    assert any(n.startswith("bucket 16: never used") for n in notes)


def test_reached_follows_the_view():
    f = frame(r_min=-5, r_max=0)  # queries see only five keys back
    assert f.loc[5, "reached in this view"] == "yes"
    assert f.loc[6, "reached in this view"] == "no"
    assert f.loc[17, "reached in this view"] == "no"  # no future keys


def test_the_pages_table_reaches_what_its_view_reaches():
    """bucket_table (what the page shows) is ranges_frame over the r the shown queries reach."""
    settings = dict(q_len=6, k_len=128, align="end", bidirectional=True, num_buckets=32, max_distance=128)
    page = bucket_table(**settings)
    assert page.equals(frame(r_min=-127, r_max=5))  # queries at 122 .. 127: r from 0 - 127 to 127 - 122
    assert page.loc[5, "reached in this view"] == "yes" and page.loc[21, "reached in this view"] == "yes"
    assert page.loc[22, "reached in this view"] == "no"  # r = 6 .. 7: no key lies that far ahead
    shown, notes = bucket_table_and_notes(**settings)
    assert shown.equals(page) and notes == tuple(bucket_notes(page))
    zoomed = bucket_table(**settings, window=4, q_start=124, k_start=0)  # queries 124 .. 127 only
    assert zoomed.equals(frame(r_min=-127, r_max=3))


def test_skipped_buckets_are_grouped_in_one_note():
    notes = bucket_notes(frame(num_buckets=64, max_distance=17))
    assert "buckets 17–30, 49–62: never used: no distance lands here: the logarithmic steps jump over it" in notes


def test_decoder_bucket_zero_takes_every_future_key():
    f = frame(bidirectional=False, num_buckets=6, max_distance=20, r_min=-14, r_max=14)
    assert f.loc[0, "covers"].startswith("r ≥ 0")
    assert f.loc[5, "covers"] == "r ≤ -11"


def test_step_notes_give_the_bidirectional_half_in_either_mode():
    """The notes describe both modes: the bidirectional sentences halve num_buckets on a decoder's page too."""
    from posviz.ui.t5.notes import step_note
    from posviz.ui.t5.settings import T5Settings
    from posviz.ui.t5.texts import STEP_NOTES

    for bidirectional in (True, False):
        k = T5Settings(num_buckets=32, bidirectional=bidirectional)
        first = step_note(STEP_NOTES[0], k)
        assert "(16 per direction)" in first and "offset by 16 into the upper half" in first, first
        assert "`+16`" in step_note(STEP_NOTES[-1], k)
