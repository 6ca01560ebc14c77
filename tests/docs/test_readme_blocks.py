"""The README test's own parts: block extraction, directives and output matching (so a
README test that passes is not passing because it checked nothing)."""

from __future__ import annotations

import pytest
from readme_blocks import blocks_of
from test_readme import console_commands, matches

DOC = """# t

<!-- readme-test: skip (needs a paid API) -->
```python
import openai
```

## Two

```sh
remem stats
```

<!-- readme-test: output -->

```text
0.85 hello | vec #1 (0.791)
```

```console
$ echo one \\
    two
one two
$ echo three
three
```
"""


def test_blocks_directives_and_sections(tmp_path):
    path = tmp_path / "README.md"
    path.write_text(DOC)
    blocks = blocks_of(path)
    assert [(b.lang, b.directive, b.section) for b in blocks] == [
        ("python", "skip", "t"),
        ("sh", "", "Two"),
        ("text", "output", "Two"),
        ("console", "", "Two"),
    ]
    assert blocks[0].why == "needs a paid API" and blocks[1].code == "remem stats\n"
    assert list(console_commands(blocks[3])) == [
        ("echo one \\\n    two", "one two"),
        ("echo three", "three"),
    ]


@pytest.mark.parametrize(
    "bad, message",
    [
        ("<!-- readme-test: skip -->\n```sh\nx\n```\n", "must say why"),
        ("<!-- readme-test: later -->\n```sh\nx\n```\n", "unknown readme-test directive"),
        ("```sh\nx\n", "never closed"),
    ],
)
def test_broken_markup_is_an_error(tmp_path, bad, message):
    path = tmp_path / "README.md"
    path.write_text(bad)
    with pytest.raises(ValueError, match=message):
        blocks_of(path)


def test_output_matching_lets_ellipses_drift_and_holds_numbers_to_the_precision_shown():
    shown = "0.85 I moved to Berlin | vec #1 (0.791)\nadded ..."
    assert matches(shown, "0.847 I moved to Berlin | vec #1 (0.7912)\nadded 3f2a9c1e (pending)\n")
    assert matches(shown, "0.855 I moved to Berlin | vec #1  (0.7905)\nadded x")  # rounds to it
    assert not matches(shown, "0.85 I moved to Berlin | vec #2 (0.791)\nadded x")  # rank
    assert not matches(shown, "0.85 I moved to Paris | vec #1 (0.791)\nadded x")  # text
    assert not matches(shown, "0.85 I moved to Berlin | vec #1 (0.791)")  # a missing line
    assert not matches("one line", "one line\nand another")


def test_a_stale_score_on_the_page_fails():
    """Issue 43: the Python API example printed 0.978 and 0.143 where the README showed 0.679
    and 0.099, and passed because any decimal matched any other."""
    shown = "0.679 I moved to Berlin last week | importance 0.850 -> relevance 0.679"
    printed = "0.978 I moved to Berlin last week | importance 0.850 -> relevance 0.978"
    assert not matches(shown, printed)
    assert not matches("0.85 x", "0.86 x") and not matches("0.850 x", "0.8506 x")
    assert matches("0.099 x ... 0.5", "0.0994 x and more 0.46")
