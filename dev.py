#!/usr/bin/env python3
"""Set-up and tasks for a fresh machine with only Python 3.11+ (standard library only).

    python3 dev.py run [ARGS...]    create .venv if needed, install, run the main job (the web app)
    python3 dev.py test [ARGS...]   create .venv if needed, install (and chromium and nginx with apt,
                                    for the browser and front tests, when missing and root), lint
                                    and run the tests;
                                    with no ARGS, then the web server's tests again on PostgreSQL
                                    (Debian's postgresql, installed and started when root), the
                                    cluster's among them (Debian's redis-server, installed when root;
                                    each test runs its own with a password, the processes with
                                    a cluster secret)
    python3 dev.py test --train [ARGS...]
                                    install the train extra too (torch, Stable-Baselines3,
                                    sb3-contrib: large), lint and run only the tests marked `train`
    python3 dev.py bench [ARGS...]  create .venv if needed, install, run the engine benchmark
    python3 dev.py lock [--upgrade] remake requirements/lock.txt (uv pip compile), the pinned
                                    versions every install takes; --upgrade to newer releases

The virtual environment lives in .venv beside this file; it is reinstalled when
pyproject.toml, setup.py, requirements/lock.txt or the compiled sources change: the install
compiles the engine with mypyc (setup.py; pure Python if it cannot, with a message), every
package at the version requirements/lock.txt pins.
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
#: The pinned versions every install takes (pip's constraints, the build's isolated environment
#: included: ``PIP_CONSTRAINT``): the default install, the ``test`` and ``postgres`` extras and the
#: build requirements. ``python3 dev.py lock`` remakes it (uv pip compile), ``lock --upgrade`` to
#: newer releases. The ``train`` extra's torch stack is not pinned (docs/envs.md).
LOCK = ROOT / "requirements" / "lock.txt"
STAMP = VENV / ".getaway-installed"


def _python() -> Path:
    return BIN / ("python.exe" if os.name == "nt" else "python")


def compiled_sources() -> list[str]:
    """The sources setup.py compiles with mypyc: ``src/getaway/core/_engine.py``'s ``MODULES``,
    the one list of them, read from its source as setup.py's ``compiled_modules`` reads it."""
    source = (ROOT / "src" / "getaway" / "core" / "_engine.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MODULES" for t in node.targets):
            return [f"src/getaway/core/{name}.py" for name in ast.literal_eval(node.value)]
    raise RuntimeError("src/getaway/core/_engine.py defines no MODULES")


#: What an install depends on: the project's metadata, and the sources that setup.py compiles
#: with mypyc (an editable install keeps a compiled copy of them beside the sources).
BUILD_INPUTS = [
    "pyproject.toml",
    "setup.py",
    "src/getaway/core/_engine.py",  # its MODULES: what is compiled
    *compiled_sources(),
    "src/getaway/core/view.py",  # not compiled, but mypyc type-checks it with deal.py (it follows imports)
    "requirements/lock.txt",  # the pinned versions
]


def ensure_env(extras: tuple[str, ...] = ("test",)) -> Path:
    """Create the venv and install the project with ``extras``, again whenever one of
    :data:`BUILD_INPUTS` changes (the compiled engine is rebuilt from the new deal.py) or an
    extra not installed yet is asked for. The stamp holds the inputs' digest, then the extras."""
    digest = hashlib.sha256()
    for name in BUILD_INPUTS:
        digest.update((ROOT / name).read_bytes())
    want = digest.hexdigest()
    have = STAMP.read_text().split() if STAMP.exists() else []
    if have and have[0] == want and set(extras) <= set(have[1:] or ["test"]) and _python().exists():
        return _python()
    if not _python().exists():
        print(f"dev.py: creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    print(f"dev.py: installing getaway and its extras ({', '.join(extras)}) into .venv", flush=True)
    pip = [str(_python()), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--upgrade", "pip"], check=True)
    # every version from the lock, the build's own environment (setuptools, mypy) too
    pinned = dict(os.environ, PIP_CONSTRAINT=str(LOCK)) if LOCK.exists() else None
    subprocess.run([*pip, "install", "-e", f"{ROOT}[{','.join(extras)}]"], check=True, env=pinned)
    STAMP.write_text(" ".join([want, *extras]))
    return _python()


CHROMIUM = Path("/usr/bin/chromium")
#: The web tests run a second time on PostgreSQL (docs/web.md, "Tests and load").
POSTGRES_URL = "postgresql+psycopg://getaway:getaway@127.0.0.1:5432/getaway_test"
WEB_TESTS = [
    "tests/test_web_server.py",
    "tests/test_web_security.py",
    "tests/test_web_restart.py",
    "tests/test_web_migrations.py",
    "tests/test_web_edge.py",
    "tests/test_web_drain.py",
    "tests/test_web_front.py",
    "tests/test_web_cluster.py",  # 3 processes, one PostgreSQL, one Redis (skipped on SQLite)
    "tests/test_web_cluster_bench.py",  # bench/web_cluster.py at a tiny size (skipped on SQLite)
    "tests/test_deploy_topology.py",  # deploy/compose.yaml's processes without containers (skipped on SQLite)
]
#: Where Debian's redis-server is; the cluster tests start their own servers from it (on free
#: loopback ports, with a password: they stop and restart Redis mid-deal).
REDIS_SERVER = Path("/usr/bin/redis-server")


def _apt_install(package: str, why: str) -> bool:
    """Install Debian's ``package`` with apt-get when this machine allows it (root, apt-get),
    running ``apt-get update`` and trying again if the first install fails; says what it does.
    Returns whether the package is installed."""
    apt = shutil.which("apt-get")
    if apt is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        print(f"dev.py: {package} is missing; install it (apt-get install {package}) for {why}", flush=True)
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = [apt, "install", "-y", "--no-install-recommends", package]
    print(f"dev.py: {package} is missing, for {why}: {' '.join(install)}", flush=True)
    if subprocess.call(install, env=env, stdout=subprocess.DEVNULL) == 0:
        return True
    print("dev.py: the install failed: apt-get update, then again", flush=True)
    subprocess.call([apt, "update"], env=env, stdout=subprocess.DEVNULL)
    if subprocess.call(install, env=env, stdout=subprocess.DEVNULL) == 0:
        return True
    print(f"dev.py: {package} could not be installed", flush=True)
    return False


def ensure_chromium() -> None:
    """The browser tests (tests/test_web_e2e.py) drive Debian's chromium: install it with apt when
    it is missing and this machine allows it (root, apt-get). Playwright's own browser download
    cannot be reached from these machines. Without it the browser tests are skipped (or fail
    when GETAWAY_REQUIRE_BROWSER=1, as in CI)."""
    if not CHROMIUM.exists():
        _apt_install("chromium", "the browser tests")


NGINX = Path("/usr/sbin/nginx")


def ensure_nginx() -> None:
    """The front tests (tests/test_web_front.py) start Debian's nginx (as this user, in a
    temporary prefix) in front of two ``getaway serve`` processes: install it with apt when it
    is missing and this machine allows it (root, apt-get). Without it those tests are skipped
    (or fail when GETAWAY_REQUIRE_NGINX=1, as in CI)."""
    if not NGINX.exists() and shutil.which("nginx") is None:
        _apt_install("nginx", "the front tests (nginx in front of several servers)")


def ensure_postgres() -> str | None:
    """A PostgreSQL database for the web tests: ``GETAWAY_TEST_DATABASE_URL`` if set, else
    Debian's postgresql on this machine (installed with apt, its cluster started, a user and a
    database created: all when this machine allows it, i.e. root with apt-get). ``None`` when
    there is none (the PostgreSQL pass is then skipped, or fails when GETAWAY_REQUIRE_POSTGRES=1,
    as in CI)."""
    if os.environ.get("GETAWAY_TEST_DATABASE_URL"):
        return os.environ["GETAWAY_TEST_DATABASE_URL"]
    if not hasattr(os, "geteuid") or os.geteuid() != 0:  # starting a cluster and `su postgres` need root
        print("dev.py: no PostgreSQL for the web tests (needs root, or GETAWAY_TEST_DATABASE_URL)", flush=True)
        return None
    if shutil.which("pg_lsclusters") is None and not _apt_install("postgresql", "the web tests on PostgreSQL"):
        return None
    clusters = subprocess.run(["pg_lsclusters", "--no-header"], capture_output=True, text=True).stdout.split()
    if not clusters:
        print("dev.py: PostgreSQL has no cluster", flush=True)
        return None
    version, name, status = clusters[0], clusters[1], clusters[3]
    if status != "online" and subprocess.call(["pg_ctlcluster", version, name, "start"]) != 0:
        print("dev.py: the PostgreSQL cluster did not start", flush=True)
        return None

    def psql(sql: str, db: str = "postgres") -> str:
        command = ["su", "postgres", "-c", f'psql -d {db} -tAc "{sql}"']
        return subprocess.run(command, capture_output=True, text=True, cwd="/").stdout.strip()

    if psql("SELECT 1 FROM pg_roles WHERE rolname='getaway'") != "1":
        psql("CREATE ROLE getaway LOGIN PASSWORD 'getaway'")
    if psql("SELECT 1 FROM pg_database WHERE datname='getaway_test'") != "1":
        psql("CREATE DATABASE getaway_test OWNER getaway")
    libraries = psql("SHOW shared_preload_libraries")
    if "pg_stat_statements" not in libraries:  # the cluster bench's profile reads it (bench/cost_profile.py)
        joined = ",".join(x for x in (libraries, "pg_stat_statements") if x)
        psql(f"ALTER SYSTEM SET shared_preload_libraries = '{joined}'")
        subprocess.call(["pg_ctlcluster", version, name, "restart"])
    psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", "getaway_test")
    return POSTGRES_URL


def ensure_redis() -> str | None:
    """The redis-server binary for the cluster tests (tests/test_web_cluster.py): ``GETAWAY_REDIS_SERVER``
    if set, else one on the PATH, else Debian's redis-server installed with apt (when this machine
    allows it: root with apt-get). The tests start and stop their own servers from it; without it
    they are skipped (or fail when GETAWAY_REQUIRE_REDIS=1, as in CI)."""
    if os.environ.get("GETAWAY_REDIS_SERVER"):
        return os.environ["GETAWAY_REDIS_SERVER"]
    found = shutil.which("redis-server") or (str(REDIS_SERVER) if REDIS_SERVER.exists() else None)
    if found is None and _apt_install("redis-server", "the cluster tests (many server processes)"):
        found = shutil.which("redis-server") or str(REDIS_SERVER)
    if found is None:
        print("dev.py: no redis-server for the cluster tests (needs root, or GETAWAY_REDIS_SERVER)", flush=True)
    return found


def lock(args: list[str]) -> int:
    """Remake :data:`LOCK` with uv (installed into .venv when missing) from pyproject.toml: the
    dependencies, the ``test`` and ``postgres`` extras and ``[build-system] requires``, for
    Python 3.11 (the oldest supported). The versions already pinned are kept unless ``args``
    says ``--upgrade`` (or ``--upgrade-package NAME``). Returns uv's exit status."""
    import tomllib

    py = str(ensure_env())
    if subprocess.call([py, "-m", "uv", "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
        subprocess.run([py, "-m", "pip", "--disable-pip-version-check", "-q", "install", "uv"], check=True)
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    with tempfile.TemporaryDirectory() as tmp:
        wanted = Path(tmp) / "build-requires.in"
        wanted.write_text("\n".join(build) + "\n", encoding="utf-8")
        command = [py, "-m", "uv", "pip", "compile", "pyproject.toml", str(wanted), "--extra", "test", "--extra",
                   "postgres", "--python-version", "3.11", "--custom-compile-command", "python3 dev.py lock",
                   "--no-annotate", "-o", str(LOCK.relative_to(ROOT)), *args]
        LOCK.parent.mkdir(exist_ok=True)
        return subprocess.call(command, cwd=ROOT)


def main(argv: list[str]) -> int:
    task, args = (argv[0], argv[1:]) if argv else ("run", [])
    if task not in ("run", "test", "bench", "lock"):  # before any install: a typo or --help costs nothing
        print(__doc__)
        return 2
    if task == "lock":
        return lock(args)
    train = task == "test" and "--train" in args
    if train:  # the train extra's tests only (tests marked `train`; docs/envs.md, "Training with MaskablePPO")
        args = ["--train", "-m", "train", *[a for a in args if a != "--train"]]
    py = str(ensure_env(("test", "train") if train else ("test",)))
    env = dict(os.environ, PYTHONUTF8="1")
    if task == "run":
        # The main job: the web app on http://localhost:8000/ (docs/web.md); `run play` is the terminal game.
        command = [py, "-m", "getaway", *(args or ["serve"])]
        if os.name == "posix":  # become the command, so that signals (SIGTERM from a script) reach it
            os.execve(py, command, env)
        return subprocess.call(command, env=env)
    if task == "test":
        ensure_chromium()
        ensure_nginx()
        lint = subprocess.call([py, "-m", "ruff", "check", "src", "tests", "bench", "dev.py"], cwd=ROOT, env=env)
        tests = subprocess.call([py, "-m", "pytest", *args], cwd=ROOT, env=env)
        if not args:  # the whole suite (not with --train): the web server's tests once more, on PostgreSQL
            url = ensure_postgres()
            if url is None:
                postgres = 1 if os.environ.get("GETAWAY_REQUIRE_POSTGRES") == "1" else 0
            else:
                print(f"dev.py: the web tests again, on PostgreSQL ({url.split('@')[-1]})", flush=True)
                pg_env = dict(env, GETAWAY_TEST_DATABASE_URL=url)
                redis = ensure_redis()
                if redis is not None:
                    pg_env["GETAWAY_REDIS_SERVER"] = redis
                postgres = subprocess.call([py, "-m", "pytest", "-q", *WEB_TESTS], cwd=ROOT, env=pg_env)
            tests = tests or postgres
        return tests or lint
    if task == "bench":
        return subprocess.call([py, str(ROOT / "bench" / "engine.py"), *args], cwd=ROOT, env=env)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
