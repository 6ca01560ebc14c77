"""Shared fixtures. Every test gets its own temporary directories (xdist safe), and the user's
real config, data and cache directories are never read or written."""

from __future__ import annotations

import os
import tempfile

import pytest

# Isolate platformdirs (config file, default db, model-verification cache) before remem loads.
_HOME = tempfile.mkdtemp(prefix="remem-test-home-")
for _var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
    os.environ[_var] = os.path.join(_HOME, _var.lower())
for _var in [v for v in os.environ if v.startswith("REMEM_")]:
    del os.environ[_var]

from helpers import HashEmbedder  # noqa: E402
from remem import Config, Memory  # noqa: E402
from remem.embed.local import E5Embedder  # noqa: E402


@pytest.fixture(scope="session")
def e5() -> E5Embedder:
    return E5Embedder()


@pytest.fixture
def config() -> Config:
    return Config.load(env={}, overrides={"indexing.mode": "sync"})


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "remem.db"


@pytest.fixture
def memory(db_path, config, e5):
    with Memory(db_path, config, embedder=e5) as mem:
        yield mem


@pytest.fixture
def hash_memory(db_path, config):
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        yield mem


# Fixtures that load a bundled model: a test that uses one is a real-model test.
REAL_MODEL_FIXTURES = {"e5", "memory"}
# Folders and files whose tests are slow as a whole: the browser and real `remem serve`
# processes (ui), hypothesis fuzzing (fuzz), the README run block by block, PostgreSQL-only
# files (each xdist worker starts a private server, ~10 s), files that run the `remem` command
# in subprocesses (each start imports numpy and often loads a model), and files measured at
# seconds a test (whole-store rebuilds, load runs, property tests over real stores).
SLOW_PATHS = (
    "tests/ui/",
    "tests/fuzz/",
    "tests/docs/test_readme.py",
    "tests/store/test_postgres_store.py",
    "tests/store/test_postgres_selection.py",
    "tests/integration/test_pg_crash.py",
    "tests/integration/test_copy_cli.py",
    "tests/integration/test_index_command.py",
    "tests/integration/test_doctor_reembed.py",
    "tests/integration/test_multiprocess.py",
    "tests/integration/test_cli.py",
    "tests/integration/test_cli_memory.py",
    "tests/integration/test_cli_servers.py",
    "tests/integration/test_server_warm_up.py",
    "tests/integration/test_progress.py",
    "tests/integration/test_scope_declarations.py",
    "tests/integration/test_startup.py",
    "tests/integration/test_scopes_property.py",
    "tests/integration/test_provider_faults.py",
    "tests/integration/test_operator.py",
    "tests/integration/test_migrate.py",
    # the command-line table runs every command in subprocesses (~45 of them, ~1.5 s of
    # CPU each), the coding agents' hooks run `remem` from a shell hook, the MCP setup starts
    # `remem mcp` over stdio
    "tests/integration/test_cli_exit_codes.py",
    "tests/integration/test_coding_agents.py",
    "tests/docs/test_mcp_setup.py",
    # the benchmark package's tests (moved from tests/bench and tests/integration)
    "benchmarks/tests/test_cli_suite.py",
    "benchmarks/tests/test_load.py",
    "benchmarks/tests/test_target_bounds.py",
)
# Single tests measured at several seconds (a bundled model loaded by the code under test, a
# subprocess, or thousands of records); `pytest --durations=20 -m "not slow"` finds new ones.
SLOW_TESTS = {
    "tests/unit/embed/test_use_tokenizer.py::test_a_fresh_process_first_search_reads_the_cache_not_the_model",
    "tests/integration/test_memory.py::test_alternative_model_use_crosses_languages",
    "tests/integration/test_mcp.py::test_stdio_server_subprocess",
    "tests/integration/test_add_dedup.py::test_the_cli_says_when_a_memory_was_already_stored",
    "tests/integration/test_backfill.py::test_stats_show_the_backlog_rate_to_another_process",
    "tests/integration/test_backfill.py::test_a_bulk_ingest_bigger_than_the_queue_ends_fully_indexed",
    "tests/integration/test_model_switch_messages.py::test_config_show_on_a_missing_store_creates_nothing",
    "tests/integration/test_transfer.py::test_cli_export_import_and_config",
    "tests/integration/test_time_zone.py::test_auto_recall_of_memories_may_name_the_askers_time_zone",
    "tests/integration/test_capture.py::test_chinese_turns",
    "tests/integration/test_cross_encoder.py::test_search_reranks_with_the_local_model",
    "tests/integration/test_transfer_stream.py::test_cli_streams_stdin_and_prints_json_summaries",
    "tests/integration/test_vector_index.py::test_processes_building_and_searching_at_once_do_not_corrupt",
    # `remem distill` in subprocesses (a growing log, a kill mid-file, malformed lines, --watch)
    "tests/integration/test_distill.py::test_a_growing_log_archives_each_line_once",
    "tests/integration/test_distill.py::test_a_run_killed_mid_file_is_resumed_without_archiving_a_line_twice",
    "tests/integration/test_distill.py::test_a_malformed_line_is_reported_with_its_file_and_line_and_skipped",
    "tests/integration/test_distill.py::test_truncated_and_rotated_logs_start_over",
    "tests/integration/test_distill.py::test_watch_archives_new_lines_until_ctrl_c",
    "tests/integration/test_distill.py::test_bad_arguments_stop_before_reading",
    # a `remem` command or a writer in a subprocess (killed, for the crash tests)
    "tests/integration/test_write_noise.py::test_the_cli_store_refuses_and_remem_add_stays_verbatim",
    "tests/integration/test_crash_trials.py::test_killed_writers_lose_no_acknowledged_write",
    "tests/store/test_memory_versions.py::test_a_process_killed_mid_supersession_leaves_one_current_version",
    # each rebuilds the CC-CEDICT cache (~120k entries)
    "tests/unit/text/test_bilingual.py::test_an_unreadable_cache_file_is_rebuilt",
    "tests/unit/text/test_bilingual.py::test_the_english_side_is_kept_in_a_cache_file_and_read_back",
    "tests/unit/text/test_bilingual.py::test_writing_the_cache_removes_the_files_of_earlier_formats",
    "tests/unit/text/test_bilingual.py::test_the_shipped_dictionary_loads_and_translates_both_ways",
    # measured idle at 3-12 s each (2026-12-06): a proxy deadline waited out, the bundled
    # model loaded by the code under test, the capture sets run whole, the dictionary built
    # per worker, `remem stats` in a subprocess
    "tests/integration/test_proxy.py::test_a_slow_upstream_answers_504",
    "tests/unit/search/test_names.py::test_the_embedded_query_says_the_label_and_the_keywords_do_not",
    "tests/integration/test_capture_assertions.py::test_the_capture_set_floor",
    "tests/unit/recall/test_memories_gate.py::test_one_translated_character_is_no_keyword_match",
    "tests/integration/test_background_backlog.py::test_remem_stats_reports_the_backlog",
}
# A parametrised test run against these store backends starts a PostgreSQL server.
SERVER_BACKENDS = {"postgres", "postgresql"}


def _is_slow(item: pytest.Item) -> bool:
    if REAL_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    path = item.nodeid.split("::", 1)[0]
    if path.startswith(SLOW_PATHS) or item.nodeid.split("[", 1)[0] in SLOW_TESTS:
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and bool(SERVER_BACKENDS & set(callspec.id.split("-")))


# The longest tests of a full run (20-90 s each on an idle machine, 2026-12-06), started first
# in this order; then the other slow tests, then the fast ones. `make test`'s `--dist
# worksteal` hands each worker a contiguous half of the collection and lets an idle worker
# take the end of the other's queue: a long test late in the collection (the LoCoMo floor
# was the last file collected) ran in the final minute while the other worker sat idle.
START_FIRST = (
    "benchmarks/tests/test_quality_floor.py::test_locomo_first_conversation_floor",
    "tests/integration/test_doctor_reembed.py::test_online_reembed_while_another_process_searches",
    "tests/docs/test_readme.py::test_section_runs_as_written",
    "tests/fuzz/test_fuzz_rest.py::test_rest_answers_no_5xx_and_clean_4xx",
    "tests/fuzz/test_fuzz_cli.py::test_cli_never_prints_a_traceback",
    "tests/fuzz/test_fuzz_api.py::test_python_api_fails_only_with_remem_errors",
)


def _start_rank(item: pytest.Item) -> int:
    """Where a test starts: the START_FIRST tests in their order, then the other slow tests,
    then the fast ones (collection order within each; the sort is stable)."""
    name = item.nodeid.split("[", 1)[0]
    if name in START_FIRST:
        return START_FIRST.index(name)
    return len(START_FIRST) + (0 if item.get_closest_marker("slow") else 1)


def pytest_collection_modifyitems(config, items):
    """Mark slow tests ``slow``: ``make check`` (``pytest -m "not slow"``) is the edit loop,
    ``make test`` runs everything. docs/development.md says what counts as slow. Then the
    longest tests go first (START_FIRST)."""
    for item in items:
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)
    items.sort(key=_start_rank)
