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
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tools import fault_nginx, loadtest, procs
from tools.procs import REPO, run_async

SITE = REPO / "deploy" / "nginx.conf"
NGINX_MISSING = (
    "scale_out: nginx is not installed (looked for `nginx` on PATH and in /usr/sbin).\n"
    "Install Debian's package with `apt-get install -y nginx` (or pass --nginx PATH) and run this again."
)
LOG_FORMAT = "'$upstream_addr $cookie_posviz_node $request_method $uri $status'"


def find_nginx(explicit: str = "") -> str | None:
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def render_site(ports: list[int], listen_port: int) -> str:
    """``deploy/nginx.conf`` with its app processes on ``ports`` and a loopback listen (``tools.fault_nginx``)."""
    return fault_nginx.render_site(ports, listen_port)


def write_config(workdir: Path, ports: list[int], listen_port: int) -> Path:
    """A whole nginx configuration in ``workdir`` around the rendered site; its caches and logs there too."""
    site, count = re.subn(
        r"proxy_cache_path \S+", f"proxy_cache_path {workdir}/static-cache", render_site(ports, listen_port)
    )
    if count != 1:
        raise RuntimeError(f"expected one proxy_cache_path in {SITE}")
    (workdir / "posviz.conf").write_text(site)
    conf = workdir / "nginx.conf"
    conf.write_text(
        f"""worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    log_format upstreams {LOG_FORMAT};
    access_log {workdir}/access.log upstreams;
    client_body_temp_path {workdir}/client_body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
    include {workdir}/posviz.conf;
}}
"""
    )
    return conf


def upstream_report(log: Path) -> dict:
    """Sessions per process and stickiness, from nginx's log of upstream addresses.

    The ``posviz_node`` cookie names the process a browser was sent to last (its port; ``-``
    on a browser's first request). ``requests_off_their_process``: requests that carried it and
    were not first offered to that process; ``media_not_found``: media and downloads that
    answered 404 (a session's files asked of a process that does not hold it).
    """
    sessions: Counter[str] = Counter()
    strayed = requests = not_found = 0
    for line in log.read_text().splitlines():
        parts = line.replace(", ", ",").replace(" : ", ",").split()
        if len(parts) < 5:
            continue
        upstream, node, _method, uri, status = parts[:5]
        if uri == "/_stcore/stream":
            sessions[upstream.split(",")[-1]] += 1
        first = upstream.split(",")[0]
        if node.isdigit() and first.startswith("127.0.0.1:"):
            strayed += not first.endswith(f":{node}")
        not_found += uri.startswith("/media/") and status == "404"
        requests += 1
    return {
        "sessions_per_process": dict(sorted(sessions.items())),
        "requests_off_their_process": strayed,
        "media_not_found": not_found,
        "requests": requests,
    }


@contextlib.contextmanager
def cluster(processes: int, nginx: str, workdir: Path, variant: procs.Variant | None = None):
    """``processes`` app servers (``variant``'s configuration) and nginx in front; yields (url, app pids, app urls)."""
    variant = variant or procs.Variant()
    apps, proxy = [], None
    try:
        ports = [procs.free_port() for _ in range(processes)]
        for i, port in enumerate(ports):
            log = workdir / f"app{i}.log"
            env = dict(variant.env)
            apps.append(procs.start_server(port, log_path=log, extra_args=variant.args, cwd=variant.cwd, env=env))
        for port, app in zip(ports, apps, strict=True):
            procs.wait_healthy(f"http://127.0.0.1:{port}", 180, app)
        listen = procs.free_port()
        conf = write_config(workdir, ports, listen)
        check = subprocess.run([nginx, "-t", "-q", "-c", str(conf), "-p", str(workdir)], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"nginx refused the rendered configuration:\n{check.stderr}")
        proxy = subprocess.Popen(
            [nginx, "-c", str(conf), "-p", str(workdir), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=open(workdir / "nginx.stderr", "wb"),  # noqa: SIM115 - closed with the process
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{listen}"
        procs.wait_healthy(url, 30, proxy)
        yield url, [a.pid for a in apps], [f"http://127.0.0.1:{p}" for p in ports]
    finally:
        if proxy is not None and proxy.poll() is None:
            os.killpg(proxy.pid, signal.SIGQUIT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proxy.wait(timeout=10)
        for app in apps:
            procs.stop_server(app)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.scale_out", description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2, help="N app processes (default: cores)")
    parser.add_argument("--only", choices=["1", "N", "both"], default="both", help="which process counts to run")
    parser.add_argument("--nginx", default="", help="path of the nginx binary")
    parser.add_argument("--page", default="t5")
    parser.add_argument("--query", default="")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--changes", type=int, default=5)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--ramp", type=float, default=2.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
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
                        page=args.page,
                        query=args.query,
                        sessions=args.sessions,
                        changes=args.changes,
                        think=args.think,
                        ramp=args.ramp,
                        timeout=args.timeout,
                        settle=args.settle,
                        seed=args.seed,
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
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    ok = all(r["finished"] == r["sessions"] and not r["errors"] for r in runs.values())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
