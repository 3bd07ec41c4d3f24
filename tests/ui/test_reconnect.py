"""The front-end rule posviz.ui.reconnect relies on, read from Streamlit's shipped JavaScript.

If a Streamlit upgrade changes what a reconnect does, this fails before a class finds out
(``tests/browser/test_fault_browser.py`` restarts a live server to show the whole effect).
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit

from posviz.ui import reconnect
from tools import fault_nginx

STATIC_JS = Path(streamlit.__file__).parent / "static" / "static" / "js"


def _reconnect_handler() -> str:
    for path in STATIC_JS.glob("index.*.js"):
        text = path.read_text(encoding="utf-8", errors="replace")
        start = text.find("this.handleConnectionStateChanged=")
        if start >= 0:
            return text[start : start + 1500]
    raise AssertionError(f"no handleConnectionStateChanged in {STATIC_JS}/index.*.js: Streamlit's front end changed")


def test_a_reconnect_reruns_when_a_fragment_has_an_auto_rerun_interval():
    handler = _reconnect_handler()
    rule = re.search(r"CONNECTED\)\{.*?\?\((\w+)\.info\(`Requesting a script run\.`\)", handler)
    assert rule, "the reconnect handler no longer requests a script run: read posviz/ui/reconnect.py"
    assert "this.autoRerunIntervals.size>0" in rule.group(0), (
        "a reconnect no longer reruns for an auto-rerun fragment: posviz/ui/reconnect.py needs another way"
    )
    assert "sendUpdateWidgetsMessage(void 0)" in handler, "the rerun is no longer a full run with the widget state"


def test_the_interval_fits_a_browser_timer():
    milliseconds = reconnect.INTERVAL.total_seconds() * 1000
    assert 12 * 3600 * 1000 <= milliseconds < 2**31 - 1  # longer than a lecture, and no overflow to 1 ms


def test_deploy_nginx_conf_holds_the_generated_block_for_its_four_processes():
    site = fault_nginx.SITE.read_text()
    assert fault_nginx.render_site([8501, 8502, 8503, 8504]) == site
    block = fault_nginx.processes_block([1, 2, 3])
    # each process's own upstream lists the others in ring order as backups
    assert "upstream posviz_2 {\n    server 127.0.0.1:2 max_fails=0;\n" in block
    assert "    server 127.0.0.1:3 max_fails=0 backup;\n    server 127.0.0.1:1 max_fails=0 backup;\n}" in block
    # every request goes to the pool its cookie names, and every answer names the process that gave it
    assert site.count("proxy_pass http://$posviz_pool;") == 3 and "proxy_pass http://posviz" not in site
    assert '"~:(?<port>[0-9]+)$" "posviz_node=$port;' in site
