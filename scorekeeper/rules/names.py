"""Player names as people read them (docs/game-record.md §Names). Pure Python, stdlib only.

``clean_name`` is the name as it is stored and shown; ``name_key`` is what two names are
compared by: two names with the same key are the same name (one seat, one player profile).
"""

from __future__ import annotations

import unicodedata

#: At most this many characters once cleaned (docs/game-record.md §Names).
MAX_NAME = 40

#: Unicode categories removed: control (Cc), format (Cf: zero-width spaces and joiners, direction
#: marks, the BOM, soft hyphens), surrogates (Cs) and unassigned code points (Cn).
_INVISIBLE = frozenset(("Cc", "Cf", "Cs", "Cn"))


def clean_name(name: str) -> str:
    """``name`` trimmed, in Unicode NFC, every inner run of whitespace made one space, and
    invisible, control and format characters removed: ``" Jose\\u0301\\u200b  Lee "`` ->
    ``"José Lee"``. Text in, text out; raises ``TypeError`` for anything but ``str``."""
    if not isinstance(name, str):
        raise TypeError("a name is text")
    # Whitespace first (tabs and newlines are control characters too, but they separate words);
    # str.split() splits on every Unicode space and drops the ends.
    spaced = " ".join(name.split())
    visible = "".join(c for c in spaced if unicodedata.category(c) not in _INVISIBLE)
    return " ".join(unicodedata.normalize("NFC", visible).split())


def name_key(name: str) -> str:
    """The comparison key of a name: :func:`clean_name`, then case folded (and NFC again, as
    folding can undo it). Never cut short: "José", "JOSÉ" and "Jose\\u0301" share one key; two long
    names differing after their 40th folded character do not."""
    return unicodedata.normalize("NFC", clean_name(name).casefold())


def has_control(name: str) -> bool:
    """True when ``name`` holds a control character (NUL, a newline...): no display name does."""
    return any(unicodedata.category(c) == "Cc" for c in name)
