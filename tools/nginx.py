"""App processes behind nginx on loopback: ``deploy/nginx.conf`` rendered for free ports, started, stopped.

``tools.scale_out`` runs the load test through it; ``tools.browser --nginx`` opens pages through it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from collections import Counter
from pathlib import Path

from tools import fault_nginx, procs
from tools.procs import REPO

SITE = REPO / "deploy" / "nginx.conf"
LOG_FORMAT = "'$upstream_addr $cookie_posviz_node $request_method $uri $status'"


def find_nginx(explicit: str = "") -> str | None:
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def render_site(ports: list[int], listen_port: int) -> str:
    """``deploy/nginx.conf`` with its app processes on ``ports`` and a loopback listen (``tools.fault_nginx``)."""
    return fault_nginx.render_site(ports, listen_port)


def write_config(workdir: Path, ports: list[int], listen_port: int, site: str | None = None) -> Path:
    """A whole nginx configuration in ``workdir`` around the rendered site (or ``site``); its caches and logs there."""
    site, count = re.subn(
        r"proxy_cache_path \S+",
        f"proxy_cache_path {workdir}/static-cache",
        render_site(ports, listen_port) if site is None else site,
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


def start_proxy(nginx: str, workdir: Path, conf: Path, listen: int) -> tuple[subprocess.Popen, str]:
    """nginx on configuration ``conf`` (checked first with ``nginx -t``), healthy on ``listen``; (process, url)."""
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
    return proxy, url


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
        proxy, url = start_proxy(nginx, workdir, write_config(workdir, ports, listen), listen)
        yield url, [a.pid for a in apps], [f"http://127.0.0.1:{p}" for p in ports]
    finally:
        if proxy is not None and proxy.poll() is None:
            os.killpg(proxy.pid, signal.SIGQUIT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proxy.wait(timeout=10)
        for app in apps:
            procs.stop_server(app)
