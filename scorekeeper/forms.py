"""Forms: game setup (built from a game's options) and entry parsing.

The setup form is a Flask-WTF form class made per game from its
:class:`~scorekeeper.rules.base.Option` list. Entry forms are parsed into an
entry dict of the record format; the rules engine decides if it is legal.
"""

from __future__ import annotations

import re

from flask_babel import format_decimal
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict
from wtforms import BooleanField, FieldList, IntegerField, RadioField, StringField, validators
from wtforms.validators import InputRequired, Length, Optional, StopValidation, ValidationError

try:  # WTForms 3.3+: a choice with its own label (value, label tuples are deprecated there)
    from wtforms.fields.choices import SelectChoice
except ImportError:  # pragma: no cover - older WTForms
    def SelectChoice(value, label):  # noqa: N802
        return (value, label)

from .i18n import gettext as _
from .i18n import pgettext
from .rules.base import MAX_NUMBER, GameSpec, Option, RecordError
from .rules.names import MAX_NAME, clean_name, name_key
from .rules.record import RECORD_INT_MAX
from .words import choice_label, option_help, option_label

ROLLOFF = "rolloff"
MAX_DIGITS = 12  # longer numbers are refused before int() (the engine's ranges are far smaller)
INT_KEYS = ("die", "rolls", "value", "penalty", "announced")
DICE_KEYS = ("hand", "cup", "dice")
TEXT_KEYS = ("type", "player", "owner")
#: The entry fields a page's form sends once each (a hand may also come as a repeated ``hand``).
_SINGLE_KEYS = frozenset((*TEXT_KEYS, *INT_KEYS, *(f"{key}.{i}" for key in DICE_KEYS for i in range(4))))
#: A game version or a database id: what PostgreSQL's ``integer`` holds.
DB_INT_MAX = 2**31 - 1
_NUMBER = re.compile(r"[+-]?[0-9]{1,%d}" % MAX_DIGITS)
#: A whole number of any length (only to tell one too long from text that is no number).
_DIGITS = re.compile(r"[+-]?[0-9]+")


class BadForm(ValueError):
    """Form data that is not even an entry (a letter where a number goes)."""


def field_word(key: str) -> str:
    """An entry field's name as a message shows it ("rolls"; in German "Würfe"); the field names
    posted stay English."""
    return {"die": pgettext("entry field", "die"), "rolls": pgettext("entry field", "rolls"),
            "value": pgettext("entry field", "value"), "penalty": pgettext("entry field", "penalty"),
            "announced": pgettext("entry field", "announced")}.get(key, key)


def parse_number(raw: str, key: str) -> int:
    """``raw`` (form text of the entry field ``key``: ASCII digits, an optional sign) as an int;
    raise :class:`BadForm`, naming the field (:func:`field_word`, looked up only then).

    The text is checked (at most :data:`MAX_DIGITS` digits, no "٣", "1e3" or "²") before
    ``int()`` ever sees it; the engine checks the range (docs/game-record.md §Ranges).
    """
    text = raw.strip() if isinstance(raw, str) else ""
    if not _NUMBER.fullmatch(text):
        shown = raw[:10] + ("…" if len(raw) > 10 else "") if isinstance(raw, str) else ""
        raise BadForm(_("%(what)s must be a whole number (digits 0-9), not %(shown)s", what=field_word(key),
                        shown=repr(shown)))
    return int(text)


def whole_number(raw: str, key: str) -> int:
    """``raw`` (form text of the field ``key``) as :func:`parse_number` reads it, within a
    record's range (``RECORD_INT_MAX`` either way); raise :class:`BadForm` otherwise. The length
    first (docs/game-record.md §Ranges): a number of 100,000 digits is never parsed; long text
    that is no number is told so, not that it is too large (a playtest: "<script>x</script>")."""
    text = raw.strip()
    if (len(text) > MAX_DIGITS and _DIGITS.fullmatch(text)) or abs(number := parse_number(raw, key)) > RECORD_INT_MAX:
        raise BadForm(_("%(key)s is far too large: every number here is at most %(max)s",
                        key=field_word(key), max=format_decimal(MAX_NUMBER)))
    return number


class NumberRange(validators.NumberRange):
    """WTForms' ``NumberRange`` (both bounds set), its refusal writing them as the request's
    language groups numbers: "between 1 and 999,999,999" (German "999.999.999"), as the app's
    other messages write a range; WTForms wrote "999999999"."""

    def __call__(self, form, field):
        try:
            super().__call__(form, field)
        except ValidationError:
            message = field.gettext("Number must be between %(min)s and %(max)s.")  # WTForms' own words
            raise ValidationError(message % {"min": format_decimal(self.min),
                                             "max": format_decimal(self.max)}) from None


class BoundedIntegerField(IntegerField):
    """An IntegerField that refuses text too long to be a number in range before it becomes an
    int: WTForms' NumberRange turns the value into a float, and 537 nines overflow it (a 500)."""

    def process_formdata(self, valuelist):
        text = str(valuelist[0]).strip() if valuelist else ""
        if len(text) > MAX_DIGITS:  # never int() of it; long text that is no number is told so
            self.data = None
            raise ValueError(_("Too large: at most %(max)s.", max=format_decimal(MAX_NUMBER))
                             if _DIGITS.fullmatch(text) else self.gettext("Not a valid integer value."))
        super().process_formdata(valuelist)

    def pre_validate(self, form):
        if self.process_errors:  # not a number: that one message, not also NumberRange's on top
            raise StopValidation()


class OptionChoiceField(RadioField):
    """A text option's radio buttons: a value not among them (a page edited, an old form) is
    refused naming the choices, where WTForms says only "Not a valid choice."."""

    def pre_validate(self, form):
        if not any(match for _value, _label, match, *_ in self.iter_choices()):
            raise ValidationError(_("Choose one of: %(choices)s.",
                                    choices=", ".join(str(label) for _value, label, *_ in self.iter_choices())))


def option_field(option: Option):
    """A WTForms field for one game option, with its default (label and help in the request's
    language; a text option's values stay its codes, only their labels are translated)."""
    label, desc = option_label(option), option_help(option)
    if option.kind == "int":
        return BoundedIntegerField(label, [InputRequired(), NumberRange(min=option.minimum, max=option.maximum)],
                            default=option.default, description=desc)
    if option.kind == "bool":
        return BooleanField(label, default=option.default, description=desc)
    if option.kind == "text":
        return OptionChoiceField(label, choices=[SelectChoice(c, choice_label(c)) for c in option.choices],
                                 default=option.default, description=desc)
    if option.kind == "range":
        return FieldList(BoundedIntegerField(label, [InputRequired(),
                                                     NumberRange(min=option.minimum, max=option.maximum)]),
                         label=label, validators=[_low_first], min_entries=2, max_entries=2,
                         default=option.default, description=desc)
    raise AssertionError(option.kind)


def _low_first(form, field) -> None:
    """A range option's two numbers ("from", "to"): the lower first."""
    low, high = field.data  # two entries, no more, no fewer (min_entries, max_entries)
    if isinstance(low, int) and isinstance(high, int) and low > high:
        raise ValidationError(_("“from” is above “to”: give the lower number first."))


def field_errors(field) -> list[str]:
    """A field's error messages as one flat list: a range option's list of fields holds a list
    per number, then its own."""
    out = []
    for error in field.errors:
        out += error if isinstance(error, list) else [error]
    return out


def posted_rows(formdata) -> int:
    """How many name rows (``players-N``, N any number of ASCII digits, as WTForms reads them) a
    setup form sent."""
    return len({key for key in formdata if re.fullmatch(r"players-[0-9]+", key)})


def setup_form(spec: GameSpec, seats: int, formdata=None, data: dict | None = None) -> FlaskForm:
    """The setup form for ``spec`` with ``seats`` name rows.

    Fields: ``players`` (names in seat order), ``starter`` (a seat index as
    text, or ``rolloff``), and one field per option named ``opt_<name>``.
    """

    class SetupForm(FlaskForm):
        players = FieldList(
            # Longer text may still clean to MAX_NAME characters; check_players has the last word.
            StringField(_("Name"), [Optional(), Length(max=4 * MAX_NAME, message=_(
                "A name has at most %(most)d characters.", most=MAX_NAME))],
                        render_kw={"maxlength": MAX_NAME, "autocomplete": "off"}),
            min_entries=seats,
            # No cap here: more rows than the game's seats are refused before (views.games, posted_rows).
        )
        starter = StringField(_("Who starts"), default="0")

        def validate_players(self, field) -> None:
            """A seat left without a name above a named one is refused, said at that seat
            (:func:`mark_gaps`): the game would otherwise start with one player fewer than the
            names meant to be seated (Ann, -, Cat made a game of two; found by a review)."""
            gaps = mark_gaps(field)
            if gaps:
                raise ValidationError(field.entries[gaps[0]].errors[-1])

    for option in spec.options:
        setattr(SetupForm, "opt_" + option.name.replace("-", "_"), option_field(option))
    return SetupForm(formdata=formdata, data=data)


def mark_gaps(field) -> list[int]:
    """Mark each seat of the setup form's ``players`` left without a name above a named one, with
    the message said at that seat; return their positions (0 first). Empty seats at the end are
    no gap: the form has more rows than a game may need. Also run on a seat button's answer, so
    that a gap the button left is still marked (found by a review)."""
    named = [bool(clean_name(entry.data or "")) for entry in field.entries]
    gaps = [i for i, has in enumerate(named) if not has and any(named[i + 1:])]
    for i in gaps:
        field.entries[i].errors = [*field.entries[i].errors, _(
            "Seat %(seat)d has no name, and a seat below it has one: type the name, or move the "
            "names below up (↑).", seat=i + 1)]
    return gaps


def rearrange(names: list, starter: str, action: str, max_seats: int,
              picked: str | None = None) -> tuple[list[str], str]:
    """Apply one seat button of the setup form; returns ``(names, starter)``.

    ``action``: ``add`` (an empty seat), ``up-<i>``/``down-<i>`` (move seat i; the
    "starts" mark moves with its name), ``pick-<id>`` (``picked``, a known player's
    name, goes into the first empty seat unless already seated). Anything else
    changes nothing. At most ``max_seats`` seats.
    """
    names = [(n or "") for n in names]
    if action == "add" and len(names) < max_seats:
        names.append("")
    elif action.startswith("pick-") and picked:
        if name_key(picked) not in {name_key(n) for n in names}:  # docs/game-record.md §Names
            empty = next((i for i, n in enumerate(names) if not n.strip()), None)
            if empty is not None:
                names[empty] = picked
            elif len(names) < max_seats:
                names.append(picked)
    elif action.startswith(("up-", "down-")):
        index = action.split("-", 1)[1]
        i = int(index) if index.isascii() and index.isdigit() and len(index) <= 3 else -1
        j = i - 1 if action.startswith("up-") else i + 1
        if 0 <= i < len(names) and 0 <= j < len(names):
            names[i], names[j] = names[j], names[i]
            if starter == str(i):
                starter = str(j)
            elif starter == str(j):
                starter = str(i)
    return names, starter


def starting_entries(raw_names: list[str], starter: str) -> list[dict]:
    """The entry that names who starts (none for the roll-off); raise :class:`RecordError`."""
    if starter == ROLLOFF:
        return []
    idx = int(starter) if starter.isascii() and starter.isdigit() and len(starter) <= 3 else -1
    if not 0 <= idx < len(raw_names) or not raw_names[idx]:
        raise RecordError(_("choose who starts: tick “starts” beside a name, or roll for it"))
    return [{"type": "start", "player": raw_names[idx]}]


def form_options(spec: GameSpec, form) -> dict:
    """The option values from a validated setup form, by code name."""
    values = {}
    for option in spec.options:
        value = getattr(form, "opt_" + option.name.replace("-", "_")).data
        values[option.name] = list(value) if option.kind == "range" else value
    return values


def entry_from_form(form: MultiDict) -> dict:
    """An entry dict (record format) from posted fields; raise :class:`BadForm`.

    Numbers become ints; dice come as ``hand.0``, ``hand.1``... (or repeated
    ``hand``) and become lists. Whether the entry is legal is the engine's call.
    """
    entry: dict = {}
    # A field sent twice (``cup.1=1&cup.1=2``, no page's form does) is refused, not read as its
    # first value (a review). One pass over what was sent.
    for key, values in form.lists():
        if len(values) > 1 and key in _SINGLE_KEYS:
            if "." in key:  # a die of a hand or of the cup
                raise BadForm(_("a die was sent %(count)s times: choose one face for each die", count=len(values)))
            raise BadForm(_("%(key)s was sent %(count)s times: send each field of an entry once",
                            key=field_word(key), count=len(values)))
    # ``key in form`` before reading: a MultiDict's get() of a missing field raises and catches a
    # BadRequestKeyError inside, some µs each, and an entry leaves most of these fields out.
    for key in TEXT_KEYS:
        if key in form and form[key]:
            if len(form[key]) > MAX_NAME:  # a name, or an entry's type: never longer than a name
                raise BadForm(_("%(key)s is too long (%(count)s characters): a name has at most %(max)s",
                                key=key, count=len(form[key]), max=MAX_NAME))
            entry[key] = form[key]
    # Every number is within a record's range (RECORD_INT_MAX either way), in a field the entry's
    # type does not use too: the engine ignores such a field, but it is stored and exported, and
    # the record must load again (docs/game-record.md §Ranges). The engine checks the ranges of
    # the fields it uses, which are far smaller.
    for key in INT_KEYS:
        raw = form[key] if key in form else None
        if raw in (None, ""):
            continue
        entry[key] = whole_number(raw, key)
    for key in DICE_KEYS:
        raws = ([form[f"{key}.{i}"] for i in range(4) if f"{key}.{i}" in form]
                or (key in form and form.getlist(key)))
        if not raws:
            continue
        if len(raws) > 5 or not all(_NUMBER.fullmatch(r.strip()) and abs(int(r)) <= RECORD_INT_MAX for r in raws):
            raise BadForm(_("choose a face from 1 to 6 for every die"))
        entry[key] = [int(r) for r in raws]
    if "type" not in entry:
        raise BadForm(_("the form did not say what kind of entry it is; reload the page"))
    return entry


def prefill(entry: dict) -> dict:
    """The entry form's field values that show ``entry`` (the inverse of :func:`entry_from_form`):
    ``{"type": "turn", "hand.0": 6, "hand.1": 3, "rolls": 2, "player": "Ann", ...}`` (the type
    tells which of a page's forms is the entry's own)."""
    values: dict = {"type": entry.get("type")}
    for key, value in entry.items():
        if key in DICE_KEYS and isinstance(value, list):
            values.update({f"{key}.{i}": d for i, d in enumerate(value)})
        elif key in INT_KEYS or key in TEXT_KEYS:
            values[key] = value
    return values


def form_version(form: MultiDict) -> int:
    """The game version a form was made for (0..2**31-1, what a database integer holds); raise
    :class:`BadForm` if it is missing, not a whole number or beyond that. The pages always send
    one: only a hand-made request lacks or mangles it, and is told which of the two (422), not that
    another phone changed the game. A version that is well-formed but not the game's is the
    caller's "game changed"."""
    if len(sent := form.getlist("version")) > 1:  # a hand-made form (a review: the first one won)
        raise BadForm(_("the game's version was sent %(count)s times: send it once; nothing was changed",
                        count=len(sent)))
    raw = sent[0] if sent else None
    text = raw.strip() if isinstance(raw, str) else ""
    if not text:
        raise BadForm(_("the form did not say which version of the game it was made for (each page's form "
                        "says it); nothing was changed: reload the page"))
    if not text.isascii() or not text.isdigit() or len(text) > 10 or int(text) > DB_INT_MAX:
        raise BadForm(_("the game's version the form sent is not a whole number from 0 to %(max)s (each "
                        "page's form says it); nothing was changed: reload the page", max=DB_INT_MAX))
    return int(text)


def database_id(text: str) -> int | None:
    """``text`` as a database id (1..2**31-1), or None if it is not one."""
    if not text.isascii() or not text.isdigit() or len(text) > 10 or not 0 < int(text) <= DB_INT_MAX:
        return None
    return int(text)


class PracticeForm(FlaskForm):
    """A practice game's setup: the person's name and one option (docs/practice.md)."""

    player = StringField(_l("Your name"), [InputRequired(), Length(max=MAX_NAME)],
                         filters=[lambda v: v.strip() if isinstance(v, str) else v])

    @property
    def option(self):
        """The one game option this form sets (a field named after the option)."""
        return next(f for f in self if f.name not in ("player", "csrf_token"))


class MitchiPracticeForm(PracticeForm):
    point_limit = BoundedIntegerField(_l("Point limit"), [InputRequired(), NumberRange(min=1, max=100)], default=5,
                               description=_l("The game ends when anyone reaches this many points; fewest "
                                              "win. 25 is usual at the table; 5 makes a short game."))


class MiaPracticeForm(PracticeForm):
    lives = BoundedIntegerField(_l("Lives"), [InputRequired(), NumberRange(min=1, max=10)], default=3,
                         description=_l("Everyone starts with this many lives; the last with lives left wins."))


class MiceAndMenPracticeForm(PracticeForm):
    rounds = BoundedIntegerField(_l("Rounds"), [InputRequired(), NumberRange(min=1, max=30)], default=5,
                          description=_l("The game ends after this many rounds; fewest penalty points win."))


PRACTICE_FORMS = {"mitchi": MitchiPracticeForm, "mia": MiaPracticeForm, "mice-and-men": MiceAndMenPracticeForm}
