"""Recognising secrets, which remem never stores as memories: API keys, passwords, tokens,
private keys, in English and Chinese phrasing.

Shapes of well-known credentials (provider key prefixes, JWTs, PEM blocks, long random strings
next to a secret word) and statements that give a password or code away ("my password is …",
"密码是…"). False positives cost one memory; a false negative leaks a credential into a
long-lived store, so the patterns lean towards refusing.
"""

from __future__ import annotations

import re

from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified

_SHAPES = [
    lazy_compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    lazy_compile(r"\bsk-(proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}"),  # OpenAI, Anthropic, Stripe
    lazy_compile(r"\b(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"),  # GitHub
    lazy_compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),  # AWS access key id
    lazy_compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),  # Google API key
    lazy_compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),  # Slack
    lazy_compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),  # JWT
    lazy_compile(r"\b(glpat|hf|npm|pypi)[-_][A-Za-z0-9_\-]{20,}"),  # GitLab, HF, npm, PyPI
]
_WORD = (
    r"(password|passwd|passphrase|pass ?code|pin( code)?|api[ _-]?key|secret( key)?|access[ _-]?"
    r"token|auth[ _-]?token|bearer token|token|private key|seed phrase|recovery (phrase|code)|"
    r"2fa code|otp|cvv|credit card( number)?)"
)
_GIVEN = lazy_compile(rf"\b{_WORD}\b\s*(is|was|=|:)\s*\S+", re.I)
_MY_WORD = lazy_compile(rf"\b(my|our|the)\s+{_WORD}\b[^.?!]*\b(is|was)\b", re.I)
_ZH = lazy_compile(
    r"(密码|口令|密钥|秘钥|私钥|令牌|验证码|支付码|助记词|银行卡号|信用卡号|api ?key|token)"
    r"\s*(是|为|:|：|=)\s*\S+",
    re.I,
)
# A long random-looking string right after a secret word ("key abc123...").
_NEAR = lazy_compile(rf"\b{_WORD}\b\W{{0,3}}[A-Za-z0-9+/_\-]{{20,}}", re.I)


def contains_secret(text: str) -> bool:
    if any(p.search(text) for p in _SHAPES):
        return True
    return bool(
        _GIVEN.search(text)
        or _MY_WORD.search(text)
        or _NEAR.search(text)
        or _ZH.search(to_simplified(text))
    )
