import pytest

from remem.config import Config
from remem.errors import ConfigError


def test_defaults():
    cfg = Config.load(env={})
    assert cfg.embed.provider == "local"
    assert cfg.embed.model == "multilingual-e5-small"
    assert cfg.search.fusion in ("rrf", "weighted")
    assert cfg.source_of("embed.model") == "default"
    assert cfg.store.resolved_path().name == "remem.db"


def test_layers_file_env_override(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[embed]\nmodel = "use-multilingual-v3"\nbatch_size = 8\n[search]\nrrf_k = 10\n')
    cfg = Config.load(
        f,
        env={"REMEM_EMBED__BATCH_SIZE": "16", "REMEM_DB": str(tmp_path / "x.db")},
        overrides={"search.rrf_k": 5},
    )
    assert cfg.embed.model == "use-multilingual-v3"
    assert cfg.source_of("embed.model") == str(f)
    assert cfg.embed.batch_size == 16
    assert cfg.source_of("embed.batch_size") == "env:REMEM_EMBED__BATCH_SIZE"
    assert cfg.search.rrf_k == 5
    assert cfg.source_of("search.rrf_k") == "override"
    assert cfg.store.resolved_path() == tmp_path / "x.db"


def test_env_list_values():
    cfg = Config.load(env={"REMEM_EMBED__API_KEYS": '["a", "b"]', "REMEM_EMBED__API_KEY": "z"})
    assert cfg.embed.all_keys() == ["z", "a", "b"]
    masked = dict((k, v) for k, v, _ in cfg.effective())
    assert masked["embed.api_keys"] == ["***", "***"]


def test_unknown_key_is_an_error_naming_it(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("[embed]\nmodle = 'x'\n")
    with pytest.raises(ConfigError, match=r"unknown setting 'embed.modle'.*known keys"):
        Config.load(f, env={})


def test_bad_value_names_key_value_and_source():
    with pytest.raises(ConfigError, match=r"search.rrf_k='zero'.*env:REMEM_SEARCH__RRF_K"):
        Config.load(env={"REMEM_SEARCH__RRF_K": "zero"})


def test_the_calendar_is_a_time_zone_by_its_iana_name():
    from datetime import UTC

    assert Config.load(env={}).calendar.zone() is UTC  # the default
    cfg = Config.load(env={"REMEM_CALENDAR__TIMEZONE": "Asia/Shanghai"})
    assert str(cfg.calendar.zone()) == "Asia/Shanghai"
    with pytest.raises(ConfigError, match=r"calendar.timezone='Beijing'.*'Asia/Shanghai'"):
        Config.load(env={}, overrides={"calendar.timezone": "Beijing"})
    for bad in ("../../etc/passwd", "America", "x" * 300):  # a path, a folder, too long
        with pytest.raises(ConfigError, match=r"no IANA time zone"):
            Config.load(env={}, overrides={"calendar.timezone": bad})


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        Config.load(tmp_path / "nope.toml", env={})
    with pytest.raises(ConfigError, match="REMEM_CONFIG"):
        Config.load(env={"REMEM_CONFIG": str(tmp_path / "nope.toml")})
    bad = tmp_path / "bad.toml"
    bad.write_text("[embed\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Config.load(bad, env={})
    flat = tmp_path / "flat.toml"
    flat.write_text("model = 'x'\n")
    with pytest.raises(ConfigError, match="must be a \\[section\\] table"):
        Config.load(flat, env={})


def test_the_bundled_model_names_are_the_ones_remem_can_load():
    from remem.config import BUNDLED_MODELS
    from remem.embed.local import LOCAL_MODELS

    assert set(BUNDLED_MODELS) == set(LOCAL_MODELS)


def test_claim_lease_is_bounded_and_named_when_wrong():
    assert Config.load(env={"REMEM_INDEXING__CLAIM_LEASE_S": "5"}).indexing.claim_lease_s == 5.0
    with pytest.raises(ConfigError, match=r"indexing.claim_lease_s='0'.*greater than or equal"):
        Config.load(env={"REMEM_INDEXING__CLAIM_LEASE_S": "0"})
