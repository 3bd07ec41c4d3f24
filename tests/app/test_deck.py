"""Lecture decks through AppTest: every shipped deck stepped through, bad decks, the deck editor.

A move to a slide ends its run with ``st.switch_page`` (to the step's page, with the deck's keys);
``follow`` does what the browser then does: it opens that page with those keys.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from posviz import i18n
from posviz.schemes import page_of
from posviz.ui import chrome
from posviz.ui.deck import model
from posviz.ui.deck.links import step_values
from posviz.ui.deck.model import Deck

from .conftest import APP, TIMEOUT, WIDGETS, errors, figures, value_of

LINK_OFF = ":material/link_off:"


def follow(at: AppTest, deck: Deck, value: str, slide: int, **keys: str) -> AppTest:
    """The browser's side of a move: open the step's page with the deck's keys."""
    at.query_params.clear()
    at.query_params.update({"deck": value, "slide": str(slide), **keys})
    return at.switch_page(page_of(deck.step(slide).page).path).run()


def open_deck(value: str, page: str | None = None, **params: str) -> tuple[AppTest, Deck]:
    """A fresh session opening ``/<page>?deck=<value>&<params>``, then the slide it moves to."""
    deck = model.from_link_value(value)
    at = AppTest.from_file(str(APP), default_timeout=3 * TIMEOUT)  # the models page reads configs on first use
    at.query_params.update({"deck": value, **params})
    if page is not None:
        at.switch_page(page)
    at.run()
    if deck.steps:
        slide = min(max(int(params.get("slide", "1")), 1), len(deck.steps))
        follow(at, deck, value, slide, **{k: v for k, v in params.items() if k in ("view", "room")})
    return at, deck


def link_notices(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if w.icon == LINK_OFF]


def progress(at: AppTest) -> str:
    return at.get("progress")[0].proto.text


def assert_on_slide(at: AppTest, deck: Deck, slide: int) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not errors(at), errors(at)
    assert not link_notices(at), link_notices(at)
    with i18n.use(deck.lang or "en"):  # the bar speaks the deck's language
        said = i18n._("**Slide {slide} of {last}**").format(slide=slide, last=len(deck.steps))
    assert progress(at).startswith(said)
    assert at.query_params["slide"] == str(slide)
    values, _ = step_values(deck.step(slide))
    for key, value in values.items():
        if key in WIDGETS:  # the view is exactly the step's link
            assert value_of(at, key) == value, (slide, key)
    assert value_of(at, "lecture") is (values.get("lecture", True))  # lecture mode on by default


@pytest.mark.slow
@pytest.mark.parametrize("name", model.shipped_names())
def test_every_shipped_deck_steps_through_without_a_notice(name):
    at, deck = open_deck(name)
    assert_on_slide(at, deck, 1)
    for slide in range(2, len(deck.steps) + 1):
        at.button(key="deck_next").click().run()
        follow(at, deck, name, slide)
        assert_on_slide(at, deck, slide)
    assert at.button(key="deck_next").disabled


def test_a_link_reopens_its_slide_with_the_links_own_changes():
    at, deck = open_deck("relative", "pages/shaw.py", slide="3", clip="3", lecture="false")
    assert progress(at).startswith("**Slide 3 of")
    assert value_of(at, "clip") == 3 and value_of(at, "q_len") == 16  # the change, on top of the step
    assert value_of(at, "lecture") is False
    at.button(key="deck_prev").click().run()
    follow(at, deck, "relative", 2)
    assert value_of(at, "clip") == 4 and value_of(at, "lecture") is False  # the step again; lecture stays off


def test_back_and_forward_reopen_a_slide_with_its_settings():
    at, deck = open_deck("relative", slide="3")
    assert value_of(at, "clip") == 2
    at.query_params["slide"] = "2"  # the browser's back button: the address of slide 2, without its settings
    at.run()
    follow(at, deck, "relative", 2)
    assert progress(at).startswith("**Slide 2 of") and value_of(at, "clip") == 4


def test_an_unknown_deck_is_a_notice():
    at, _ = open_deck("nope")
    assert not at.exception
    assert "is not one of the decks" in link_notices(at)[0]


def test_a_bad_step_gets_a_links_notices_and_the_rest_works():
    deck = model.from_data(
        {
            "title": "Bad",
            "step": [
                {"title": "bad", "link": "/t5?num_buckets=abc&zzz=1"},
                {"title": "nowhere", "link": "/nosuchpage"},
                {"title": "good", "link": "/alibi?heads=4"},
            ],
        }
    )
    value = model.encode(deck)
    at, _ = open_deck(value)
    assert not at.exception
    notices = link_notices(at)
    assert "num_buckets=abc in the link is not a whole number; using 32 instead." in notices
    assert any("zzz" in n and "not a setting" in n for n in notices)
    assert value_of(at, "num_buckets") == 32
    at.button(key="deck_next").click().run()
    follow(at, deck, value, 2)
    assert not at.exception and at.query_params["slide"] == "2"  # a deck carried whole holds checked links
    assert [t.value for t in at.title] == ["posviz: how transformers encode position"]  # /nosuchpage: the home page
    at.button(key="deck_next").click().run()
    follow(at, deck, value, 3)
    assert not link_notices(at) and value_of(at, "heads") == 4


def test_hostile_deck_keys_are_notices():
    at, deck = open_deck("relative", slide="999", view="<b>", room="../x")
    assert not at.exception
    notices = " ".join(link_notices(at))
    assert progress(at).startswith(f"**Slide {len(deck.steps)} of")  # the nearest slide
    assert "slide=999" in notices and "view=\\<b\\>" in notices and "is not open on this server" in notices
    assert f"showing slide {len(deck.steps)}" in notices  # the notice says where the link landed


def test_a_damaged_inline_deck_is_a_notice():
    at, _ = open_deck("z.AAAA")
    assert not at.exception and "damaged" in link_notices(at)[0]


def test_the_notes_window_shows_notes_and_no_figure():
    at, deck = open_deck("relative", slide="2", view="notes")
    assert not at.exception
    assert not figures(at)
    assert "Shaw et al. 2018" in "".join(m.value for m in at.markdown)
    assert at.query_params["view"] == "notes"


def test_notes_are_markdown_never_html():
    deck = model.from_data(
        {"title": "t", "step": [{"title": "<b>x</b>", "link": "/", "notes": "<script>x</script> **y**"}]}
    )
    at, _ = open_deck(model.encode(deck), view="notes")
    assert not at.exception
    assert [m.proto.body for m in at.markdown if m.proto.allow_html] == [chrome.LECTURE_CSS]  # the static style only
    assert all("<script>x" not in h.proto.body for h in at.get("html"))  # the notes' text never as HTML


def test_building_editing_and_downloading_a_deck():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.switch_page("pages/alibi.py").run()
    at.slider(key="heads").set_value(4).run()
    at.button(key="deck_add").click().run()
    at.switch_page("pages/skew.py").run()
    at.button(key="deck_add").click().run()
    assert at.expander(key="deck_ed_open").label.startswith("Your deck: 2 steps")
    assert not [t for t in at.text_input if t.key == "deck_ed_title"]  # closed: the editor is not drawn
    at.session_state["deck_ed_open"] = True  # the reader opens it
    at.run()
    at.text_input(key="deck_ed_title").set_value("My ALiBi lecture").run()
    picked = at.selectbox(key="deck_ed_pick")
    assert picked.value == 1  # the step just added
    step_id = [t.key for t in at.text_input if t.key.startswith("deck_ed_t")][1]
    at.text_input(key=step_id).set_value("The skew").run()
    at.button(key="deck_ed_up").click().run()  # the skew first
    notes_key = [t.key for t in at.text_area if t.key.startswith("deck_ed_n")][0]
    at.text_area(key=notes_key).set_value("**Point** at the diagonal.").run()
    assert [b for b in at.get("download_button") if b.key == "deck_ed_download"][0].proto.label.startswith("Download")
    deck = _draft(at)
    assert model.loads(model.dumps(deck)) == deck  # the file the button offers reads back the same
    assert deck.title == "My ALiBi lecture"
    assert [s.title for s in deck.steps] == ["The skew", "ALiBi linear biases"]
    assert deck.steps[0].notes == "**Point** at the diagonal." and deck.steps[0].page == "skew"
    assert deck.steps[1].params == (("heads", "4"),)
    at.button(key="deck_ed_delete").click().run()
    assert [s.title for s in _draft(at).steps] == ["ALiBi linear biases"]


def _draft(at: AppTest) -> Deck:
    """The deck being written, as the download button writes it (the browser test downloads the file)."""
    d = at.session_state["_deck_draft"]
    return model.from_data(
        {"title": d["title"], "step": [{k: s[k] for k in ("title", "link", "notes")} for s in d["steps"]]}
    )


def test_rooms_are_capped_and_codes_checked():
    from posviz.ui.deck.rooms import Rooms

    rooms = Rooms(capacity=2)
    a = rooms.open("relative", 1)
    b = rooms.open("relative", 2)
    rooms.move(a, "relative", 5)
    c = rooms.open("rope", 1)  # b is the oldest now: forgotten
    assert rooms.where(a).slide == 5 and rooms.where(b) is None and rooms.where(c).deck == "rope"
    assert rooms.where("../x") is None and rooms.where("") is None and len(rooms) == 2
    stale = Rooms(idle_s=-1.0)
    assert stale.where(stale.open("relative", 1)) is None


def test_uploading_a_deck_file_replaces_the_deck_being_written():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not at.get("file_uploader")  # drawn only when asked for
    at.session_state["deck_ed_open"] = True  # the deck's expander, opened
    at.run()
    at.toggle(key="deck_ed_open_file").set_value(True).run()
    data = b'title = "Up"\n[[step]]\ntitle = "a"\nlink = "/alibi?heads=2"\n[[step]]\nlink = "/nowhere"\n'
    at.file_uploader(key="deck_ed_upload").set_value(("up.toml", data, "application/toml")).run()
    assert not at.exception
    assert [s.title for s in _draft(at).steps] == ["a", "Step 2"]
    assert any("not a posviz page" in w for w in link_notices(at))


def test_a_room_unfolds_its_links():
    """In a room the links are what the presenter came for; the rerun that opens the room may draw the slide
    anew (a moved room switches page), which would fold them away again. (AppTest keeps its own query
    parameters across ``st.rerun``, so the room is opened here as the button would, then followed.)"""
    from posviz.ui.deck.rooms import ROOMS

    at, _ = open_deck("rope", slide="3")
    (notes,) = [e for e in at.expander if e.label == "Notes and a second window"]
    assert not notes.proto.expanded and notes.button(key="deck_room")
    at, _ = open_deck("rope", slide="3", room=ROOMS.open("rope", 3))
    assert not at.exception
    (notes,) = [e for e in at.expander if e.label == "Notes and a second window"]
    assert notes.proto.expanded
    assert "[notes window](" in "".join(m.value for m in notes.markdown)


def test_a_slide_hands_the_browser_every_setting_its_link_leaves_out():
    """Slide 12 of ``relative`` sets step=4 on /t5; slide 13 (also /t5) names no step. The browser keeps a
    widget's last value unless the run tells it the value (``set_value``): a key deleted on the server
    left slide 13 showing, and sending back, step 4. Each of the page's settings must be handed over.
    (The run that a click starts goes on to the slide's page: its tree is the arriving run's.)"""
    at, _ = open_deck("relative", slide="12")
    assert value_of(at, "step") == 4
    at.button(key="deck_next").click().run()
    assert progress(at).startswith("**Slide 13 of")
    step = at.slider(key="step")
    assert step.value == 1 and step.proto.set_value, "the browser is not told that slide 13 is at step 1"


def test_a_deck_move_writes_whole_numbers_as_whole_numbers():
    """Streamlit writes a value given through session state into the link as ``str(value)``: a float
    512.0 became ``q_len=512.0`` in the address bar; a moved control writes ``q_len=24``."""
    at, _ = open_deck("relative", slide="12")
    at.button(key="deck_next").click().run()
    assert progress(at).startswith("**Slide 13 of")
    assert at.query_params["q_len"] == "512" and at.query_params["k_len"] == "512"


@pytest.mark.slow
def test_the_deck_on_screen_becomes_one_html_file():
    deck = model.from_data({"title": "One", "step": [{"title": "ALiBi", "link": "/alibi?heads=4", "notes": "n"}]})
    at, _ = open_deck(model.encode(deck))
    assert not at.get("download_button") or all(b.key != "deck_export_file" for b in at.get("download_button"))
    at.button(key="deck_export").click()
    at.run(timeout=900)
    assert not at.exception and not errors(at), errors(at)
    (file,) = [b for b in at.get("download_button") if b.key == "deck_export_file"]
    assert file.proto.label.startswith("Download the deck as HTML (")
