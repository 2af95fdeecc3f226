"""The container's health check (deploy/Dockerfile's HEALTHCHECK, docs/web.md "Deploy"): exit 0
when the ``getaway serve`` of this container answers ``GET /healthz`` with 200 ``{"status":
"ok"}`` (its database answers, it is not starting or draining), else 1 with the reason.

The standard library only (the slim image has no curl). The request names the first host of
``GETAWAY_ALLOWED_HOSTS`` (the server refuses other names with 400); the port is the first
argument, else 8000 (the image's).

Run: ``python deploy/healthcheck.py [PORT]``.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request


def healthy(port: int, hosts: str) -> str | None:
    """``None`` when the server on ``127.0.0.1:port`` is healthy, else why not (``hosts``: the
    value of ``GETAWAY_ALLOWED_HOSTS``)."""
    names = hosts.split()
    host = names[0] if names else "localhost"
    request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=3) as answer:
            status = json.load(answer).get("status")
    except (OSError, ValueError) as exc:  # refused, timed out, a 503 (an HTTPError), not JSON
        return str(exc)
    return None if status == "ok" else f"status {status!r}"


def main(argv: list[str]) -> int:
    port = int(argv[1]) if len(argv) > 1 else 8000
    problem = healthy(port, os.environ.get("GETAWAY_ALLOWED_HOSTS", ""))
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
