"""`remem memory ...`: the agent tools, capture and auto-recall from the command line, through
the same scope resolver (lexical-only store: no model load per subprocess)."""

from __future__ import annotations

import json

from test_cli import one_error_line, run


def j(proc):
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_memory_commands_round_trip(tmp_path):
    db = tmp_path / "m.db"
    ag = ["--agent", "cli-bot"]
    stored = j(
        run(
            [
                "memory",
                "store",
                "Ann prefers window seats",
                *ag,
                "--category",
                "preference",
                "--json",
            ],
            db,
            lexical=True,
        )
    )
    mid = stored["memory"]["id"]
    assert stored["memory"]["scope"] == "agent:cli-bot"
    assert (
        "already remembered"
        in run(["memory", "store", "ann prefers WINDOW seats", *ag], db, lexical=True).stdout
    )
    found = j(run(["memory", "recall", "window seats", *ag, "--json"], db, lexical=True))
    assert [m["id"] for m in found["memories"]] == [mid]
    assert j(run(["memory", "list", *ag, "--json"], db, lexical=True))["total"] == 1
    assert j(run(["memory", "stats", *ag, "--json"], db, lexical=True))["by_category"] == {
        "preference": 1
    }

    cap = j(
        run(
            [
                "memory",
                "capture",
                "I live in Paris. 我的密码是 abc123",
                *ag,
                "--user",
                "ann",
                "--json",
            ],
            db,
            lexical=True,
        )
    )
    assert [r["text"] for r in cap["stored"]] == ["I live in Paris."]
    assert any("secret" in r["reason"] for r in cap["rejected"])
    cap2 = j(
        run(
            ["memory", "capture", "I moved to Berlin.", *ag, "--user", "ann", "--json"],
            db,
            lexical=True,
        )
    )
    berlin = cap2["stored"][0]["id"]
    assert len(cap2["superseded"]) == 1
    history = j(run(["memory", "history", berlin, *ag, "--json"], db, lexical=True))
    assert [h["text"] for h in history] == ["I live in Paris.", "I moved to Berlin."]
    # the superseded Paris is out of search unless asked for (issue 48)
    found = j(run(["search", "live Paris Berlin", "--json"], db, lexical=True))["hits"]
    assert [h["record"]["text"] for h in found] == ["I moved to Berlin."]
    asked = ["search", "live Paris Berlin", "--include-superseded", "--json"]
    found = j(run(asked, db, lexical=True))["hits"]
    assert "I live in Paris." in [h["record"]["text"] for h in found]
    assert "Paris" in run(["memory", "undo", berlin, *ag], db, lexical=True).stdout

    asked = ["memory", "inject", "Where do I live, remember?", *ag]
    block = run([*asked, "--user", "ann"], db, lexical=True).stdout
    assert block.startswith("<relevant-memories") and "Paris" in block
    # Ann's "I" is hers: the same agent without her, or for another user, is not told it
    assert "Paris" not in run(asked, db, lexical=True).stdout
    assert "Paris" not in run([*asked, "--user", "bob"], db, lexical=True).stdout

    assert "forgot" in run(["memory", "forget", mid, *ag], db, lexical=True).stdout
    # another agent sees nothing and cannot forget
    assert j(run(["memory", "list", "--agent", "other", "--json"], db, lexical=True))["total"] == 0
    line = one_error_line(
        run(["memory", "forget", berlin, "--agent", "other"], db, lexical=True), code=1
    )  # not found, whether missing or another agent's
    assert "no memory" in line


def test_memory_command_errors(tmp_path):
    db = tmp_path / "m.db"
    assert "no agent identity" in one_error_line(run(["memory", "list"], db, lexical=True))
    line = one_error_line(
        run(["memory", "recall", "x", "--agent", "a", "--scope", "agent:b"], db, lexical=True)
    )
    assert "may not use scope 'agent:b'" in line
    line = one_error_line(
        run(["memory", "store", "x", "--agent", "a", "--importance", "7"], db, lexical=True)
    )
    assert "importance" in line
    env = {"REMEM_SCOPES__AGENT": "configured"}
    out = j(run(["memory", "store", "configured agents work", "--json"], db, env, lexical=True))
    assert out["memory"]["scope"] == "agent:configured"
