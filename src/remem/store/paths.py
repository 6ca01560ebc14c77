"""Check a database path before SQLite touches it, so every failure is one actionable line;
and where a database file's derived index files live (``index_dir``).

SQLite's own errors ("unable to open database file") name neither the cause nor the fix.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from remem.errors import StorePathError


def prepare_db_path(raw: str | os.PathLike[str]) -> Path:
    """Return the absolute database path, creating missing parent directories.

    Raises StorePathError for a path that is a directory, a dangling or looping symlink, or
    lies in a directory remem cannot write.
    """
    path = Path(raw).expanduser()
    if str(raw) == ":memory:":
        raise StorePathError(
            "':memory:' is not supported: remem needs a file so that vectors and text survive; "
            "pass a file path (a temporary directory is fine)"
        )
    path = Path(os.path.abspath(path))

    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except RuntimeError:
            raise StorePathError(
                f"database path {str(path)!r} is a symlink loop; remove the link or point "
                "--db / REMEM_DB elsewhere"
            ) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise StorePathError(
                    f"database path {str(path)!r} is a symlink loop; remove the link or point "
                    "--db / REMEM_DB elsewhere"
                ) from None
            raise StorePathError(
                f"database path {str(path)!r} is a symlink to {os.readlink(path)!r}, which does "
                "not exist; fix or remove the link, or point --db / REMEM_DB elsewhere"
            ) from None
        path = target

    if path.is_dir():
        raise StorePathError(
            f"database path {str(path)!r} is a directory; give a file path such as "
            f"{str(path / 'remem.db')!r}"
        )

    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise StorePathError(
            f"cannot create directory {str(parent)!r}: a file is in the way; choose another "
            "--db / REMEM_DB path"
        ) from None
    except PermissionError:
        raise StorePathError(
            f"cannot create directory {str(parent)!r}: permission denied; create it yourself or "
            "choose a writable --db / REMEM_DB path"
        ) from None
    except OSError as exc:
        raise StorePathError(
            f"cannot create directory {str(parent)!r}: {exc.strerror}; choose another --db path"
        ) from None

    if not os.access(parent, os.W_OK | os.X_OK):
        raise StorePathError(
            f"directory {str(parent)!r} is not writable (SQLite needs to create its -wal and "
            "-shm files there); fix its permissions or choose another --db / REMEM_DB path"
        )
    if path.exists():
        if not path.is_file():
            raise StorePathError(
                f"database path {str(path)!r} is not a regular file; give a file path"
            )
        if not os.access(path, os.R_OK | os.W_OK):
            raise StorePathError(
                f"database file {str(path)!r} is not readable and writable by this user; fix its "
                "permissions or choose another --db / REMEM_DB path"
            )
    return path


def index_dir(db_path: str | os.PathLike[str]) -> Path:
    """Where the derived index files of a database live: ``<db>.remem-index`` beside it."""
    return Path(f"{os.fspath(db_path)}.remem-index")
