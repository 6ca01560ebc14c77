"""Filter columns saved beside a snapshot generation, so that opening a big store reads only
the rows changed since they were saved instead of every record's metadata.

A cold process used to read every record's filter metadata from SQL and code it column by
column before its first search: 1.2 s at 100k records on a loaded machine, most of a cold
`remem search`. The file ``<model>/<gen>.columns.npz`` holds the columns as of a store
revision; a process that opens the same snapshot generation loads it and asks the store only
for the rows changed after that revision (``filter_rows``). Binding the file to the snapshot's
generation reuses the snapshot's own check that it belongs to this database (a database made
anew at the same path gets a fresh snapshot, so the old columns are never read). The file is
derived like the rest: unreadable, foreign or missing, it is ignored and written again; a
stale column can cost a hit but never leak one, because the store checks every hit against
the filters again.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import zipfile
from pathlib import Path

import numpy as np

from remem.index.columns import CODED, Codes, FilterColumns

log = logging.getLogger("remem.index")

# Below this many rows reading them all costs under ~0.1 s: no file.
SAVE_MIN = 20_000
# Write the file again once this many rows (or this share of them) changed since it was saved.
RESAVE_ROWS = 10_000
RESAVE_SHARE = 0.10


def columns_path(folder: Path, generation: str) -> Path:
    return folder / f"{generation}.columns.npz"


def save_columns(path: Path, columns: FilterColumns, rev: int) -> None:
    """Write the columns as of store revision ``rev`` (atomically: a temporary file renamed)."""
    n = columns.size
    codes = {c: sorted(columns.codes.maps[c], key=columns.codes.maps[c].__getitem__) for c in CODED}
    arrays: dict[str, np.ndarray] = {
        "rev": np.array(rev, np.int64),
        "rowids": columns.rowids[:n],
        "created": columns.created[:n],
        "valid_to": columns.valid_to[:n],
        "codes": np.frombuffer(json.dumps(codes).encode(), np.uint8),
        **{f"col_{c}": columns.cols[c][:n] for c in CODED},
    }
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "wb") as f:
            np.savez(f, allow_pickle=False, **arrays)
        os.replace(tmp, path)
    except OSError as exc:  # derived data: a read-only folder costs only the saving
        log.warning("could not save the filter columns to %s: %s", path, exc)
        tmp.unlink(missing_ok=True)


def load_columns(path: Path) -> tuple[FilterColumns, int] | None:
    """(columns, the store revision they reflect), or None when there is no usable file."""
    try:
        with np.load(path) as data:
            rev = int(data["rev"])
            rowids = np.array(data["rowids"], np.int64)
            n = len(rowids)
            codes = json.loads(data["codes"].tobytes().decode())
            cols = {c: np.array(data[f"col_{c}"], np.int32) for c in CODED}
            created = np.array(data["created"], np.float64)
            valid_to = np.array(data["valid_to"], np.float64)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        log.warning("ignoring the filter columns in %s (%s); they will be saved again", path, exc)
        return None
    parts: list[np.ndarray] = [*cols.values(), created, valid_to]
    lengths = [len(a) for a in parts]
    if any(length != n for length in lengths) or set(codes) != set(CODED):
        log.warning("ignoring the filter columns in %s (inconsistent lengths)", path)
        return None
    columns = FilterColumns()
    columns.size = n
    columns.rowids = rowids
    columns.cols = cols
    columns.created = created
    columns.valid_to = valid_to
    columns.codes = Codes({c: {v: i for i, v in enumerate(codes[c])} for c in CODED})
    columns.pos = dict(zip(rowids.tolist(), range(n), strict=True))
    return columns, rev
