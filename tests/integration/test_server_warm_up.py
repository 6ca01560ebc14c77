"""`remem serve`, `remem mcp` and `remem proxy` warm what a first recall needs (the USE
tokenizer, the answer-type tables) in the background after start, before any request; a
one-shot command does not (``search/warm.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from serving import free_port


def _env(tmp_path: Path, name: str) -> tuple[dict[str, str], Path]:
    cache_home = tmp_path / f"cache-{name}"
    env = {
        **os.environ,
        "REMEM_DB": str(tmp_path / f"{name}.db"),
        "REMEM_EMBED__PROVIDER": "none",
        "XDG_CACHE_HOME": str(cache_home),
    }
    return env, cache_home / "remem"


def _tokenizer_cached(cache_dir: Path) -> bool:
    # the tokenizer writes its compact form on first load into an empty cache directory
    return any(cache_dir.glob("use-tokenizer-*.bin"))


@pytest.mark.parametrize("command", ["serve", "mcp", "proxy"])
def test_a_server_loads_the_tokenizer_before_any_request(tmp_path, command):
    port = free_port()
    args = {
        "serve": ["serve", "--port", str(port)],
        "mcp": ["mcp", "--agent", "a", "--http", f"127.0.0.1:{port}"],
        "proxy": ["proxy", "--agent", "a", "--upstream", "http://127.0.0.1:9/v1", "--port",
                  str(port)],
    }[command]  # fmt: skip
    env, cache_dir = _env(tmp_path, command)
    proc = subprocess.Popen(
        [sys.executable, "-m", "remem.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while not _tokenizer_cached(cache_dir):  # no request is ever sent
            if proc.poll() is not None:
                raise AssertionError(proc.stderr.read().decode() if proc.stderr else "exited")
            assert time.monotonic() < deadline, f"remem {command} never loaded the tokenizer"
            time.sleep(0.1)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(15)


def test_a_one_shot_command_does_not_warm(tmp_path):
    env, cache_dir = _env(tmp_path, "stats")
    for args in (["add", "We smoked brisket on Saturday"], ["stats"]):
        subprocess.run(
            [sys.executable, "-m", "remem.cli", *args],
            env=env,
            capture_output=True,
            check=True,
            timeout=120,
        )
    assert not _tokenizer_cached(cache_dir)
