"""Runs Python code blocks one after another in one namespace, like a reader pasting a
README section into one interpreter. Reads one JSON request per line on stdin
(``{"where": ..., "code": ...}``), answers one JSON line on stdout (``{"stdout": ...,
"error": traceback or null}``); the blocks' own prints are captured, not mixed in."""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback

channel = sys.stdout
namespace: dict = {"__name__": "__main__"}
for request_line in sys.stdin:
    request = json.loads(request_line)
    captured = io.StringIO()
    error = None
    with contextlib.redirect_stdout(captured):
        try:
            exec(compile(request["code"], request["where"], "exec"), namespace)
        except BaseException:  # reported to the test, which fails on it
            error = traceback.format_exc()
    channel.write(json.dumps({"stdout": captured.getvalue(), "error": error}) + "\n")
    channel.flush()
