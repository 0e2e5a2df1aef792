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

#: The format characters an emoji is made of, kept in a shown name where they join one:
#: the zero-width joiner (U+200D) between two pictographs (👨‍👩‍👧, 🏳️‍🌈, 👩🏽‍💻), and the tag
#: characters (U+E0020 to U+E007F) after the black flag (🏴 and its tags: the flag of Scotland).
_ZWJ = "\u200d"
_BLACK_FLAG = "\U0001f3f4"
_TAGS = range(0xE0020, 0xE0080)
#: What may stand before a joiner in an emoji: a pictograph (So), a skin tone (Sk), the emoji
#: presentation selector U+FE0F (Mn, kept anyway).
_BEFORE_JOINER = frozenset(("So", "Sk"))


def _joins_emoji(text: str, i: int, kept: list[str]) -> bool:
    """True when the format character ``text[i]`` is part of an emoji (see :data:`_ZWJ`)."""
    c = text[i]
    if c == _ZWJ:
        before = kept[-1] if kept else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        return (before == "\ufe0f" or (before != "" and unicodedata.category(before) in _BEFORE_JOINER)) and (
            after != "" and unicodedata.category(after) == "So")
    return ord(c) in _TAGS and bool(kept) and (kept[-1] == _BLACK_FLAG or ord(kept[-1]) in _TAGS)


def clean_name(name: str) -> str:
    """``name`` trimmed, in Unicode NFC, every inner run of whitespace made one space, and
    invisible, control and format characters removed: ``" Jose\\u0301\\u200b  Lee "`` ->
    ``"José Lee"``; but for those an emoji is made of (a zero-width joiner between two
    pictographs, a flag's tags), which stay where they join one: ``"👨\\u200d👩\\u200d👧"`` is
    shown as one family, not three people (docs/game-record.md §Names). Text in, text out;
    raises ``TypeError`` for anything but ``str``."""
    if not isinstance(name, str):
        raise TypeError("a name is text")
    # Whitespace first (tabs and newlines are control characters too, but they separate words);
    # str.split() splits on every Unicode space and drops the ends.
    spaced = " ".join(name.split())
    kept: list[str] = []
    for i, c in enumerate(spaced):
        if unicodedata.category(c) not in _INVISIBLE or _joins_emoji(spaced, i, kept):
            kept.append(c)
    return " ".join(unicodedata.normalize("NFC", "".join(kept)).split())


def name_key(name: str) -> str:
    """The comparison key of a name: :func:`clean_name` without any format character (an
    emoji's joiners too: they are invisible), then case folded (and NFC again, as folding can
    undo it). Never cut short: "José", "JOSÉ" and "Jose\\u0301" share one key; two long names
    differing after their 40th folded character do not."""
    visible = "".join(c for c in clean_name(name) if unicodedata.category(c) not in _INVISIBLE)
    return unicodedata.normalize("NFC", visible.casefold())


def has_control(name: str) -> bool:
    """True when ``name`` holds a control character (NUL, a newline...): no display name does."""
    return any(unicodedata.category(c) == "Cc" for c in name)
