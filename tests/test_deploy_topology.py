"""The deployment a user copies (issue 26 item 5; docs/web.md "Deploy"): deploy/Dockerfile,
deploy/compose.yaml, the settings file deploy/getaway.env and the nginx files they mount.

Containers cannot run on the machine this project is built on (docs/web.md "Deploy" says what
failed), so no image is built here. The file checks read the files as Docker and compose would;
the topology test starts what compose.yaml starts, without containers, from getaway.env with only
the addresses changed: PostgreSQL (``GETAWAY_TEST_DATABASE_URL``, emptied), a redis-server of its
own with the file's password, the migrate service's command once, the app services as ``getaway
serve`` processes, nginx with the repo's site and the compose upstream file pointed at them; a
deal is played through nginx, then every process is stopped with SIGTERM and must exit 0 within
compose's ``stop_grace_period``.

The topology test needs PostgreSQL, redis-server and nginx, and is skipped without them as the
cluster tests are (``web_helpers.cluster_skip``: it fails instead where ``GETAWAY_REQUIRE_REDIS=1``
or ``GETAWAY_REQUIRE_NGINX=1``); it runs in dev.py's PostgreSQL pass.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import yaml
from sqlalchemy import create_engine, text

from getaway.core.record import deal_from_record
from getaway.text.cli.serve import GRACEFUL_SECONDS
from getaway.web.lifecycle import DRAIN_TIMEOUT
from getaway.web.settings import ServeSettings, env_names
from getaway.web.store import MIGRATIONS
from web_helpers import (
    CLUSTER_SECRET,
    ROOT,
    SETTINGS_ENV,
    FrontSocket,
    Player,
    RedisServer,
    ServerProcess,
    client_from,
    cluster_skip,
    fresh_database,
    play_deal,
    running_front,
)

DEPLOY = ROOT / "deploy"


def read_env(path: Path) -> dict[str, str]:
    """The variables of an env file as compose's ``env_file`` reads this one: ``KEY=VALUE`` lines,
    blank lines and ``#`` comment lines (the file keeps to that: no quotes, no comment after a
    value)."""
    variables: dict[str, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, equals, value = line.partition("=")
        assert equals and re.fullmatch(r"[A-Z_][A-Z0-9_]*", key), f"{path.name}:{number}: not KEY=VALUE: {line!r}"
        assert key not in variables, f"{path.name}:{number}: {key} twice"
        assert " #" not in value and not value.startswith(("'", '"')), f"{path.name}:{number}: {line!r}"
        variables[key] = value
    return variables


ENV = read_env(DEPLOY / "getaway.env")
COMPOSE = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
SERVICES: dict = COMPOSE["services"]
#: The app's image (its services: migrate and the app processes).
IMAGE = SERVICES["migrate"]["image"]
#: The services that run ``getaway serve`` (the image's CMD): app1, app2.
APPS = sorted(name for name, service in SERVICES.items() if service.get("image") == IMAGE and name != "migrate")
#: The variables of getaway.env that the PostgreSQL and Redis containers read (not settings).
SERVICE_VARIABLES = {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB", "REDIS_PASSWORD"}
#: The upstream file compose.yaml mounts for nginx.
UPSTREAM = DEPLOY / "nginx" / "compose-upstream.conf"

ROOM = {"profile": "punjab", "players": 4, "deals": 1, "bot_level": "easy", "options": {"takes": "off"}}


def dockerfile() -> list[tuple[str, str]]:
    """deploy/Dockerfile's instructions, ``(NAME, arguments)``, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    lines = [line.strip() for line in joined.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "")
        for line in lines
        if line and not line.startswith("#")
    ]


def seconds(duration: str) -> float:
    """A compose duration (``50s``, ``1m30s``) in seconds."""
    parts = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", duration)
    assert parts and duration, duration
    return int(parts[1] or 0) * 60 + int(parts[2] or 0)


def upstream_servers() -> list[tuple[str, str]]:
    """The ``server`` lines of the compose upstream file: ``(host:port, parameters)``."""
    found = re.findall(r"^\s*server\s+(\S+)([^;]*);", UPSTREAM.read_text(), re.MULTILINE)
    return [(address, rest.strip()) for address, rest in found]


# --------------------------------------------------------------------------- the files


def test_the_image_is_built_in_two_stages_and_runs_getaway_serve_as_a_user_without_privileges():
    steps = dockerfile()
    stages = [args for name, args in steps if name == "FROM"]
    assert len(stages) == 2 and stages[0].endswith("AS build"), stages
    assert stages[1] == "python:3.11-slim"  # the same Python as the build stage: the compiled engine's ABI
    runtime = steps[[name for name, _ in steps].index("FROM", 1) :]
    build = steps[: len(steps) - len(runtime)]
    assert any(name == "RUN" and "pip wheel" in args for name, args in build)
    assert any(name == "RUN" and "_native__mypyc" in args for name, args in build)  # compiled, or no image
    assert any(name == "RUN" and "requirements/lock.txt" in args for name, args in build + runtime)
    users = [args for name, args in runtime if name == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0"), users
    assert users[-1].split(":")[0] == "10001"
    assert ("EXPOSE", "8000") in runtime and ("STOPSIGNAL", "SIGTERM") in runtime
    (health,) = [args for name, args in runtime if name == "HEALTHCHECK"]
    assert json.loads(health.split("CMD", 1)[1]) == ["python", "/opt/getaway/healthcheck.py"]
    (cmd,) = [args for name, args in runtime if name == "CMD"]
    assert json.loads(cmd) == ["getaway", "serve", "--host", "0.0.0.0", "--port", "8000"]
    for name, args in steps:  # what is copied from the repository exists there
        if name == "COPY" and "--from" not in args:
            for source in args.split()[:-1]:
                assert (ROOT / source).exists(), source


def test_the_build_context_leaves_out_local_builds_databases_and_the_venv():
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    for pattern in (".git", ".venv", "build", "*.db", "**/*.so", "**/__pycache__", "test-artifacts"):
        assert pattern in ignored, pattern


def test_compose_runs_the_migrations_once_before_the_app_processes():
    assert set(SERVICES) == {"postgres", "redis", "migrate", *APPS, "nginx"} and len(APPS) == 2
    postgres = SERVICES["postgres"]
    ready = " ".join(postgres["healthcheck"]["test"])
    # over TCP as the apps connect: the image's first-start server listens on its socket only
    assert postgres["image"] == "postgres:15" and "pg_isready -h 127.0.0.1" in ready
    assert any(volume.endswith(":/var/lib/postgresql/data") for volume in postgres["volumes"])
    assert SERVICES["redis"]["image"] == "redis:7" and "--requirepass" in " ".join(SERVICES["redis"]["command"])
    migrate = SERVICES["migrate"]
    assert migrate["command"][:3] == ["alembic", "-c", "/opt/getaway/migrations/alembic.ini"]
    assert migrate["command"][3:] == ["upgrade", "head"]
    assert migrate["restart"] == "no" and migrate["healthcheck"] == {"disable": True}  # one shot, no server
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert migrate["env_file"] == "getaway.env"
    # the drain's longest time: the rooms, GETAWAY_DRAIN_SECONDS of 503s, the requests still running
    longest = DRAIN_TIMEOUT + float(ENV["GETAWAY_DRAIN_SECONDS"]) + GRACEFUL_SECONDS
    for name in APPS:
        app = SERVICES[name]
        assert app["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
        assert app["depends_on"]["redis"] == {"condition": "service_healthy"}, name
        assert app["env_file"] == "getaway.env" and "command" not in app and "ports" not in app, name
        assert seconds(app["stop_grace_period"]) > longest, (name, app["stop_grace_period"], longest)
        assert app["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    nginx = SERVICES["nginx"]
    assert nginx["image"] == "nginx:1.27" and nginx["ports"] == ["8080:8080"]
    assert nginx["depends_on"] == {name: {"condition": "service_healthy"} for name in APPS}
    for volume in nginx["volumes"]:  # the repo's files, as they are
        source = volume.split(":")[0]
        assert (DEPLOY / source).is_file(), volume
    assert "./nginx/getaway.conf:/etc/nginx/conf.d/getaway.conf:ro" in nginx["volumes"]
    assert "./nginx/compose-upstream.conf:/etc/nginx/getaway-upstream.conf:ro" in nginx["volumes"]
    assert "include getaway-upstream.conf;" in (DEPLOY / "nginx" / "getaway.conf").read_text()


def test_the_nginx_upstream_names_are_the_app_services_on_the_image_s_port():
    assert sorted(address for address, _ in upstream_servers()) == [f"{name}:8000" for name in APPS]
    # nginx resolves the names once: each app keeps a fixed address, and the processes believe
    # X-Forwarded-For from nginx's alone
    addresses = {name: SERVICES[name]["networks"]["getaway"]["ipv4_address"] for name in SERVICES}
    assert len(set(addresses.values())) == len(addresses)
    assert ENV["GETAWAY_FORWARDED_ALLOW_IPS"] == addresses["nginx"]
    subnet = COMPOSE["networks"]["getaway"]["ipam"]["config"][0]["subnet"]
    assert all(address.startswith(subnet.rsplit(".", 1)[0] + ".") for address in addresses.values())


def test_every_variable_of_the_settings_file_is_a_setting_or_a_service_s(monkeypatch):
    names = {name for field in ServeSettings.model_fields for name in env_names(field)}
    for key in ENV:
        assert key in names or key in SERVICE_VARIABLES, f"deploy/getaway.env: {key} is no setting"
        assert not key.startswith("GETAWAY_") or key in names, key
    # as a process reads them: valid, except the placeholder secret, refused until changed
    for key in list(os.environ):
        if SETTINGS_ENV.match(key):
            monkeypatch.delenv(key)
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ValueError, match="cluster_secret"):
        ServeSettings()
    monkeypatch.setenv("GETAWAY_CLUSTER_SECRET", CLUSTER_SECRET)
    settings = ServeSettings()
    assert settings.database == ENV["DATABASE_URL"] and settings.redis_url == ENV["GETAWAY_REDIS_URL"]
    assert settings.allowed_hosts and settings.drain_seconds > 0
    # the passwords the PostgreSQL and Redis services are given are the ones in the URLs
    database, redis = urlsplit(ENV["DATABASE_URL"]), urlsplit(ENV["GETAWAY_REDIS_URL"])
    assert (database.username, database.password) == (ENV["POSTGRES_USER"], ENV["POSTGRES_PASSWORD"])
    assert (database.hostname, database.port, database.path) == ("postgres", 5432, f"/{ENV['POSTGRES_DB']}")
    assert (redis.hostname, redis.port, redis.password) == ("redis", 6379, ENV["REDIS_PASSWORD"])
    for name in ("postgres", "redis", *APPS, "migrate"):
        assert SERVICES[name]["env_file"] == "getaway.env", name


# --------------------------------------------------------------------------- the topology

SKIP = cluster_skip("the deploy topology test", nginx=True)


def on_this_machine(env: dict[str, str], redis: RedisServer, database: str) -> dict[str, str]:
    """getaway.env with the addresses of this machine instead of the compose network's:
    ``database`` for ``postgres``, ``redis``'s port on loopback for ``redis``, the loopback
    front for nginx's address; the cluster's secret instead of the placeholder (refused); bots
    without thinking time. Everything else as the file has it."""
    url = urlsplit(env["GETAWAY_REDIS_URL"])
    netloc = f"{url.netloc.rpartition('@')[0]}@127.0.0.1:{redis.port}"
    return env | {
        "DATABASE_URL": database,
        "GETAWAY_REDIS_URL": urlunsplit(url._replace(netloc=netloc)),
        "GETAWAY_FORWARDED_ALLOW_IPS": "127.0.0.1",
        "GETAWAY_CLUSTER_SECRET": CLUSTER_SECRET,
        "GETAWAY_BOT_DELAY": "0",
    }


def process_env(settings: dict[str, str]) -> dict[str, str]:
    """This process's environment without its own settings variables, with ``settings``."""
    return {key: value for key, value in os.environ.items() if not SETTINGS_ENV.match(key)} | settings


def migrate_once(settings: dict[str, str]) -> str:
    """The migrate service's command, here: its Alembic on the installed package's migrations
    (the image's /opt/getaway/migrations); returns the revision the database is then at."""
    command = SERVICES["migrate"]["command"]
    assert command[0] == "alembic" and command[1] == "-c"
    local = [sys.executable, "-m", "alembic", "-c", str(MIGRATIONS / "alembic.ini"), *command[3:]]
    ran = subprocess.run(local, env=process_env(settings), capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, f"{shlex.join(local)}:\n{ran.stdout}{ran.stderr}"
    engine = create_engine(settings["DATABASE_URL"])
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
    finally:
        engine.dispose()


def healthy(app: ServerProcess, settings: dict[str, str], timeout: float = 20) -> None:
    """The image's HEALTHCHECK (deploy/healthcheck.py) passes for ``app`` (retried as Docker does)."""
    check = [sys.executable, str(DEPLOY / "healthcheck.py"), str(app.port)]
    deadline = time.monotonic() + timeout
    while True:
        ran = subprocess.run(check, env=process_env(settings), capture_output=True, text=True, timeout=10)
        if ran.returncode == 0:
            return
        assert time.monotonic() < deadline, ran.stderr
        time.sleep(0.2)


@pytest.mark.timeout(180)
def test_the_compose_topology_without_containers_plays_a_deal_through_nginx_and_stops_cleanly(tmp_path):
    if SKIP:
        pytest.skip(SKIP[0].kwargs["reason"])
    from alembic.script import ScriptDirectory

    redis = RedisServer(tmp_path, password=urlsplit(ENV["GETAWAY_REDIS_URL"]).password)
    redis.start()
    apps: dict[str, ServerProcess] = {}
    try:
        settings = on_this_machine(ENV, redis, fresh_database())
        head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
        assert migrate_once(settings) == head  # the migrate service, before any app
        for name in APPS:
            apps[name] = ServerProcess(tmp_path, name=name, settings_env=settings)
        for app in apps.values():
            healthy(app, settings)
            # the settings are the file's: a name the file does not allow is refused
            assert httpx.get(f"{app.base}/healthz").status_code == 400
        ports = {f"{name}:8000": f"127.0.0.1:{app.port}" for name, app in apps.items()}
        lines = [f"{ports[address]} {rest}".strip() for address, rest in upstream_servers()]
        with running_front(tmp_path, lines) as front:
            # the browser's name for the site: the first of GETAWAY_ALLOWED_HOSTS, here on loopback
            site = front.replace("127.0.0.1", ENV["GETAWAY_ALLOWED_HOSTS"].split()[0])
            with client_from("127.0.0.2") as http:
                assert http.get(f"{site}/healthz").json() == {"status": "ok"}
                made = http.post(f"{site}/api/rooms", json={**ROOM, "name": "Asha"})
                assert made.status_code == 201, made.text
                room = made.json()
                auth = {"Authorization": f"Bearer {room['token']}"}
                started = http.post(f"{site}/api/rooms/{room['code']}/start", headers=auth)
                assert started.status_code == 200, started.text
                asha = Player(FrontSocket(site, room["code"], "127.0.0.2"), "asha")
                assert asha.hello(token=room["token"])["type"] == "welcome"
                play_deal([asha], random.Random(26))
                outcome = asha.view["outcome"]
                assert outcome is not None
                # through the front, from either process: the one that did not send the last
                # update may not have read the end of the log yet (409 `not_over` meanwhile)
                deadline = time.monotonic() + 5
                while (record := http.get(f"{site}/api/rooms/{room['code']}/deals/0/record")).status_code == 409:
                    assert time.monotonic() < deadline, record.text
                    time.sleep(0.1)
                assert record.status_code == 200, record.text
                assert deal_from_record(record.json()).outcome.to_dict() == outcome
            asha.ws.stack.close()
            # docker compose stop: SIGTERM to every app, each drains and exits 0 within the grace
            for app in apps.values():
                app.proc.send_signal(signal.SIGTERM)
            for name, app in apps.items():
                grace = seconds(SERVICES[name]["stop_grace_period"])
                assert app.proc.wait(grace) == 0, app.log()
        for app in apps.values():
            log = app.log()
            assert "Traceback" not in log and "drained" in log, log
    finally:
        for app in apps.values():
            app.stop()
        redis.stop()
