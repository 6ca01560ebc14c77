"""How many of its last tokens a query that is the chat so far is embedded by.

A chat's answer is often a note about an older message (the surgery, the cafe), so a chat is
embedded by ``search.chat_embed_tokens``, more than a question's ``search.query_embed_tokens``
(docs/decisions/0022-chat-embedding.md). That holds for a chat between people the store knows:
their older messages are about a life it has notes on. A chat whose named speakers the store
has never heard of (no record holds or is said by any of them) is someone else's: its older
messages are small talk the store cannot answer, and embedded whole they only come nearer to
the store's own small talk ("Hey Mel, what's up? Been a busy week"): at 128 tokens dialogue
chats asked of LoCoMo's and zh_groupchat's stores were answered 8.7 / 7.5 points more often,
all through the latent floor. Such a chat is embedded as a question is.

Labels that name a role, not a person ("Assistant", "User", "助手"), say nothing either way: a
chat of roles only is the store owner's own and gets the chat budget.
"""

from __future__ import annotations

from collections.abc import Collection

from remem.config.search import SearchConfig
from remem.store.base import LexicalStore
from remem.text.dialogue import speaker_labels
from remem.text.tokenize import Tokenizer

# casefolded labels that name a role in the chat, not a person the store could know
ROLE_LABELS = frozenset(
    {
        "assistant",
        "user",
        "ai",
        "bot",
        "system",
        "human",
        "me",
        "you",
        "助手",
        "用户",
        "我",
        "机器人",
        "小助手",
    }
)


def chat_people(query: str) -> list[str]:
    """The speaker labels of a query that is the chat so far that name people, not a role
    ("Assistant", "用户"); [] for anything else."""
    return [label for label in speaker_labels(query) if label.casefold() not in ROLE_LABELS]


def chat_name_tokens(query: str, tokenizer: Tokenizer, asked: Collection[str]) -> list[str]:
    """The keyword tokens of a chat's people's names that its keyword query asks for: they
    say whose notes answer it (``search.chat_label_weight``); [] for anything but a chat."""
    names = [t for label in chat_people(query) for t in tokenizer.phrase_tokens(label)]
    return [t for t in dict.fromkeys(names) if t in asked]


def chat_embed_budget(
    query: str,
    cfg: SearchConfig,
    store: LexicalStore | None,
    tokenizer: Tokenizer | None,
    speakers: Collection[str] = (),
) -> int:
    """The token budget of a chat's embedding: ``cfg.chat_embed_tokens``, unless every person
    the chat's labels name is a stranger to the store (``strangers_only``): then
    ``cfg.query_embed_tokens``. ``speakers``: the store's speaker labels the query names
    (``SpeakerNames.named``). Not a chat: ``cfg.chat_embed_tokens`` (unused by
    ``text/budget.embedded_query``)."""
    if store is None or tokenizer is None or cfg.chat_embed_tokens == cfg.query_embed_tokens:
        return cfg.chat_embed_tokens
    if strangers_only(query, store, tokenizer, speakers):
        return cfg.query_embed_tokens
    return cfg.chat_embed_tokens


def strangers_only(
    query: str, store: LexicalStore, tokenizer: Tokenizer, speakers: Collection[str] = ()
) -> bool:
    """Whether the chat's labels name one person or more, none of them a speaker of the
    store (``speakers``, casefolded or not) and none whose name a record holds (each of the
    name's keyword tokens). False for anything but a chat, and for a chat of role labels
    only."""
    people = chat_people(query)
    if not people:
        return False
    known = {s.casefold() for s in speakers}
    if any(label.casefold() in known for label in people):
        return False
    names = [tokenizer.phrase_tokens(label) for label in people]
    names = [tokens for tokens in names if tokens]
    if not names:
        return False
    _n, df = store.term_stats(sorted({t for tokens in names for t in tokens}))
    return not any(all(df.get(t, 0) > 0 for t in tokens) for tokens in names)
