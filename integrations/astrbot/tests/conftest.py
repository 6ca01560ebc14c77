"""One real AstrBot per test module: its data directory in a temporary root, this plugin
copied into ``data/plugins/`` the way AstrBot installs plugins, the stub platform and stub LLM
(``stubs.py``) in its configuration, and ``AstrBotCoreLifecycle`` started as ``astrbot run``
starts it (plugin manager, provider and platform managers, pipeline, event bus), without the
dashboard.

AstrBot reads ``ASTRBOT_ROOT`` when ``astrbot.core`` is first imported, so it is set here,
before any test module imports astrbot.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

PLUGIN = "astrbot_plugin_remem"
PLUGIN_SRC = Path(__file__).resolve().parents[1]
ROOT = Path(tempfile.mkdtemp(prefix="astrbot-root-"))
os.environ["ASTRBOT_ROOT"] = str(ROOT)
os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # remem's e5 engine on shared cores
sys.path.insert(0, str(ROOT))  # plugins import as data.plugins.<dir>.main


def install_plugin(db_path: Path) -> None:
    """Copy the plugin into AstrBot's plugin directory (what installing from a zip or a repo
    does) and give it its settings file, as the dashboard would save them."""
    target = ROOT / "data" / "plugins" / PLUGIN
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(
        PLUGIN_SRC, target, ignore=shutil.ignore_patterns(".venv", "tests", "__pycache__")
    )
    config_dir = ROOT / "data" / "config"
    config_dir.mkdir(parents=True, exist_ok=True)
    settings = {"mode": "embedded", "db_path": str(db_path), "agent_id": "astrbot"}
    (config_dir / f"{PLUGIN}_config.json").write_text(json.dumps(settings), encoding="utf-8")


def configure(config: Any) -> None:
    """AstrBot's own configuration: the stub platform and model, nothing from the network."""
    config["platform"] = [{"id": "stubqq", "type": "remem_stub_platform", "enable": True}]
    config["provider"] = [
        {
            "id": "stub-llm",
            "type": "remem_stub_llm",
            "provider_type": "chat_completion",
            "enable": True,
            "key": [],
            "model": "stub-model",
            # what the model takes; without "tool_use" AstrBot offers it no tools at all
            "modalities": ["text", "tool_use"],
        }
    ]
    config["provider_settings"]["default_provider_id"] = "stub-llm"
    config["provider_settings"]["datetime_system_prompt"] = False
    config["t2i"] = False
    config.save_config()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def astrbot(tmp_path_factory: Any) -> AsyncIterator[Any]:
    import stubs  # noqa: F401  (registers the stub adapters before the managers look)
    from astrbot.core import LogBroker, astrbot_config, db_helper
    from astrbot.core.core_lifecycle import AstrBotCoreLifecycle

    db_path = tmp_path_factory.mktemp("remem") / "remem.db"
    install_plugin(db_path)
    configure(astrbot_config)
    lifecycle = AstrBotCoreLifecycle(LogBroker(), db_helper)
    await lifecycle.initialize()
    runner = asyncio.create_task(lifecycle.start())
    lifecycle.remem_db = db_path
    try:
        yield lifecycle
    finally:
        await lifecycle.stop()
        runner.cancel()
        shutil.rmtree(ROOT, ignore_errors=True)
