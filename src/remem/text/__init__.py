"""Language handling: normalisation and the lexical tokenizer (CJK aware)."""

from remem.text.normalize import normalize_text, to_simplified
from remem.text.tokenize import Tokenizer

__all__ = ["Tokenizer", "normalize_text", "to_simplified"]
