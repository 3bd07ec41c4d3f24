"""``deploy/nginx.conf`` for other app ports: its block of app processes written for a list of ports.

    python -m tools.fault_nginx 8501 8502 8503 8504      # prints the block deploy/nginx.conf holds

The block (between ``# BEGIN app processes`` and ``# END app processes``) has one upstream that
takes new browsers in turn, one upstream per process that lists the others as backups, and the
map from the ``posviz_node`` cookie (a port) to that process's upstream. The tests check that the
file holds exactly what :func:`processes_block` writes for 8501-8504.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SITE = Path(__file__).resolve().parents[1] / "deploy" / "nginx.conf"
BEGIN = "# BEGIN app processes"
END = "# END app processes"


def processes_block(ports: list[int]) -> str:
    """The upstreams and the cookie map for app processes on ``127.0.0.1:<port>``, one port each."""
    if not ports or len(set(ports)) != len(ports):
        raise ValueError(f"want distinct ports, got {ports}")
    lines = ["upstream posviz {"]
    lines += [f"    server 127.0.0.1:{p} max_fails=3 fail_timeout=10s;" for p in ports]
    lines.append("}")
    for i, port in enumerate(ports):
        others = ports[i + 1 :] + ports[:i]  # the next processes in the ring take over, in order
        lines.append(f"upstream posviz_{port} {{")
        lines.append(f"    server 127.0.0.1:{port} max_fails=0;")
        lines += [f"    server 127.0.0.1:{p} max_fails=0 backup;" for p in others]
        lines.append("}")
    lines.append("map $cookie_posviz_node $posviz_pool {")
    lines.append("    default posviz;               # no cookie, or one naming no process here")
    lines += [f"    {p:<7} posviz_{p};" for p in ports]
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_site(ports: list[int], listen_port: int | None = None, site: str | None = None) -> str:
    """``deploy/nginx.conf`` with its app processes on ``ports`` and, if given, a loopback ``listen_port``."""
    site = SITE.read_text() if site is None else site
    head, found, rest = site.partition(BEGIN)
    old, found_end, tail = rest.partition(END)
    if not found or not found_end:
        raise RuntimeError(f"{SITE} has no '{BEGIN}' ... '{END}' block")
    comment, _, _ = old.partition("\nupstream ")
    site = f"{head}{BEGIN}{comment}\n{processes_block(ports)}{END}{tail}"
    if listen_port is not None:
        site = re.sub(r"^\s*listen \[::\]:80;\n", "", site, flags=re.M)
        site, count = re.subn(r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{listen_port};", site, flags=re.M)
        if count != 1:
            raise RuntimeError(f"expected one `listen 80;` in {SITE}")
    return site


if __name__ == "__main__":
    print(processes_block([int(p) for p in sys.argv[1:]] or [8501, 8502, 8503, 8504]), end="")
