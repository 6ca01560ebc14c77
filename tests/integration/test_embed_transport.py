"""The shared provider transport against a real HTTP server on 127.0.0.1 that misbehaves at
the socket level: it drips its answer, hangs, or asks to retry after a while."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from remem.embed.transport import ProviderTransport
from remem.errors import EmbeddingError

OK_BODY = json.dumps({"ok": True, "pad": "x" * 40}).encode()


class Misbehaving:
    """``mode``: ok | drip (one byte per ``drip_s``) | hang | retry-after (429, Retry-After) |
    auth (401 unless the bearer token is "good")."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.drip_s = 0.2
        self.hits = 0
        self.auth: list[str | None] = []
        self.stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                outer.hits += 1
                outer.auth.append(self.headers.get("Authorization"))
                if outer.mode == "auth" and self.headers.get("Authorization") != "Bearer good":
                    self.send_response(401)
                    body = b'{"error": {"message": "Incorrect API key provided"}}'
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if outer.mode == "hang":
                    outer.stop.wait(30)
                    return
                if outer.mode == "retry-after":
                    self.send_response(429)
                    self.send_header("Retry-After", "30")
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"{}")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(OK_BODY)))
                self.end_headers()
                if outer.mode != "drip":
                    self.wfile.write(OK_BODY)
                    return
                for i in range(len(OK_BODY)):
                    if outer.stop.wait(outer.drip_s):
                        return
                    try:
                        self.wfile.write(OK_BODY[i : i + 1])
                        self.wfile.flush()
                    except OSError:
                        return  # the client gave up

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/embed"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Misbehaving()
    yield s
    s.close()


def timed(call):
    start = time.monotonic()
    try:
        call()
    except EmbeddingError as exc:
        return time.monotonic() - start, exc
    return time.monotonic() - start, None


def test_ok(server):
    t = ProviderTransport(model="m")
    assert t.post_json(server.url, {}, deadline=5) == json.loads(OK_BODY)


def test_a_dripping_answer_is_cut_at_the_deadline(server):
    # 50 bytes at 0.2 s each would take 10 s; every single read is well inside any per-read
    # timeout, so only a deadline for the whole call stops it.
    server.mode = "drip"
    t = ProviderTransport(model="m", max_attempts=2, backoff_s=0.01)
    elapsed, err = timed(lambda: t.post_json(server.url, {}, deadline=1.0))
    assert err is not None and "within 1s" in str(err)
    assert elapsed < 1.6


def test_a_hung_server_costs_one_deadline_not_attempts_times_timeout(server):
    server.mode = "hang"
    t = ProviderTransport(model="m", max_attempts=5, backoff_s=0.01)
    elapsed, err = timed(lambda: t.post_json(server.url, {}, deadline=0.8))
    assert err is not None and elapsed < 1.4
    assert server.hits == 1


def test_retry_after_past_the_deadline_ends_the_call_now(server):
    server.mode = "retry-after"
    t = ProviderTransport(model="m", max_attempts=5, backoff_s=0.01)
    elapsed, err = timed(lambda: t.post_json(server.url, {}, deadline=3))
    assert err is not None and "deadline" in str(err) and "HTTP 429" in str(err)
    assert elapsed < 1 and server.hits == 1


def test_401_rotates_to_the_next_key_and_names_the_setting_when_all_fail(server):
    server.mode = "auth"
    t = ProviderTransport(model="m", api_keys=["revoked", "good"], max_attempts=1)
    assert t.post_json(server.url, {}, deadline=5) == json.loads(OK_BODY)
    assert server.auth == ["Bearer revoked", "Bearer good"]
    t = ProviderTransport(model="m", api_keys=["x", "y"])
    with pytest.raises(EmbeddingError, match=r"HTTP 401: Incorrect API key.*embed\.api_key"):
        t.post_json(server.url, {}, deadline=5)
    assert server.auth[2:] == ["Bearer x", "Bearer y"]  # each key once, then no retries
