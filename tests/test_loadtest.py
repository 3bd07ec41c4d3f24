"""The load test, short: 10 sessions x 2 control changes on /t5 against a server it starts itself.

The full measurement (50 sessions x 5 changes, 1 vs N processes behind nginx) is
``python -m tools.loadtest`` and ``python -m tools.scale_out``; numbers in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import random
import subprocess

import pytest

from tools import loadtest, scale_out
from tools.loadtest import Widget, changed_value, percentile, with_param
from tools.procs import run_async


@pytest.fixture(scope="module")
def short_run() -> dict:
    with loadtest.own_server(timeout=180) as (url, process):
        return run_async(
            loadtest.load(
                url,
                page="t5",
                sessions=10,
                changes=2,
                think=0.3,
                ramp=1.0,
                timeout=420,
                rerun_timeout=180,
                settle=1.0,
                pids=[process.pid],
            )
        )


def test_every_session_finishes_without_errors_or_exceptions(short_run: dict) -> None:
    assert short_run["errors"] == 0, short_run["error_samples"]
    assert short_run["finished"] == 10
    assert short_run["exceptions"] == 0, short_run["exception_samples"]
    assert short_run["rerun_s"]["count"] == 20  # every change was a completed rerun
    assert short_run["open_s"]["count"] == 10


def test_the_runs_drew_the_page_and_used_its_controls(short_run: dict) -> None:
    # A rerun that only drew the sidebar (a wrong page hash, say) would finish without charts.
    assert short_run["full_runs_without_charts"] == 0
    assert short_run["charts_per_full_run"]["p50"] >= 4  # /t5 at its defaults: sections 1-3
    assert sum(short_run["controls_changed"].values()) == 20
    assert "lecture" not in short_run["controls_changed"]
    assert short_run["rss_mb"]["peak"] >= short_run["rss_mb"]["before"] > 0


def test_bounds_are_enforced() -> None:
    with pytest.raises(ValueError, match="sessions must be"):
        run_async(loadtest.load("http://127.0.0.1:9", sessions=loadtest.MAX_SESSIONS + 1))


def test_changes_stay_in_range_and_differ() -> None:
    rng = random.Random(0)
    w = Widget(id="$$ID-x-q_len", key="q_len", kind="number", value=1.0, lo=1.0, hi=4.0, step=1.0)
    for _ in range(200):
        new = changed_value(w, rng)
        assert 1.0 <= new <= 4.0 and new != w.value
        w.value = new
    radio = Widget(id="r", key="align", kind="radio", value="start", options=("start", "end"))
    assert changed_value(radio, rng) == "end"
    slider = Widget(id="s", key="step", kind="slider", value=[5.0], lo=1.0, hi=5.0, step=1.0)
    assert 1.0 <= changed_value(slider, rng)[0] < 5.0


def test_link_rewrite_and_percentile() -> None:
    assert with_param("q_len=16&align=end", "q_len", "32") == "align=end&q_len=32"
    assert with_param("q_len=16&align=end", "q_len", None) == "align=end"
    assert Widget(id="a", key="k", kind="number", value=32.0).link_text() == "32"
    assert Widget(id="a", key="k", kind="slider", value=[0.25]).link_text() == "0.25"
    assert Widget(id="a", key="k", kind="toggle", value=False).link_text() == "false"
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert percentile(list(map(float, range(1, 101))), 95) == 95.0
    assert percentile([], 95) is None


def test_scale_out_renders_the_nginx_config_with_its_ports(tmp_path) -> None:
    site = scale_out.render_site([7001, 7002, 7003], 7999)
    # new browsers, its own upstream, two backups
    assert site.count("server 127.0.0.1:7003 ") == 4 and "127.0.0.1:7003 max_fails=3" in site
    assert "listen 127.0.0.1:7999;" in site and "listen 80" not in site and "[::]" not in site
    assert "7002    posviz_7002;" in site and "proxy_set_header Upgrade" in site
    # static files: compressed, kept by nginx, and cached by browsers; the websocket is not compressed
    assert "gzip on;" in site and "application/javascript" in site and "proxy_cache posviz_static;" in site
    static = site.split("location /static/ {")[1].split("}")[0]
    assert "immutable" in static and "$posviz_node_cookie" in static  # add_header here replaces the server's
    assert "gzip" not in site.split("location /_stcore/stream {")[1].split("}")[0]
    nginx = scale_out.find_nginx()
    if nginx is None:
        pytest.skip("nginx is not installed: the rendered config is checked with `nginx -t` where it is")
    tmp_path.chmod(0o755)
    conf = scale_out.write_config(tmp_path, [7001, 7002], 7999)
    assert f"proxy_cache_path {tmp_path}/static-cache " in (tmp_path / "posviz.conf").read_text()
    check = subprocess.run([nginx, "-t", "-q", "-c", str(conf), "-p", str(tmp_path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_scale_out_says_when_nginx_is_missing(capsys) -> None:
    assert scale_out.main(["--nginx", "/nonexistent/nginx"]) == 3
    assert "apt-get install -y nginx" in capsys.readouterr().err
