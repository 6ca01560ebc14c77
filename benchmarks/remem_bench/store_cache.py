"""The suite's cache of ingested stores (``.remem-bench-cache``): shared by processes, kept
current with the fact rules.

Layout: ``<cache>/<dataset>-<model>-<corpus digest>/conv-<i>.db``, a complete remem store of
one conversation, with ``conv-<i>.db.facts`` (the digest of the code its facts were derived
by) and ``conv-<i>.db.lock`` beside it.

Two processes may use one cache at once (two suite runs, two dumps). An entry is only ever
built or brought up to date by the process holding its lock (``entry_lock``); a new entry is
built under a temporary name and renamed into place once complete (``publish``), so a
process never opens a store another is still writing, and a run cut off half-way leaves no
entry behind. The stamp is written the same way.

The facts of a cached store are derived again only when the code they are derived by
changes: ``derivation_digest`` hashes the modules of ``remem.facts`` and ``remem.text`` that
the fact service imports, directly or not, and the data files they read, and nothing else (a change to the search-side text
modules, such as ``text/intent.py`` or ``text/answer_types``, leaves every cached store's
facts as they are: only the facts table could differ, and it cannot).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock

Note = Callable[[str], None]  # says what a store's build is doing (minutes under load)

# Where the facts are derived from: what ``Memory.rebuild_facts`` runs (``FactService``).
DERIVATION_ROOT = "remem.facts.service"
# The packages whose modules count: the rules and the text handling they read with. The
# store's own code (how facts are written) is versioned by its schema, not here.
DERIVATION_PACKAGES = ("remem.facts", "remem.text")


def _module_file(name: str, src: Path) -> Path | None:
    """The source file of module ``name`` under ``src`` (the folder holding ``remem``)."""
    base = src.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported(path: Path, name: str) -> set[str]:
    """Every module ``path`` (module ``name``) imports anywhere in it, functions included,
    with ``from package import module`` read as the module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from its package up
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


def derivation_modules(src: Path) -> dict[str, Path]:
    """The modules of ``DERIVATION_PACKAGES`` the fact service loads, directly or through
    another (their packages' ``__init__`` included): name -> file, read statically."""
    found: dict[str, Path] = {}
    todo = [DERIVATION_ROOT]
    while todo:
        name = todo.pop()
        if name in found or not name.startswith(DERIVATION_PACKAGES):
            continue
        path = _module_file(name, src)
        if path is None:  # a name imported from a module, not a module
            continue
        found[name] = path
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(2, len(parts))]  # its packages run too
        todo += sorted(_imported(path, name))
    return found


def derivation_digest(src: Path | None = None) -> str:
    """A digest of the code a store's facts are derived by (``derivation_modules`` under
    ``src``, the folder holding ``remem``; None: the one imported, read once): a change to
    any of it changes the digest, so cached stores' facts are derived again; a change to any
    other module does not."""
    return _digest(src) if src is not None else _imported_digest()


@functools.cache
def _imported_digest() -> str:
    import remem

    return _digest(Path(next(iter(remem.__path__))).parent)


def _digest(src: Path) -> str:
    modules = derivation_modules(src)
    sources = {name: path.read_bytes() for name, path in modules.items()}
    # the data files they read (``remem/data/gazetteer.tsv``): named in their source
    data = sorted(
        path
        for path in (src / "remem" / "data").glob("*")
        if path.is_file() and any(path.name.encode() in text for text in sources.values())
    )
    digest = hashlib.sha256()
    for name, text in sorted(sources.items()):
        digest.update(name.encode() + b"\0" + text + b"\0")
    for path in data:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def stamp_of(db: Path) -> Path:
    """The file beside ``db`` naming the code its facts were derived by."""
    return db.with_name(db.name + ".facts")


def write_atomic(path: Path, text: str) -> None:
    """``text`` into ``path`` at once: written beside it, then renamed over it, so a reader
    sees the old content or the new, never a part."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def derive_facts(mem: Any, db: Path, note: Note | None = None) -> None:
    """The store's facts derived by today's rules, unless its stamp says they are: a store
    cached before the fact layer, or by other rules, has its facts table rebuilt
    (``Memory.rebuild_facts``, what ``remem facts rebuild`` runs; records, vectors and
    latent terms stay) and the digest stamped beside it (a LoCoMo conversation: about 5 s on
    a loaded machine)."""
    stamp = stamp_of(db)
    digest = derivation_digest()
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest:
        return
    if note is not None:
        note("deriving its facts again (the fact rules changed since it was cached)")
    mem.rebuild_facts()
    write_atomic(stamp, digest + "\n")


@contextmanager
def entry_lock(db: Path) -> Iterator[None]:
    """Held while a process builds or tops up the entry ``db``: another waits, then finds
    the work done."""
    with FileLock(f"{db}.lock"):
        yield


def building_path(db: Path) -> Path:
    """Where this process builds the entry ``db`` before it is published."""
    return db.with_name(f".{db.name}.{os.getpid()}.building")


def _leftovers(path: Path) -> list[Path]:
    suffixes = ("", "-wal", "-shm", "-sync", "-writer", ".facts")
    return [Path(f"{path}{suffix}") for suffix in suffixes]


def discard(path: Path) -> None:
    """A build's files, gone (a build that failed, or one cut off in an earlier run). Its
    derived index files too (``<db>.remem-index``): a search builds them again when needed."""
    for part in _leftovers(path):
        part.unlink(missing_ok=True)
    shutil.rmtree(f"{path}.remem-index", ignore_errors=True)


def publish(built: Path, db: Path) -> None:
    """The complete, closed store ``built`` renamed to ``db``, its stamp first: once ``db``
    exists it is whole. Its write-ahead log is folded in first, so the file is the store."""
    con = sqlite3.connect(built)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    if stamp_of(built).is_file():
        os.replace(stamp_of(built), stamp_of(db))
    os.replace(built, db)
    discard(built)  # what is left of it: the durability ticket, the writer queue, an empty log
