"""Smoke test of the benchmark: quick mode runs and the pages' charts stay small."""

from posviz.bench import REGISTRY, run_all


def test_quick_bench_structure_and_chart_size():
    out = run_all(quick=True, repeats=1)
    assert {"machine", *REGISTRY} <= out.keys()
    for name, entry in REGISTRY.items():
        assert [r["L"] for r in out[name]] == list(entry.quick)
        for record in out[name]:
            assert record["compute_s"] >= 0 and record["peak_rss_mb"] > 0
            if "render_s" in record:
                assert record["render_s"] >= 0
                assert record["max_chart_bytes"] == max(record["chart_bytes"].values()) > 0
    t5_at_512 = out["posviz_t5"][0]
    assert t5_at_512["L"] == 512
    assert t5_at_512["max_chart_bytes"] < 1_000_000, t5_at_512["chart_bytes"]
    assert out["posviz_shaw"][0]["charts"] == 7 and out["posviz_skew"][0]["charts"] == 3
    # The skew keeps L x dim floats where Shaw keeps L x L x dim: a factor of L.
    shaw, skew = out["shaw_R_memory"][0], out["skew_Er_memory"][0]
    assert shaw["tensor_bytes"] == 256 * skew["tensor_bytes"] == 256 * 256 * 64 * 4
