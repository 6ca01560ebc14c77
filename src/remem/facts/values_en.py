"""The words English values are cut and judged with: a value runs to the end of its clause
and is cut before what only qualifies it ("Leeds already" -> "Leeds", ``clip``); a liked thing
is a lasting preference, not a remark on what is in front of someone (``preference``); the
kinds a favourite can be of (``KINDS``)."""

from __future__ import annotations

import re

from remem.text.lazy_re import lazy_compile

KINDS = {
    "food": "food",
    "dish": "food",
    "meal": "food",
    "author": "author",
    "writer": "author",
    "book": "book",
    "novel": "book",
    "film": "film",
    "movie": "film",
    "band": "band",
    "song": "song",
    "colour": "colour",
    "color": "colour",
    "drink": "drink",
    "sport": "sport",
    "game": "game",
    "show": "show",
    "city": "city",
    "artist": "artist",
    "singer": "singer",
    "restaurant": "restaurant",
}
_STOP = lazy_compile(
    r"\s+(?:now|these days|nowadays|any ?more|again|already|too|since|for|from|last|next|this|"
    r"on|at the moment|lol|haha|and|but|so|because|with|until|till|today|tonight|yesterday|"
    r"tomorrow|then|though|instead|by|as|which|who|where|near|after|before|when|while|"
    r"in (?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|the|a|\d)|three|two|every|each|all|right)\b.*$",
    re.I,
)
_PRONOUN_VALUES = {
    "it",
    "this",
    "that",
    "them",
    "you",
    "him",
    "her",
    "to",
    "the idea",
    "there",
    "me",
    "us",
}
# What someone likes is a lasting preference ("I love trail running"), not a remark on what
# is in front of them ("I love your turtles", "I love the color", "I love how ..."), at most
# a few words, and more than a light verb ("I love going" is cut from "going on road trips").
_REMARK = lazy_compile(
    r"^(?:your|the|this|that|these|those|how|what|when|where|why|it|them|you|his|her|their|"
    r"our|its|seeing|hearing|reading about)\b|^(?:going|doing|being|making|having|getting|"
    r"trying|taking|throwing|curling up|coming)$",
    re.I,
)


def preference(value: str) -> str:
    """A liked or disliked thing, or "" when the words are a remark, not a preference."""
    first = re.split(r"\s+[-–—]\s+", value)[0].strip()
    cut = clip(first)
    return "" if _REMARK.search(first) or _REMARK.search(cut) or len(cut.split()) > 4 else cut


def clip(value: str) -> str:
    """A value without what only qualifies it: "Leeds already" -> "Leeds"."""
    cut = _STOP.sub("", " " + value.strip()).strip()
    cut = re.sub(r"^(?:a|an|my|our|his|her|their)\s+", "", cut, flags=re.I)
    return "" if cut.casefold() in _PRONOUN_VALUES else cut


def no(value: str) -> str:
    return f"no {clip(value)}"
