"""One visitor against the lobby (issue 29 item 2; docs/web.md "The lobby"): can one address fill
the lobby, and do quick plays from other addresses end in rooms that start?

Starts a server (a temporary SQLite file; the default limits: 30 rooms a minute per address in
bursts of 60, ``public_rooms_per_address`` 3) and, on loopback:

1. from 127.0.0.1, ``--rooms`` public rooms asked in one burst (``--parallel`` at once), each with
   a named host, who then never starts them;
2. from 127.0.0.2, 127.0.0.3 … (one address each), ``--quick`` quick plays, one after another;
3. for each quick player: the room's status, and whether their seat's token starts it.

It prints how many rooms were made and refused (by code), how many of the lobby's places the
attacker holds, and for each quick player where they ended (a room already playing, started when
its last seat was taken or by another quick player; a room they start as one more host; or a room
of their own, which they start), with each quick play's latency; exit
status 1 when the attacker holds more than the cap or a quick player can neither play nor start.

    .venv/bin/python bench/lobby_flood.py                       # this code
    .venv/bin/python bench/lobby_flood.py --src /work/main/src  # another checkout's server (before/after)
    .venv/bin/python bench/lobby_flood.py --json
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import Server, free_port  # noqa: E402

#: The room each attacker's request asks for (the lobby's defaults, takes off).
ROOM = {"profile": "punjab", "players": 4, "deals": 1, "public": True, "name": "Mallory", "options": {"takes": "off"}}


def client(address: str) -> httpx.Client:
    """An HTTP client whose connections come from ``address`` (a loopback address: 127.0.0.0/8)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)


def flood(base: str, rooms: int, parallel: int) -> list[dict[str, Any]]:
    """``rooms`` public rooms asked at once from 127.0.0.1: each answer's status and body."""
    with client("127.0.0.1") as http:

        def one(_: int) -> dict[str, Any]:
            r = http.post(f"{base}/api/rooms", json=ROOM)
            return {"status": r.status_code, "body": r.json()}

        with ThreadPoolExecutor(parallel) as pool:
            return list(pool.map(one, range(rooms)))


def quick_plays(base: str, n: int) -> list[dict[str, Any]]:
    """``n`` quick plays, each from its own address (127.0.0.2 …), one after another; then, for
    each, where it ended and whether its seat's token starts the room."""
    players = []
    for i in range(n):
        with client(f"127.0.0.{i + 2}") as http:
            t = time.perf_counter()
            r = http.post(f"{base}/api/quickplay", json={"name": f"Guest {i}"})
            ms = (time.perf_counter() - t) * 1000
            players.append({"address": f"127.0.0.{i + 2}", "status": r.status_code, "ms": round(ms, 1), **r.json()})
    with client("127.0.0.200") as http:
        for p in players:
            if p["status"] != 200:
                p["outcome"] = "refused"
                continue
            state = http.get(f"{base}/api/rooms/{p['code']}").json()
            if state["status"] != "lobby":
                p["outcome"] = "playing (started by others)"
                continue
            started = http.post(
                f"{base}/api/rooms/{p['code']}/start", headers={"Authorization": f"Bearer {p['token']}"}
            )
            if started.status_code == 200:
                p["outcome"] = "own room, started" if p["created"] else "one more host, started"
            else:
                p["outcome"] = f"waiting: cannot start ({started.json()['error']['code']})"
    return players


def main(argv: list[str] | None = None) -> int:
    """Run the trial (see the module doc); 0 when the lobby held, 1 otherwise."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=60, help="public rooms the attacker asks for")
    parser.add_argument("--parallel", type=int, default=20, help="of them at once")
    parser.add_argument("--quick", type=int, default=5, help="quick plays from other addresses")
    parser.add_argument("--src", help="run this src folder's server (another checkout)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.src:
        os.environ["PYTHONPATH"] = str(Path(args.src).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "lobby.db", free_port(), rooms_per_minute=30.0)
        try:
            server.wait_ready()
            t = time.perf_counter()
            made = flood(server.base, args.rooms, args.parallel)
            burst_s = time.perf_counter() - t
            with client("127.0.0.200") as http:
                listed = http.get(f"{server.base}/api/rooms", params={"public": 1}).json()["rooms"]
            ours = {m["body"]["code"] for m in made if m["status"] == 201}
            players = quick_plays(server.base, args.quick)
        finally:
            server.proc.terminate()
            server.proc.wait(15)
            server.log.close()
    refused = collections.Counter(m["body"]["error"]["code"] for m in made if m["status"] != 201)
    figures = {
        "asked": args.rooms,
        "made": len(ours),
        "refused": dict(refused),
        "burst_seconds": round(burst_s, 2),
        "lobby": len(listed),
        "attacker_in_lobby": sum(1 for room in listed if room["code"] in ours),
        "quick": [{k: p.get(k) for k in ("address", "status", "ms", "created", "outcome")} for p in players],
    }
    held = all(
        p["outcome"] in ("playing (started by others)", "own room, started", "one more host, started") for p in players
    )
    figures["held"] = held and figures["attacker_in_lobby"] <= 3
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"asked {args.rooms} public rooms from 127.0.0.1 in {burst_s:.2f} s: ", end="")
        print(f"{len(ours)} made, refused {dict(refused)}")
        print(f"lobby: {figures['lobby']} rooms listed, {figures['attacker_in_lobby']} of them the attacker's")
        for p in figures["quick"]:
            print(f"  quick play from {p['address']}: {p['status']} in {p['ms']} ms → {p['outcome']}")
        print("the lobby held" if figures["held"] else "the lobby was taken")
    return 0 if figures["held"] else 1


if __name__ == "__main__":
    sys.exit(main())
