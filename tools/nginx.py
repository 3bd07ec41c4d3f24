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
from collections import Counter, defaultdict
from pathlib import Path

from tools import procs
from tools.procs import REPO

SITE = REPO / "deploy" / "nginx.conf"
LOG_FORMAT = "'$upstream_addr $posviz_node $request_method $uri $status'"


def find_nginx(explicit: str = "") -> str | None:
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def render_site(ports: list[int], listen_port: int) -> str:
    """``deploy/nginx.conf`` with its upstream servers replaced by ``ports`` and a loopback listen."""
    site = SITE.read_text()
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+[^\n]*\n", site, flags=re.M)
    if not servers:
        raise RuntimeError(f"no `server 127.0.0.1:PORT` lines in the upstream of {SITE}")
    options = servers[0].split(";")[0].split(maxsplit=2)[2:]  # what follows the address, e.g. max_fails
    new = "".join(f"    server 127.0.0.1:{p} {' '.join(options)};\n".replace(" ;", ";") for p in ports)
    if "".join(servers) not in site:  # the lines must be consecutive to be replaced as one block
        raise RuntimeError(f"the upstream servers of {SITE} are not on consecutive lines")
    site = site.replace("".join(servers), new, 1)
    site = re.sub(r"^\s*listen \[::\]:80;\n", "", site, flags=re.M)
    site, count = re.subn(r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{listen_port};", site, flags=re.M)
    if count != 1:
        raise RuntimeError(f"expected one `listen 80;` in {SITE}")
    return site


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
    """Sessions per process and stickiness, from nginx's log of upstream addresses."""
    sessions: Counter[str] = Counter()
    processes_per_browser: dict[str, set[str]] = defaultdict(set)
    cookies_seen = 0
    for line in log.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        upstream, node, _method, uri, _status = parts[:5]
        if uri == "/_stcore/stream":
            sessions[upstream] += 1
        processes_per_browser[node].add(upstream)
        cookies_seen += 1
    return {
        "sessions_per_process": dict(sorted(sessions.items())),
        "browsers": len(processes_per_browser),
        "browsers_on_more_than_one_process": sum(len(v) > 1 for v in processes_per_browser.values()),
        "requests": cookies_seen,
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
