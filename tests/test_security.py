"""Public-deployment review, as tests: server config, no markup from user text, never pickle."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "posviz").rglob("*.py"))]


def test_server_config_is_locked_down():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    server = config["server"]
    assert server["enableXsrfProtection"] is True
    assert server["enableCORS"] is True  # Streamlit's default: same-origin only
    assert 0 < server["maxUploadSize"] <= 16
    assert server["headless"] is True and server["fileWatcherType"] == "none"
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["showErrorDetails"] == "none"
    assert config["client"]["toolbarMode"] == "viewer"


# Only the lecture style, a literal (checked below): Markdown's code is loaded with the page, st.html's is not.
UNSAFE_ALLOWED: dict[str, list[str]] = {"posviz/ui/chrome.py": ["LECTURE_CSS, unsafe_allow_html=True"]}


def test_no_unsafe_html_anywhere():
    for path in SOURCES:
        text = path.read_text()
        rel = path.relative_to(ROOT).as_posix()
        calls = re.findall(r"markdown\((.*unsafe_allow_html.*)\)", text)
        assert calls == UNSAFE_ALLOWED.get(rel, []), rel
        assert text.count("unsafe_allow_html") == len(calls), rel
        assert "components.html" not in text and "components.v1" not in text, path


def test_st_html_only_renders_static_css_and_escaped_code():
    calls = {p.relative_to(ROOT).as_posix(): re.findall(r"st\.html\((.*?)\)\n", p.read_text()) for p in SOURCES}
    calls = {p: c for p, c in calls.items() if c}
    code = """f'<pre class="posviz-code"><code>{html.escape(code)}</code></pre>'"""  # short_code: escaped text
    assert calls == {
        "posviz/ui/chrome.py": [
            code,
            "PAGE_CSS if lecture else PAGE_CSS + TABLES_ZOOM_OUT_CSS",
        ],
        "posviz/ui/deck/present.py": ["_AUDIENCE_CSS"],
        # every header, cell and label through html.escape (tests/ui/test_tables.py)
        "posviz/ui/tables.py": ["html_table(data, label=label, hide_index=hide_index, height=height)"],
    }
    chrome = (ROOT / "posviz/ui/chrome.py").read_text()
    for name, files in (
        ("PAGE_CSS", '"page.css"'),
        ("LECTURE_CSS", '"lecture.css"'),
        ("TABLES_ZOOM_OUT_CSS", '"tables-zoom-out.css"'),
    ):
        assert re.search(rf"^{name} = style\({files}\)$", chrome, flags=re.M), name  # static files, no formatting
    present = (ROOT / "posviz/ui/deck/present.py").read_text()
    assert re.search(r'^_AUDIENCE_CSS = style\("audience.css"\)$', present, flags=re.M)  # a static file


def test_the_only_script_is_the_static_anchor_script():
    scripts = {
        p.relative_to(ROOT).as_posix(): re.findall(r"\.html\((.*unsafe_allow_javascript.*)\)", p.read_text())
        for p in SOURCES
    }
    assert {p: c for p, c in scripts.items() if c} == {
        "posviz/ui/sections.py": ["_ANCHOR_JS, unsafe_allow_javascript=True"],
        "posviz/ui/deck/present.py": ["_CLICKER_JS, unsafe_allow_javascript=True"],
    }
    # each a static file of posviz/ui/front, read as is: no user text, no formatting
    text = (ROOT / "posviz/ui/sections.py").read_text()
    assert re.search(r'^_ANCHOR_JS = "<script>\\n" \+ asset\("anchor\.js"\) \+ "</script>"$', text, flags=re.M)
    text = (ROOT / "posviz/ui/deck/present.py").read_text()
    assert re.search(r'^_CLICKER_JS = "<script>\\n" \+ asset\("clicker\.js"\) \+ "</script>"$', text, flags=re.M)


def test_nothing_unpickles():
    for path in SOURCES:
        text = path.read_text()
        for pattern in (r"\bimport pickle\b", r"torch\.load\(", r"pickle\.loads?\(", r"weights_only\s*=\s*False"):
            assert not re.search(pattern, text), (path, pattern)


def test_every_cache_is_bounded_and_keyed_by_scalars():
    # Shared by every session of the process: each cache holds a bounded number of entries.
    for path in SOURCES:
        text = path.read_text()
        assert not re.search(r"@st\.cache_(data|resource)\s*$", text, flags=re.M), path
        for args in re.findall(r"@st\.cache_(?:data|resource)\((.*?)\)\s*\n", text):
            assert "max_entries=" in args, (path, args)


def test_code_in_the_text_is_escaped(monkeypatch):
    import streamlit as st

    from posviz.ui import chrome

    sent = []
    monkeypatch.setattr(st, "html", sent.append)
    chrome.short_code('x = "<script>alert(1)</script>" & y')
    escaped = "x = &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot; &amp; y"
    assert sent == [f'<pre class="posviz-code"><code>{escaped}</code></pre>']


def _static_component(path: str, name: str, html: str, front: str) -> None:
    """The module declares exactly one component, whose code and style are the static files ``front``.js/.css."""
    text = (ROOT / path).read_text()
    call = f'"{name}", html={html}, css=asset("{front}.css"), js=asset("{front}.js"), isolate_styles=False'
    assert [" ".join(c.split()) for c in re.findall(r"components\.v2\.component\((.*?)\)\n", text, flags=re.S)] == [
        call
    ]


FRONT = ROOT / "posviz" / "ui" / "front"


def test_front_end_files_load_nothing_from_elsewhere():
    """Styles import nothing and load no file; scripts neither evaluate text nor write markup."""
    for css in FRONT.glob("*.css"):
        text = css.read_text()
        assert "@import" not in text and "url(" not in text, css.name
    for js in FRONT.glob("*.js"):
        text = js.read_text()
        for unsafe in ("innerHTML", "outerHTML", "eval(", "new Function", "document.write", "insertAdjacentHTML"):
            assert unsafe not in text, (js.name, unsafe)


def test_the_only_components_are_the_static_figure_component_and_the_reconnect_guard():
    """posviz.ui.plot: literal HTML, static CSS and JavaScript (no user text), loading one file of this app's
    own static folder; figures reach it as JSON data, never as markup. posviz.ui.reconnect: static CSS and
    JavaScript, no markup, nothing loaded."""
    uses = {p.relative_to(ROOT).as_posix() for p in SOURCES if "components.v2" in p.read_text()}
    assert uses == {"posviz/ui/plot.py", "posviz/ui/reconnect.py"}
    _static_component("posviz/ui/reconnect.py", "posviz_resync_guard", '""', "reconnect")
    _static_component("posviz/ui/plot.py", "posviz_plot", "_HTML", "plot")
    from posviz.ui import plot, reconnect
    from posviz.ui.front import asset

    guard = asset("reconnect.js")
    assert f"const LIMIT = {reconnect.GUARD_MS};" in guard
    for unsafe in ("fetch(", "src"):
        assert unsafe not in guard, unsafe
    assert f'const BUNDLE = "{plot.BUNDLE}";' in asset("plot.js")
    assert (ROOT / "static" / Path(plot.BUNDLE).name).is_file()
    assert (ROOT / "tools" / "static").resolve() == (ROOT / "static").resolve()  # the floor app's static folder
    assert sorted(p.name for p in (ROOT / "static").iterdir()) == [
        "plotly-cartesian.LICENSE.txt",
        "plotly-cartesian.min.js",
    ]
    assert tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["enableStaticServing"] is True
