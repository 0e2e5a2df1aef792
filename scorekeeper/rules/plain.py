"""Plain value classes for the rules: the part of :mod:`dataclasses` the engine uses.

``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``...), about a
seventh of the start-up of ``scorekeeper replay``; the engine needs only an ``__init__`` from
the annotated fields, ``__repr__``, ``__eq__`` and, for ``frozen`` classes, no assignment after
``__init__`` and a ``__hash__``. Same spelling as the standard library: ``@dataclass``,
``@dataclass(frozen=True)``, ``field(default_factory=list)``.
"""

from __future__ import annotations

_MISSING = object()


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


def field(*, default_factory):
    """A default made afresh for each instance (``field(default_factory=list)``)."""
    return _Factory(default_factory)


def dataclass(cls=None, *, frozen: bool = False):
    """Give ``cls`` an ``__init__`` taking its annotated fields in order (positional or by
    name, class-level values as defaults), ``__repr__``, ``__eq__``; with ``frozen``, assigning
    an attribute afterwards raises ``AttributeError`` and instances hash by their fields."""
    if cls is None:
        return lambda c: dataclass(c, frozen=frozen)
    names = []
    for klass in reversed(cls.__mro__):
        for name in klass.__dict__.get("__annotations__", {}):
            if name not in names:
                names.append(name)
    defaults = {n: getattr(cls, n) for n in names if hasattr(cls, n)}
    params, lines, env = [], [], {"_MISSING": _MISSING}
    set_ = "_setattr(self, {0!r}, {1})" if frozen else "self.{0} = {1}"
    for name in names:
        value = defaults.get(name, _MISSING)
        if value is _MISSING:
            params.append(name)
            lines.append(set_.format(name, name))
        elif isinstance(value, _Factory):
            env[f"_f_{name}"] = value.make
            params.append(f"{name}=_MISSING")
            lines.append(set_.format(name, f"_f_{name}() if {name} is _MISSING else {name}"))
        else:
            env[f"_d_{name}"] = value
            params.append(f"{name}=_d_{name}")
            lines.append(set_.format(name, name))
    env["_setattr"] = object.__setattr__
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(lines or ["pass"])
    exec(source, env)  # one small function per class, as dataclasses does
    cls.__init__ = env["__init__"]
    for name, value in defaults.items():
        if isinstance(value, _Factory):
            delattr(cls, name)
    fields = tuple(names)

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in fields) + ")"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in fields)

    cls.__repr__, cls.__eq__ = __repr__, __eq__
    if frozen:
        def __setattr__(self, name, value):
            raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

        def __hash__(self):
            return hash(tuple(getattr(self, n) for n in fields))

        cls.__setattr__, cls.__delattr__, cls.__hash__ = __setattr__, __setattr__, __hash__
    else:
        cls.__hash__ = None  # like dataclasses: a mutable value with __eq__ is unhashable
    cls.__match_args__ = fields
    return cls
