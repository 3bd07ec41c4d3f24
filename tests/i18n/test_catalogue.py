"""The catalogues: complete, no entry unused, placeholders kept, read alike by posviz and by Babel."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest
from babel.messages.pofile import read_po as babel_read_po

from posviz import i18n
from posviz.i18n import LANGUAGES, N_, _, catalogue, catalogue_path, ngettext, parse_po, placeholders, read_po, use
from tools.i18n import extract, problems, source_files, write_po

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_text_of_the_code_has_a_translation_and_no_entry_is_unused(lang):
    found = problems(lang, extract(), parse_po(catalogue_path(lang).read_text(encoding="utf-8")))
    assert not found, (
        "\n".join(found[:40]) + f"\n({len(found)} problems; `python -m tools.i18n update`, then translate)"
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_posviz_reads_the_catalogue_as_babel_does(lang):
    path = catalogue_path(lang)
    with path.open("rb") as f:
        babel = babel_read_po(f, locale=None)
    ours = read_po(path.read_text(encoding="utf-8"), lang)
    singular = {m.id: m.string for m in babel if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}
    plural = {m.id[0]: list(m.string) for m in babel if m.id and not isinstance(m.id, str) and all(m.string)}
    assert ours.messages == singular
    assert ours.plurals == plural
    assert babel.plural_forms == ours.plural_forms.strip().rstrip(";") + ";" or babel.num_plurals == 1


def test_the_reader_reads_escapes_plurals_fuzzy_and_continuations():
    text = r"""
msgid ""
msgstr ""
"Plural-Forms: nplurals=1; plural=0;\n"

#: a.py:1
msgid "Say \"hi\"\n"
"twice"
msgstr "说“你好”\n"
"两次"

#, fuzzy
msgid "Old"
msgstr "旧"

msgid "{n} head"
msgid_plural "{n} heads"
msgstr[0] "{n} 个头"
"""
    cat = read_po(text, "zh")
    assert cat.messages == {'Say "hi"\ntwice': "说“你好”\n两次"}
    assert cat.plurals == {"{n} head": ["{n} 个头"]}
    assert cat.plural_index(5) == 0


def test_a_catalogue_written_by_the_tool_reads_back(tmp_path):
    messages = extract([ROOT / "posviz" / "ui" / "params.py"])
    assert messages, "params.py marks its labels"
    entries = {m: i18n.PoEntry(msgid=m, msgstr=f"«{m}»") for m in messages}
    cat = read_po(write_po("zh", messages, entries), "zh")
    assert cat.messages == {m: f"«{m}»" for m in messages}


def test_placeholders():
    assert placeholders("{n} heads at {base:.0f}, {{literal}}") == {"n", "base"}
    assert placeholders("no fields") == set()


def test_lookup_is_per_context_not_process_wide():
    zh = catalogue("zh")
    msgid, msgstr = next(iter(zh.messages.items()))
    seen = {}

    def read(lang):
        with use(lang):
            seen[lang] = _(msgid)

    threads = [threading.Thread(target=read, args=(lang,)) for lang in ("zh", "en")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"zh": msgstr, "en": msgid}
    assert _(msgid) == msgid  # this thread never chose a language
    assert N_(msgid) == msgid


def test_plural_forms_fall_back_to_english():
    assert ngettext("{n} head", "{n} heads", 1) == "{n} head"
    assert ngettext("{n} head", "{n} heads", 3) == "{n} heads"


def test_nothing_installs_gettext_process_wide():
    for path in source_files(ROOT):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "install":
                assert not (isinstance(node.value, ast.Name) and node.value.id == "gettext"), path
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
                assert "gettext" not in names, f"{path}: posviz looks texts up per run (posviz.i18n), not with gettext"
