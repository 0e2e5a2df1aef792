"""Dice: checking faces and normalising hands (dice order never matters)."""

from __future__ import annotations

from .base import N_, IllegalEntry, is_int, shown

TYPE_CHECKING = False  # typing is not imported at run time (start-up of `scorekeeper replay`)
if TYPE_CHECKING:
    from typing import Any

FACES = range(1, 7)


def parse_die(value: Any) -> int:
    """Return a die face 1..6; raise :class:`IllegalEntry` for anything else (docs/rules.md §Every game)."""
    if not is_int(value):
        raise IllegalEntry(N_("a die must be a whole number from 1 to 6, not {value}"), value=shown(value))
    if value not in FACES:
        raise IllegalEntry(N_("a die shows 1 to 6, not {value}"), value=shown(value))
    return value


def parse_dice(value: Any, count: int, what: str = "hand") -> tuple[int, ...]:
    """Return ``count`` dice sorted high to low, e.g. ``[1, 2] -> (2, 1)``.

    Raises :class:`IllegalEntry` unless ``value`` is a list of exactly ``count``
    dice faces.
    """
    if value.__class__ is list and len(value) == count:  # the usual case, checked without a call per die
        if count == 2:  # Mitchi's and Mia's two dice, unpacked: a quarter of the general case's time
            a, b = value
            if a.__class__ is int and b.__class__ is int and 0 < a < 7 and 0 < b < 7:
                return (a, b) if a >= b else (b, a)
        elif all(d.__class__ is int and 0 < d < 7 for d in value):
            return tuple(sorted(value, reverse=True))
    if value is None:  # no dice given at all: say so, not "must be a list of 2 dice, not null"
        raise IllegalEntry(N_("{what} is missing: give {count} dice, each 1 to 6"), what=what, count=count)
    if not isinstance(value, (list, tuple)):
        raise IllegalEntry(N_("{what} must be a list of {count} dice, not {value}"),
                           what=what, count=count, value=shown(value))
    if len(value) != count:
        raise IllegalEntry(N_("{what} must have {count} dice, not {number}"), what=what, count=count, number=len(value))
    return tuple(sorted((parse_die(v) for v in value), reverse=True))


def value_of(dice: tuple[int, ...]) -> int:
    """The dice as one number, highest die first: (2, 1) -> 21, (6, 5, 1) -> 651."""
    result = 0
    for d in sorted(dice, reverse=True):
        result = result * 10 + d
    return result


#: The keys of an entry that hold dice (docs/game-record.md §Entries): Mitchi's ``hand``, Mia's
#: lifted ``cup``, Mice and Men's ``dice`` (and the dice under a practice Mia cup).
DICE_KEYS = ("hand", "cup", "dice")


def same_entry(a: Any, b: Any) -> bool:
    """True if entries ``a`` and ``b`` (dicts, as in a record's ``entries``) say the same thing:
    equal, but for the order of the dice under :data:`DICE_KEYS`, which never matters (a hand of
    1-2 is a hand of 2-1: docs/rules.md §Mitchi 1, §Mia 1). A correction that is the same entry
    changes nothing. Anything but two dicts is compared with ``==``."""
    if a == b:
        return True
    if not isinstance(a, dict) or not isinstance(b, dict) or a.keys() != b.keys():
        return False
    for key, value in a.items():
        other = b[key]
        if value == other:
            continue
        if key not in DICE_KEYS or not isinstance(value, list) or not isinstance(other, list):
            return False
        if not all(is_int(d) for d in value) or not all(is_int(d) for d in other):
            return False
        if sorted(value) != sorted(other):
            return False
    return True
