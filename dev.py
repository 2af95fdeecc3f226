#!/usr/bin/env python3
"""Set-up and tasks for a fresh machine with only Python 3.11+ (standard library only).

    python3 dev.py run [ARGS...]    create .venv if needed, install, run the main job (the web app)
    python3 dev.py test [ARGS...]   create .venv if needed, install (and chromium with apt, for the
                                    browser tests, when missing and root), lint and run the tests
    python3 dev.py bench [ARGS...]  create .venv if needed, install, run the engine benchmark

The virtual environment lives in .venv beside this file; it is reinstalled when
pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".getaway-installed"


def _python() -> Path:
    return BIN / ("python.exe" if os.name == "nt" else "python")


def ensure_env() -> Path:
    """Create the venv and install the project with its test extras, once per pyproject version."""
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == want and _python().exists():
        return _python()
    if not _python().exists():
        print(f"dev.py: creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    print("dev.py: installing getaway and its test tools into .venv", flush=True)
    pip = [str(_python()), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "install", "-e", f"{ROOT}[test]"], check=True)
    STAMP.write_text(want)
    return _python()


CHROMIUM = Path("/usr/bin/chromium")


def ensure_chromium() -> None:
    """The browser tests (tests/test_web_e2e.py) drive Debian's chromium: install it with apt when
    it is missing and this machine allows it (root, apt-get). Playwright's own browser download
    cannot be reached from these machines. Without it the browser tests are skipped (or fail
    when GETAWAY_REQUIRE_BROWSER=1, as in CI)."""
    if CHROMIUM.exists():
        return
    apt = shutil.which("apt-get")
    if apt is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        print(f"dev.py: {CHROMIUM} is missing; install it (apt-get install chromium) for the browser tests", flush=True)
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = [apt, "install", "-y", "--no-install-recommends", "chromium"]
    print(f"dev.py: {CHROMIUM} is missing: {' '.join(install)}", flush=True)
    if subprocess.call(install, env=env) != 0:
        print("dev.py: the install failed: apt-get update, then again", flush=True)
        subprocess.call([apt, "update"], env=env)
        if subprocess.call(install, env=env) != 0:
            print("dev.py: chromium could not be installed; the browser tests will not run", flush=True)


def main(argv: list[str]) -> int:
    task, args = (argv[0], argv[1:]) if argv else ("run", [])
    py = str(ensure_env())
    env = dict(os.environ, PYTHONUTF8="1")
    if task == "run":
        # The main job: the web app on http://127.0.0.1:8000 (docs/web.md); `run play` is the terminal game.
        return subprocess.call([py, "-m", "getaway", *(args or ["serve"])], env=env)
    if task == "test":
        ensure_chromium()
        lint = subprocess.call([py, "-m", "ruff", "check", "src", "tests", "bench", "dev.py"], cwd=ROOT, env=env)
        tests = subprocess.call([py, "-m", "pytest", *args], cwd=ROOT, env=env)
        return tests or lint
    if task == "bench":
        return subprocess.call([py, str(ROOT / "bench" / "engine.py"), *args], cwd=ROOT, env=env)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
