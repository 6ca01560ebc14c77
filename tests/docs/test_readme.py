"""Every code block in README.md and the documentation pages runs as written (issue 12: the
first hour; issue 43: the README's examples moved to docs/, and still run there).

Blocks of one section (a `#` or `##` heading of one page) run in order in one temporary folder that is also the
section's home for remem (config, default database): Python blocks in one interpreter
(tests/docs/python_session.py), `sh` blocks with bash (`set -e`: every command must succeed),
`console` blocks as `$ command` lines whose output must match the lines shown after them,
`toml` blocks as remem configuration files (Config.load), `json` blocks as JSON. A block marked
``<!-- readme-test: output -->`` is the expected output of the block before it. In expected
output ``...`` matches anything (doctest's ELLIPSIS) and a decimal number must equal the one
printed at the precision shown (0.68 for 0.679): a page that shows a stale score fails.
A ``<!-- readme-test: server -->`` block is started in the background for the rest of its
section, on a free port that replaces the README's 8765 in that section's blocks; curl runs with
``fail-with-body`` (from a curlrc) so an HTTP error fails the block. Blocks that cannot run
offline or would run forever are marked ``<!-- readme-test: skip (why) -->`` and listed by
``test_skipped_blocks_say_why``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from readme_blocks import Block, blocks_of

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# Pages whose blocks are records, not examples: the benchmark log (generated) and the decision
# records. Every other page's blocks run.
NOT_EXAMPLES = ("docs/benchmarks.md", "docs/decisions/")


def pages() -> list[Path]:
    found = [README, *sorted(DOCS.rglob("*.md"))]
    return [p for p in found if not str(p.relative_to(ROOT)).startswith(NOT_EXAMPLES)]


RUNS = {"python", "sh", "bash", "shell", "console", "toml", "json"}
BLOCKS = [b for page in pages() for b in blocks_of(page, str(page.relative_to(ROOT)))]
README_PORT = "8765"


def sections() -> list[str]:
    return list(dict.fromkeys(f"{b.file}::{b.section}" for b in BLOCKS if b.directive != "skip"))


def test_every_block_is_run_or_says_why():
    unknown = [
        b.where for b in BLOCKS if not b.directive and b.lang not in RUNS
    ]  # a block nobody runs must say what it is
    assert unknown == [], (
        "give these blocks a language the README test runs "
        f"({', '.join(sorted(RUNS))}) or a readme-test directive: {unknown}"
    )
    orphans = [
        b.where
        for i, b in enumerate(BLOCKS)
        if b.directive == "output"
        and (i == 0 or (BLOCKS[i - 1].file, BLOCKS[i - 1].section) != (b.file, b.section))
    ]
    assert orphans == [], f"output blocks with no block before them in their section: {orphans}"


def test_skipped_blocks_say_why(capsys):
    skipped = [(b.where, b.why) for b in BLOCKS if b.directive == "skip"]
    assert all(why for _where, why in skipped)
    with capsys.disabled():
        print("\nREADME and docs blocks not run:")
        for where, why in skipped:
            print(f"  {where}: {why}")


NUMBER = re.compile(r"\d+\.\d+")


def matches(expected: str, actual: str) -> bool:
    """Whether `actual` is what the page shows: the same lines and words (`...` matches
    anything), and every decimal number shown equal to the one printed at the precision shown
    (0.85 stands for 0.845 to 0.855, so a page that rounds is right; one that shows a stale
    score is not)."""

    def lines(text: str) -> str:
        return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"

    expected, actual = lines(expected), lines(actual)
    pattern, shown = [], []
    for piece in re.split(r"(\.\.\.|\d+\.\d+|\s+)", expected):
        if piece == "...":
            pattern.append(r"(?:.*?)")
        elif NUMBER.fullmatch(piece):
            shown.append(piece)
            pattern.append(r"(\d+\.\d+)")
        elif piece and piece.isspace():
            pattern.append(r"\s+")
        else:
            pattern.append(re.escape(piece))
    found = re.fullmatch("".join(pattern), actual, re.S)
    if found is None:
        return False
    for text, printed in zip(shown, found.groups(), strict=True):
        places = len(text.split(".")[1])
        if abs(float(printed) - float(text)) > 0.5 * 10**-places + 1e-9:
            return False
    return True


def console_commands(block: Block) -> Iterator[tuple[str, str]]:
    """(command, expected output) for each `$ ` line of a console block (a line ending in a
    backslash continues on the next)."""
    command, shown = None, []
    for line in block.code.splitlines():
        if command is not None and not shown and command.endswith("\\"):
            command += "\n" + line
        elif line.startswith("$ "):
            if command is not None:
                yield command, "\n".join(shown)
            command, shown = line[2:], []
        elif command is not None:
            shown.append(line)
    if command is not None:
        yield command, "\n".join(shown)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Section:
    """One README section's folder, environment, Python session and server."""

    def __init__(self, name: str, folder: Path) -> None:
        self.name = name
        self.folder = folder
        (folder / ".curlrc").write_text("fail-with-body\nshow-error\n")
        bin_dir = str(Path(sys.executable).parent)
        self.env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "XDG_CONFIG_HOME": str(folder / ".config"),
            "XDG_DATA_HOME": str(folder / ".data"),
            "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", str(folder / ".cache")),
            "CURL_HOME": str(folder),
            "OMP_WAIT_POLICY": "passive",
            "COLUMNS": "200",
        }
        self.port = str(free_port())
        self.python: subprocess.Popen[str] | None = None
        self.servers: list[subprocess.Popen[bytes]] = []

    def code_of(self, block: Block) -> str:
        return block.code.replace(f":{README_PORT}", f":{self.port}")

    def run_python(self, block: Block) -> str:
        if self.python is None:
            session = Path(__file__).with_name("python_session.py")
            self.python = subprocess.Popen(
                [sys.executable, str(session)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=self.folder,
                env=self.env,
            )
        assert self.python.stdin and self.python.stdout
        self.python.stdin.write(json.dumps({"where": block.where, "code": self.code_of(block)}))
        self.python.stdin.write("\n")
        self.python.stdin.flush()
        answer = self.python.stdout.readline()
        assert answer, f"{block.where}: the Python session died"
        result = json.loads(answer)
        assert result["error"] is None, f"{block.where} failed:\n{result['error']}"
        return result["stdout"]

    def run_shell(self, block: Block) -> str:
        proc = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", self.code_of(block)],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, (
            f"{block.where} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
        return proc.stdout

    def run_console(self, block: Block) -> str:
        for command, shown in console_commands(block):
            proc = subprocess.run(
                ["bash", "-c", command.replace(f":{README_PORT}", f":{self.port}")],
                cwd=self.folder,
                env={**self.env, "CURL_HOME": str(self.folder / ".data")},  # curl as shown
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=900,
            )
            assert matches(shown, proc.stdout), (
                f"{block.where}: `{command}` printed\n{proc.stdout}\nbut the page shows\n{shown}"
            )
        return ""

    def check_toml(self, block: Block) -> str:
        from remem import Config

        path = self.folder / f"block-{block.line}.toml"
        path.write_text(block.code)
        tomllib.loads(block.code)
        Config.load(path, env={})  # unknown keys and bad values raise, naming them
        return ""

    def start_server(self, block: Block) -> None:
        server = subprocess.Popen(
            ["bash", "-c", self.code_of(block)],
            cwd=self.folder,
            env={**self.env, "REMEM_SERVER__PORT": self.port},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.servers.append(server)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise AssertionError(f"{block.where}: the server exited: {server.stderr.read()}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", int(self.port))) == 0:
                    return
            time.sleep(0.2)
        raise AssertionError(f"{block.where}: the server did not listen within 180 s")

    def run(self, block: Block) -> str:
        if block.directive == "server":
            self.start_server(block)
            return ""
        if block.lang == "python":
            return self.run_python(block)
        if block.lang in ("sh", "bash", "shell"):
            return self.run_shell(block)
        if block.lang == "console":
            return self.run_console(block)
        if block.lang == "toml":
            return self.check_toml(block)
        json.loads(block.code)
        return ""

    def close(self) -> None:
        if self.python is not None:
            self.python.stdin.close()  # type: ignore[union-attr]
            self.python.wait(timeout=120)
        for server in self.servers:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)  # bash and the server it started
                server.wait(timeout=60)


@contextmanager
def open_section(name: str, folder: Path) -> Iterator[Section]:
    section = Section(name, folder)
    try:
        yield section
    finally:
        section.close()


@pytest.mark.slow  # the Python and CLI examples load the bundled model
@pytest.mark.parametrize("name", sections())
def test_section_runs_as_written(name, tmp_path):
    with open_section(name, tmp_path) as section:
        last_output = ""
        for block in (b for b in BLOCKS if f"{b.file}::{b.section}" == name):
            if block.directive == "skip":
                continue
            if block.directive == "output":
                assert matches(block.code, last_output), (
                    f"{block.where}: the block before it printed\n{last_output}\n"
                    f"but the page shows\n{block.code}"
                )
                continue
            last_output = section.run(block)
