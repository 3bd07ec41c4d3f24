"""Smoke test of the benchmark: quick mode runs and the T5 page's charts stay small."""

from posviz.bench import REGISTRY, STAGES, run_all


def test_quick_bench_structure_and_chart_size():
    out = run_all(quick=True, repeats=1)
    assert {"machine", *REGISTRY} <= out.keys()
    for name, entry in REGISTRY.items():
        assert [r["L"] for r in out[name]] == list(entry.quick)
        for record in out[name]:
            assert all(record[f"{stage}_s"] >= 0 for stage in STAGES)
            assert record["max_chart_bytes"] == max(record["chart_bytes"].values()) > 0
            assert record["peak_rss_mb"] > 0
    t5_at_512 = out["posviz_t5"][0]
    assert t5_at_512["L"] == 512
    assert t5_at_512["max_chart_bytes"] < 1_000_000, t5_at_512["chart_bytes"]
