"""posviz.hub against a local server that answers like the Hub (tests/data/local_hub.py): no internet."""

from __future__ import annotations

import json
import threading

import pytest

from posviz import hub
from posviz.encodings.models import model_positions, read_config
from posviz.hub import HubError, HubId, fetch_config, parse_model_ref
from tests.data.local_hub import LLAMA_TINY, LocalHub


@pytest.fixture
def local(monkeypatch):
    with LocalHub(slow_for=5.0) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        hub.CACHE.clear()
        yield server
    hub.CACHE.clear()


def kind_of(ref: str) -> str:
    with pytest.raises(HubError) as e:
        fetch_config(parse_model_ref(ref))
    return e.value.kind


@pytest.mark.parametrize(
    "text",
    ["gpt2", "a/b/c", "a--b/c", "-a/b", "a/b.git", "http://example.com/a", "../../etc/passwd", "a/b@..", "a/b@-x",
     "a b/c", "x" * 97 + "/b", "org/name@rev\nx"],
)  # fmt: skip
def test_ids_are_checked_by_the_hubs_rules_before_any_request(text, local):
    with pytest.raises(HubError) as e:
        parse_model_ref(text)
    assert e.value.kind == "invalid"
    assert not local.hits


def test_valid_ids_and_revisions():
    assert parse_model_ref("Qwen/Qwen3-8B") == HubId("Qwen/Qwen3-8B")
    assert parse_model_ref(" org/m@refs/pr/1 ") == HubId("org/m", "refs/pr/1")
    assert str(parse_model_ref("org/m@v2")) == "org/m@v2"


def test_fetches_the_resolve_url_of_the_endpoint(local):
    data = fetch_config(parse_model_ref("org/llama-tiny"))
    assert json.loads(data) == LLAMA_TINY
    assert local.hits == {"/org/llama-tiny/resolve/main/config.json": 1}
    assert model_positions(read_config(data)).num_layers == 6


def test_a_revision_is_its_own_file_and_its_own_cache_entry(local):
    assert json.loads(fetch_config(parse_model_ref("org/llama-tiny@v2")))["num_hidden_layers"] == 4
    assert json.loads(fetch_config(parse_model_ref("org/llama-tiny")))["num_hidden_layers"] == 6
    assert kind_of("org/llama-tiny@nope") == "revision"


def test_one_request_per_id_for_every_session(local):
    ref = parse_model_ref("org/llama-tiny")
    threads = [threading.Thread(target=fetch_config, args=(ref,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fetch_config(ref)
    assert local.hits["/org/llama-tiny/resolve/main/config.json"] == 1


def test_entries_expire_and_the_cache_is_bounded(local, monkeypatch):
    ref = parse_model_ref("org/llama-tiny")
    fetch_config(ref)
    monkeypatch.setattr(hub, "TTL", -1.0)  # every entry is now past its time
    fetch_config(ref)
    assert local.hits["/org/llama-tiny/resolve/main/config.json"] == 2
    small = hub._Cache(max_entries=2)
    for i in range(5):
        small.put(("e", f"org/m{i}", None), b"{}", 0.0)
    assert len(small.entries) == 2 and ("e", "org/m4", None) in small.entries


@pytest.mark.parametrize(
    "ref, kind",
    [("org/gated", "gated"), ("org/private", "missing"), ("org/missing", "missing"), ("org/no-config", "no_config"),
     ("org/huge", "too_big"), ("org/away", "error")],
)  # fmt: skip
def test_each_failure_has_its_kind(ref, kind, local):
    assert kind_of(ref) == kind


def test_a_redirect_within_the_hub_is_followed(local):
    assert json.loads(fetch_config(parse_model_ref("org/moved"))) == LLAMA_TINY
    assert not any("elsewhere" in path for path in local.hits)


def test_a_failure_is_remembered_briefly(local):
    assert kind_of("org/missing") == "missing"
    assert kind_of("org/missing") == "missing"
    assert local.hits["/org/missing/resolve/main/config.json"] == 1


def test_slow_hub_times_out(local, monkeypatch):
    monkeypatch.setattr(hub, "TIMEOUT", 0.5)
    assert kind_of("org/slow") == "timeout"


def test_offline_sends_nothing(local, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert kind_of("org/llama-tiny") == "offline"
    assert not local.hits


def test_no_server_is_no_hub_access(monkeypatch):
    with LocalHub() as gone:
        url = gone.url
    monkeypatch.setenv("HF_ENDPOINT", url)  # a port nothing listens on any more
    hub.CACHE.clear()
    assert kind_of("org/llama-tiny") == "offline"
    hub.CACHE.clear()


def test_hub_module_has_no_streamlit():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(hub))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any("streamlit" in str(x) for x in names | modules)


def test_the_hubs_cap_is_the_uploads():
    from posviz.ui.models.settings import MAX_UPLOAD_BYTES

    assert hub.MAX_BYTES == MAX_UPLOAD_BYTES
