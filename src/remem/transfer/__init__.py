"""Moving whole stores: export and import (JSONL, streamed in bounded batches) and copy
(store to store, through the Store protocol)."""

from remem.transfer.copy import CopyReport, copy_store, open_location, store_name
from remem.transfer.export import export_file, export_lines, export_records
from remem.transfer.importing import (
    ImportOptions,
    ImportReport,
    ImportSource,
    check_import,
    import_records,
    write_import,
)
from remem.transfer.jsonl import iter_file_lines, jsonl_lines, parse_lines

__all__ = [
    "CopyReport",
    "ImportOptions",
    "ImportReport",
    "ImportSource",
    "check_import",
    "copy_store",
    "export_file",
    "export_lines",
    "export_records",
    "import_records",
    "iter_file_lines",
    "jsonl_lines",
    "open_location",
    "parse_lines",
    "store_name",
    "write_import",
]
