"""Which of two places is part of the other: a district said right after its city ("I live in
Shenzhen now" / "Got a small flat in Nanshan"; 搬去成都 / 住哪边？高新区) is the same home
said more precisely, not a move (``fold``).

Without a map of districts the rule reads levels: a country (the gazetteer,
``remem/data/gazetteer.tsv``) holds cities, a city holds what is neither (a district, a
neighbourhood: "Jing'an", "Nanshan", "高新区") and a place whose name ends as a district does
(区, 县, 镇, "district"). The fold asks only about a value said within a day of the place it
would refine, so a town the gazetteer lacks, said weeks later, is still a move.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files

from remem.text.normalize import to_simplified

COUNTRY, CITY, PART = 3, 2, 1  # how much a place holds: a country, a city, a part of a city
_PART_END = re.compile(r"(?:区|县|镇|乡|街道|新区|\bdistrict|\bborough|\bward)$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _levels() -> dict[str, int]:
    """Casefolded, Simplified place name -> its level, from the gazetteer."""
    text = (files("remem") / "data" / "gazetteer.tsv").read_text(encoding="utf-8")
    levels: dict[str, int] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        kind, *names = line.split("\t")
        level = COUNTRY if kind == "country" else CITY
        for name in names:
            key = _key(name)
            levels[key] = max(levels.get(key, 0), level)
    return levels


def _key(place: str) -> str:
    return to_simplified(place).casefold().strip().removeprefix("the ")


def place_level(place: str) -> int:
    """COUNTRY or CITY for a place the gazetteer names, PART for one named as a district
    ("高新区", "Camden district"), else 0 (unknown: a small town or a district alike)."""
    key = _key(place)
    if key in _levels():
        return _levels()[key]
    return PART if _PART_END.search(key) else 0


def refines(part: str, whole: str) -> bool:
    """Whether ``part`` can be a place inside ``whole``: a city in a known country, a
    district or unknown place in a known city ("Jing'an" in Shanghai, "高新区" in 成都)."""
    outer = place_level(whole)
    inner = place_level(part)
    return outer >= CITY and inner < outer
