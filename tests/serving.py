"""Run an ASGI app on 127.0.0.1 in a thread for a test, or `remem serve` processes, and stop
them afterwards."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    def __init__(self, app) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 15
        while not self.server.started:
            if time.time() > deadline:
                raise RuntimeError("test server did not start")
            time.sleep(0.02)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def start_serve_processes(
    db: str, n: int, env: dict[str, str]
) -> tuple[list[subprocess.Popen], list[str]]:
    """``n`` `remem serve` processes over ``db`` on 127.0.0.1; returns them and their base URLs
    once each answers /healthz."""
    import httpx

    procs, urls = [], []
    for _ in range(n):
        port = free_port()
        cmd = [sys.executable, "-m", "remem.cli", "--db", db, "serve", "--port", str(port)]
        procs.append(
            subprocess.Popen(
                cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        )
        urls.append(f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 120
    for proc, url in zip(procs, urls, strict=True):
        while True:
            if proc.poll() is not None:
                stop_processes(procs)
                raise RuntimeError(
                    f"worker {url} exited: {proc.stderr.read() if proc.stderr else ''}"
                )
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                stop_processes(procs)
                raise RuntimeError(f"worker {url} did not become healthy in 120 s")
            time.sleep(0.2)
    return procs, urls


def stop_processes(procs: list[subprocess.Popen]) -> None:
    """Terminate each process, then kill those still running after 30 s."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
