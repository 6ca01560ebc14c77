"""The identity mapping on AstrBot's own event class (no pipeline): what each getter becomes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from astrbot.core.platform import (
    AstrBotMessage,
    AstrMessageEvent,
    Group,
    MessageMember,
    MessageType,
    PlatformMetadata,
)

_spec = importlib.util.spec_from_file_location(
    "remem_astrbot_identity", Path(__file__).resolve().parents[1] / "identity.py"
)
assert _spec and _spec.loader
identity = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = identity
_spec.loader.exec_module(identity)


def event(sender: str, *, group: str | None = None, name: str | None = None) -> AstrMessageEvent:
    msg = AstrBotMessage()
    msg.type = MessageType.GROUP_MESSAGE if group else MessageType.FRIEND_MESSAGE
    msg.self_id = "bot"
    msg.session_id = group or sender
    msg.message_id = "42"
    msg.sender = MessageMember(user_id=sender, nickname=name)
    msg.group = Group(group_id=group) if group else None
    msg.message = []
    msg.message_str = "hi"
    meta = PlatformMetadata(name="aiocqhttp", description="", id="qq main")
    return AstrMessageEvent("hi", msg, meta, msg.session_id)


def test_a_group_member_maps_to_the_group_session_and_their_own_user_scope() -> None:
    who = identity.identity_of(event("12345", group="777", name="Ann"))
    assert who.session == "qq_main:GroupMessage:777"  # whitespace in AstrBot's ids made safe
    assert who.user == "qq_main:12345"
    assert who.scope == "user:qq_main:12345"
    assert (who.platform, who.group_id, who.speaker_label) == ("aiocqhttp", "777", "Ann")


def test_a_private_chat_has_no_group() -> None:
    who = identity.identity_of(event("12345"))
    assert who.session == "qq_main:FriendMessage:12345" and who.group_id is None


def test_a_sender_without_id_falls_back_to_the_session_scope() -> None:
    for missing in ("", "   "):
        who = identity.identity_of(event(missing, group="777"))
        assert who.user is None
        assert who.scope == "session:qq_main:GroupMessage:777"
