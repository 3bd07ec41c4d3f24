"""Smoke test of the benchmark: quick mode runs on the real server and the pages' charts stay small."""

from tools.bench import BACKEND, PAGES, run_all


def test_quick_bench_structure_and_chart_size():
    out = run_all(quick=True, repeats=1)
    assert {"machine", *PAGES, *BACKEND} <= out.keys()
    for name, case in PAGES.items():
        assert [r["L"] for r in out[name]] == list(case.quick)
        for record in out[name]:
            assert record["cold_cpu_ms"] > 0 and record["server_rss_mb"] > 0, (name, record)
            assert record["charts"] > 0 and record["max_chart_bytes"] > 0, (name, record)
            # the websocket carried every chart's spec (and the rest of the page)
            assert record["ws_bytes"] > record["total_chart_bytes"] >= record["max_chart_bytes"], (name, record)
    t5_at_512 = out["posviz_t5"][0]
    assert t5_at_512["L"] == 512
    assert t5_at_512["max_chart_bytes"] < 1_000_000, t5_at_512
    assert out["posviz_shaw"][0]["charts"] == 7 and out["posviz_skew"][0]["charts"] == 3
    # The skew keeps L x dim floats where Shaw keeps L x L x dim: a factor of L.
    shaw, skew = out["shaw_R_memory"][0], out["skew_Er_memory"][0]
    assert shaw["bytes"] == 256 * skew["bytes"] == 256 * 256 * 64 * 4
    assert out["naive_seed"][0]["bytes"] > 512 * 512  # one JSON number or more per cell of the full matrix


def test_run_async_inside_a_running_loop():
    # The browser tests keep Playwright's sync loop running in the main thread for the whole
    # session; the tools' coroutines must still run after them (asyncio.run alone refuses).
    import asyncio

    from tools.procs import run_async

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def nested() -> int:
        return run_async(answer())

    assert run_async(answer()) == 42
    assert run_async(nested()) == 42  # nested: a loop runs in the calling thread


def test_the_floor_table_reads_each_page_against_its_floor() -> None:
    from tools.floor import table

    report = {"floor": {"after": {"t5": {"charts": 4, "page_ms": 2200, "floor_ms": 2000, "ratio": 1.1}}}}
    assert table(report) == "   after /t5           4 charts  page  2200 ms  floor  2000 ms  ratio 1.10"
