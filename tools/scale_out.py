"""1 against N app processes behind nginx, on loopback, measured with the load test.

    python -m tools.scale_out --processes 2 --sessions 50 --changes 5 --page t5

For each process count (1, then N) this starts that many ``streamlit run app.py``
on free loopback ports, renders ``deploy/nginx.conf`` into a temporary nginx
configuration that lists exactly those ports and listens on a free loopback
port, starts nginx from it (Debian's package: ``apt-get install -y nginx``),
runs ``tools.loadtest`` through nginx, and stops everything. It prints one
JSON object: each run's load-test report, how many sessions each process held
(from nginx's log of upstream addresses), whether every browser stayed on one
process, and the p95 per rerun for 1 against N processes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tools import loadtest
from tools.nginx import cluster, find_nginx, render_site, upstream_report, write_config
from tools.procs import emit_report, run_async

NGINX_MISSING = (
    "scale_out: nginx is not installed (looked for `nginx` on PATH and in /usr/sbin).\n"
    "Install Debian's package with `apt-get install -y nginx` (or pass --nginx PATH) and run this again."
)


__all__ = ["cluster", "find_nginx", "main", "render_site", "upstream_report", "write_config"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.scale_out", description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2, help="N app processes (default: cores)")
    parser.add_argument("--only", choices=["1", "N", "both"], default="both", help="which process counts to run")
    parser.add_argument("--nginx", default="", help="path of the nginx binary")
    loadtest.add_class_arguments(parser)
    parser.add_argument("--out", default="", help="also write the JSON report to this file")
    args = parser.parse_args(argv)

    nginx = find_nginx(args.nginx)
    if nginx is None:
        print(NGINX_MISSING, file=sys.stderr)
        return 3
    if not 1 <= args.processes <= 16:
        print("scale_out: --processes must be 1 to 16", file=sys.stderr)
        return 2
    counts = {"1": [1], "N": [args.processes], "both": sorted({1, args.processes})}[args.only]
    runs = {}
    for n in counts:
        workdir = Path(tempfile.mkdtemp(prefix=f"posviz-nginx-{n}-"))
        workdir.chmod(0o755)  # nginx's workers (user nobody when started as root) reach their temp dirs
        try:
            with cluster(n, nginx, workdir) as (url, pids, app_urls):
                report = run_async(
                    loadtest.load(
                        url,
                        **loadtest.class_options(args),
                        pids=pids,
                        warm_urls=app_urls,  # every process imports torch before the class arrives
                    )
                )
            report["nginx"] = upstream_report(workdir / "access.log")
        except RuntimeError as exc:
            print(f"scale_out: {exc}", file=sys.stderr)
            return 2
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        runs[str(n)] = report
    summary = {
        f"{n} process{'es' if n > 1 else ''}": {
            "p95_s": r["rerun_s"]["p95"],
            "p50_s": r["rerun_s"]["p50"],
            "finished": f"{r['finished']}/{r['sessions']}",
            "errors": r["errors"],
            "exceptions": r["exceptions"],
            "rss_peak_mb": r["rss_mb"]["peak"],
        }
        for n, r in ((int(k), v) for k, v in runs.items())
    }
    out = {"summary": summary, "runs": runs}
    emit_report(out, args.out)
    ok = all(r["finished"] == r["sessions"] and not r["errors"] for r in runs.values())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
