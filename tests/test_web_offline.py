"""Offline play against bots, server side and Python side (issue 25 item 6, docs/web.md "Offline"):
``/offline/files.json`` lists every file the page keeps, with true sizes and hashes; the game's
zip is built from the server's own package files and runs alone on the standard library (no
FastAPI, no compiled engine: what Pyodide has); the worker gets its own Content-Security-Policy
and the page keeps its strict one; the worker's messages (``getaway.web.offline.answer``) play a
deal by the rules, refuse bad input without changing anything, and never show a hidden hand.
The browser part is tests/test_web_offline_browser.py."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import zipfile

import pytest

from getaway.core.record import deal_from_record
from getaway.web import offline
from getaway.web.routes.offline import OFFLINE_FILES, PACKAGE_DIR, STATIC_DIR, WORKER_CSP, files_manifest, package_zip
from web_helpers import make_client


@pytest.fixture
def client(tmp_path):
    with make_client(tmp_path) as c:
        yield c


def test_files_json_lists_every_offline_file_with_its_size_and_hash(client):
    r = client.get("/offline/files.json")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
    manifest = r.json()
    assert manifest == files_manifest()
    urls = [f["url"] for f in manifest["files"]]
    assert manifest["package"] in urls and len(set(urls)) == len(urls)
    # every file under static/offline/ is listed but the licence and npm's package.json (kept
    # beside the runtime, not needed by the page)
    on_disk = {p.relative_to(STATIC_DIR).as_posix() for p in (STATIC_DIR / "offline").rglob("*") if p.is_file()}
    assert on_disk - set(OFFLINE_FILES) == {"offline/pyodide/LICENSE", "offline/pyodide/package.json"}
    for entry in manifest["files"]:
        body = client.get(entry["url"])
        assert body.status_code == 200, entry["url"]
        assert len(body.content) == entry["bytes"] and hashlib.sha256(body.content).hexdigest() == entry["sha256"]
    assert client.get("/static/offline/pyodide/pyodide.asm.wasm").headers["content-type"] == "application/wasm"
    pyodide = json.loads((STATIC_DIR / "offline/pyodide/package.json").read_text())
    assert pyodide["name"] == "pyodide" and pyodide["license"] == "MPL-2.0"
    assert "Mozilla Public License Version 2.0" in (STATIC_DIR / "offline/pyodide/LICENSE").read_text()


def test_the_package_zip_is_the_servers_own_sources_and_immutable_under_its_version(client):
    data, version = package_zip()
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "getaway/core/deal.py" in names and "getaway/bots/expert.py" in names and "getaway/web/offline.py" in names
    assert all(n.endswith(".py") for n in names)  # sources only: no compiled engine, no bytecode
    assert not [
        n for n in names if n.startswith(("getaway/text/", "getaway/sim/", "getaway/envs/", "getaway/web/rooms"))
    ]
    for name in names:  # byte for byte the files this server runs: one copy of the rules
        assert (
            zipfile.ZipFile(io.BytesIO(data)).read(name) == (PACKAGE_DIR / name.removeprefix("getaway/")).read_bytes()
        )
    r = client.get(f"/offline/getaway-{version}.zip")
    assert r.status_code == 200 and r.content == data and "immutable" in r.headers["cache-control"]
    stale = client.get("/offline/getaway-0123456789abcdef.zip")
    assert stale.status_code == 404 and stale.json()["error"]["code"] == "not_found"


def test_the_worker_has_its_own_policy_and_the_page_keeps_the_strict_one(client):
    worker = client.get("/static/offline/worker.js")
    assert worker.status_code == 200 and worker.headers["content-security-policy"] == WORKER_CSP
    assert "javascript" in worker.headers["content-type"]
    assert "'unsafe-eval'" not in WORKER_CSP and "'unsafe-inline'" not in WORKER_CSP
    for path in ("/", "/static/offline.js", "/static/app.js"):
        csp = client.get(path).headers["content-security-policy"]
        assert csp.startswith("default-src 'none'; script-src 'self';") and "blob:" not in csp and "wasm" not in csp


def test_the_zip_plays_a_deal_alone_on_the_standard_library(tmp_path):
    """What Pyodide runs: the zip on the path, no site-packages (no FastAPI, no pydantic), no
    compiled engine; a whole deal through ``answer`` and a record that replays here."""
    path = tmp_path / "getaway.zip"
    path.write_bytes(package_zip()[0])
    script = f"""
import json, sys
sys.path.insert(0, {str(path)!r})
from getaway.web.offline import answer
from getaway.core import _engine
new = {{"kind": "new", "level": "medium", "seed": 5, "secret": "ab" * 32, "name": "Asha"}}
state = json.loads(answer(json.dumps(new)))
while not state["over"]:
    if state["human_to_act"]:
        state = json.loads(answer(json.dumps({{"kind": "play", "action": state["view"]["legal_actions"][-1]}})))
    else:
        state = json.loads(answer('{{"kind": "bot"}}'))
ours = sorted(m for m in sys.modules if m.startswith("getaway"))
outside = sorted(m.split(".")[0] for m in sys.modules if m.split(".")[0] not in sys.stdlib_module_names)
print(json.dumps({{"record": json.loads(answer('{{"kind": "record"}}'))["record_text"], "ours": ours,
                  "outside": sorted(set(outside) - {{"getaway", "__main__"}}), "compiled": _engine.COMPILED,
                  "file": sys.modules["getaway.core.deal"].__file__}}))
"""
    done = subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["outside"] == [] and out["compiled"] is False and out["file"].startswith(str(path))
    assert not [
        m
        for m in out["ours"]
        if m.startswith(("getaway.text", "getaway.sim", "getaway.envs", "getaway.web.")) and m != "getaway.web.offline"
    ]
    record = json.loads(out["record"])
    deal = deal_from_record(record)
    assert deal.is_over and record["players"] == ["Asha", "Bot 2", "Bot 3", "Bot 4"] and record["seed"] >= 2**64


def _ask(message) -> dict:
    return json.loads(offline.answer(message if isinstance(message, str) else json.dumps(message)))


def test_bad_messages_and_refused_moves_change_nothing_and_hands_stay_hidden():
    state = _ask({"kind": "new", "level": "easy", "seed": 3, "secret": "00" * 32, "name": "Ben"})
    while not state["human_to_act"]:
        state = _ask({"kind": "bot"})
    before = _ask({"kind": "view"})
    view = before["view"]
    assert view["hand"] is not None and len(view["hand"]) == view["hand_sizes"][0]
    assert set(view) >= {"hand_sizes", "legal_actions", "trick", "history"} and "hands" not in view
    illegal = (
        next(c for c in view["hand"] if c not in view["legal_actions"])
        if len(view["legal_actions"]) < len(view["hand"])
        else "pickup"
    )
    for bad, code in [
        ("not json", "bad_message"),
        ("[1, 2]", "bad_message"),
        ({"kind": "fly"}, "bad_message"),
        ({"kind": "play", "action": "zz"}, "bad_message"),
        ({"kind": "play", "action": illegal}, None),
        ({"kind": "new", "level": "genius", "secret": "00" * 32}, "bad_message"),
        ({"kind": "new", "level": "easy", "secret": "00"}, "bad_message"),
    ]:
        error = _ask(bad)["error"]
        assert error["message"] and (code is None or error["code"] == code), (bad, error)
        assert _ask({"kind": "view"}) == before
    # a bot cannot move while it is the human's turn
    assert _ask({"kind": "bot"}) == {"step": None, **before}


def test_an_offline_record_replays_and_is_reviewed_back_online(client):
    """The downloaded record is an ordinary ``getaway/1`` record: the replay page and the review
    take it as they take a server room's."""
    state = _ask({"kind": "new", "level": "easy", "seed": 11, "secret": "5a" * 32, "name": "Chen"})
    while not state["over"]:
        state = _ask(
            {"kind": "play", "action": state["view"]["legal_actions"][0]} if state["human_to_act"] else {"kind": "bot"}
        )
    text = _ask({"kind": "record"})["record_text"]
    record = json.loads(text)
    assert record["seed"] >= 2**64 and str(record["seed"]) in text  # exact, as text
    frame = client.post("/api/replay", json={"record": record, "seat": 0})
    assert frame.status_code == 200, frame.text
    assert frame.json()["players"] == ["Chen", "Bot 2", "Bot 3", "Bot 4"] and frame.json()["moves"] == len(
        record["actions"]
    )
    review = client.post("/api/review", json={"record": record, "seat": 0, "iterations": 1})
    assert review.status_code == 200, review.text
    assert review.json()["seat"] == 0 and review.json()["players"][0] == "Chen"
