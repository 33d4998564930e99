"""Commands as text: the syntax each command class declares, read and written here
(docs/notation.md#commands).

A game declares each command's text with :func:`cardcore.kit.command`, as a template beside the
class (``@kit.command("swap {hand_card} {up_card}")``); this module compiles the templates,
splits a text into tokens, reads cards and numbers, and builds the errors, for every game alike.
:meth:`cardcore.engine.Game.parse_command` and :meth:`~cardcore.engine.Game.format_command` are
the way in; ``str(command)`` is its text.

A template is words separated by single spaces:

* ``play`` — a literal word; the first one is the command's verb (unique within its game);
* ``{cards}`` — a field, written by its type: a card as its text (``4S``, ``10H``, ``JK``), an
  integer in decimal, a word as itself, None as ``-``; a tuple field takes as many tokens as it
  holds (none for an empty tuple) and comes last among the required parts;
* ``[on {expect_top}]`` — an optional part: a keyword and a field with a default, written only
  when the field is not at its default; in a text, optional parts may come in any order;
* ``[{target}]`` — an optional field without a keyword (the template's last part).

Reading is lenient where a person types (the verb and keywords in any case; a card as
:meth:`cardcore.cards.Card.parse` reads it: ``qs``, ``TH``, ``Q♠``); writing is canonical, so
``parse(format(c)) == c`` for every command. Whether a command is legal is for the game's
``decide`` to say: a text that parses may still be rejected.
"""

from __future__ import annotations

import re
import types
from collections.abc import Collection, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import Any, Final, Literal, Union, get_args, get_origin

from ._mypyc import mypyc_attr
from .cards import Card
from .errors import CardcoreError

MAX_COMMAND_TEXT: Final = 1_000
"""Longest command text read (a play of every card of eight decks fits)."""
NONE_TEXT: Final = "-"
"""How a field's None is written (as in the position notation)."""


class CommandSyntaxError(CardcoreError, ValueError):
    """A command text that does not read as a command of the game. The message quotes the text,
    says what is wrong and what was expected there. ``text`` is the input (shortened), ``usage``
    the expected form (one command's, or every command of the game, ``|``-separated)."""

    def __init__(self, text: str, problem: str, usage: str) -> None:
        super().__init__(f"{text!r}: {problem}; expected {usage}")
        self.text = text
        self.problem = problem
        self.usage = usage


@mypyc_attr(native_class=False)  # a TypeError: mypyc compiles no subclass of it
class FieldTypeError(CardcoreError, TypeError):
    """A command built with a field of the wrong type (``Play(cards=("4S",))``: a string where a
    :class:`~cardcore.cards.Card` belongs). ``field`` is ``Class.field``; raised by the
    constructor (:func:`cardcore.kit.command`), before any rule sees the command."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


# --------------------------------------------------------------------------- values

_Kind = Literal["card", "int", "word"]


@dataclass(frozen=True, slots=True)
class _Value:
    """How one field is written: its kind, whether it may be None, whether it is a tuple of
    such values, and for a ``Literal`` the words allowed."""

    kind: _Kind
    optional: bool = False
    many: bool = False
    choices: tuple[str, ...] = ()


def _value_of(hint: Any, where: str) -> _Value:
    """The text form of a field's type hint; raises ``TypeError`` for a type with none."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType) and type(None) in args and len(args) == 2:
        inner = _value_of(next(a for a in args if a is not type(None)), where)
        if inner.many or inner.optional:
            raise TypeError(f"{where}: an optional tuple has no text form")
        return _Value(inner.kind, True, False, inner.choices)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        inner = _value_of(args[0], where)
        if inner.many or inner.optional:
            raise TypeError(f"{where}: a tuple of {args[0]!r} has no text form")
        return _Value(inner.kind, False, True, inner.choices)
    if origin is Literal and args and all(type(a) is str for a in args):
        return _Value("word", choices=tuple(args))
    if hint is Card:
        return _Value("card")
    if hint is int:
        return _Value("int")
    if hint is str:
        return _Value("word")
    raise TypeError(f"{where}: a field of type {hint!r} has no text form")


_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*")
_INT: Final = re.compile(r"-?[0-9]{1,18}")


def _write(value: _Value, v: Any, where: str) -> list[str]:
    """The tokens of one field's value."""
    if value.many:
        return [_write_one(value, x, where) for x in v]
    if v is None:
        return [NONE_TEXT]
    return [_write_one(value, v, where)]


def _write_one(value: _Value, v: Any, where: str) -> str:
    if value.kind == "word":
        if type(v) is not str or not _WORD.fullmatch(v):
            raise ValueError(f"{where}: {v!r:.40} has no text form (a word: letters, digits, _)")
        return v
    return str(v)  # a Card's text, or an int in decimal


# --------------------------------------------------------------------------- syntax


@dataclass(frozen=True, slots=True)
class _Part:
    """One part of a template: a literal word (``field`` None), a required field, or an optional
    one (``keyword`` the word before it, or None for the bare trailing ``[{field}]``)."""

    word: str | None = None
    field: str | None = None
    value: _Value | None = None
    optional: bool = False
    keyword: str | None = None
    default: Any = None

    @property
    def usage(self) -> str:
        if self.field is None:
            return str(self.word)
        name = self.field.upper() + ("..." if self.value is not None and self.value.many else "")
        if not self.optional:
            return name
        return f"[{self.keyword} {name}]" if self.keyword else f"[{name}]"


_PART: Final = re.compile(r"\[(?:([a-z][a-z_-]*) )?\{(\w+)\}\]|\{(\w+)\}|([a-z][a-z_-]*)")


class Syntax:
    """The text form of one command class, compiled from its template (:func:`cardcore.kit.command`
    attaches it to the class as ``syntax``). ``usage`` is the template as a person reads it:
    ``swap HAND_CARD UP_CARD``, ``play CARDS...``, ``slap [epoch EXPECT_EPOCH]``."""

    def __init__(self, cls: type, template: str, hints: Mapping[str, Any]) -> None:
        self.cls = cls
        self.template = template
        name = cls.__name__
        defaults = {
            f.name: f.default for f in fields(cls) if f.default is not MISSING
        }  # records take no default_factory
        parts: list[_Part] = []
        at = 0
        while at < len(template):
            m = _PART.match(template, at)
            if m is None or (m.end() < len(template) and template[m.end()] != " "):
                raise TypeError(f"{name}: cannot read the template {template!r} at {at}")
            at = m.end() + 1
            keyword, optional_field, field, word = m.groups()
            if word is not None:
                parts.append(_Part(word=word))
                continue
            fname = optional_field or field
            if fname not in hints:
                raise TypeError(f"{name}: the template {template!r} names no field {fname!r}")
            parts.append(
                _Part(
                    field=fname,
                    value=_value_of(hints[fname], f"{name}.{fname}"),
                    optional=optional_field is not None,
                    keyword=keyword,
                    default=defaults.get(fname),
                )
            )
        self.parts = tuple(parts)
        self._check(name, template, hints, defaults)
        self.verb = str(self.parts[0].word)
        self.usage = " ".join(p.usage for p in self.parts)

    def _check(
        self, name: str, template: str, hints: Mapping[str, Any], defaults: Mapping[str, Any]
    ) -> None:
        """The template is one a text can be read back from: a verb first, every field once,
        optional parts last with defaults, a tuple last among the required parts."""
        parts = self.parts
        if not parts or parts[0].word is None:
            raise TypeError(f"{name}: the template {template!r} must start with its verb")
        named = [p.field for p in parts if p.field is not None]
        if sorted(named) != sorted(hints) or len(set(named)) != len(named):
            raise TypeError(f"{name}: the template {template!r} must name each field once")
        first_optional = next((i for i, p in enumerate(parts) if p.optional), len(parts))
        for i, p in enumerate(parts):
            if p.optional and p.field not in defaults:
                raise TypeError(f"{name}.{p.field}: an optional part needs a default")
            if i > first_optional and not p.optional:
                raise TypeError(f"{name}: the template {template!r} has optional parts last")
            if p.optional and p.keyword is None and i != len(parts) - 1:
                raise TypeError(f"{name}: a part without a keyword must be the template's last")
            many = p.value is not None and p.value.many
            if many and not p.optional and any(q.word is not None for q in parts[i + 1 :]):
                raise TypeError(f"{name}: a tuple field cannot be followed by a literal word")
            if many and not p.optional and i + 1 < first_optional:
                raise TypeError(f"{name}: a tuple field comes last among the required parts")

    # ----------------------------------------------------------------------- writing

    def format(self, command: object) -> str:
        """The canonical text of ``command`` (an instance of this syntax's class)."""
        out: list[str] = []
        for p in self.parts:
            if p.field is None:
                out.append(str(p.word))
                continue
            v = getattr(command, p.field)
            if p.optional and v == p.default and type(v) is type(p.default):
                continue
            if p.keyword is not None:
                out.append(p.keyword)
            assert p.value is not None
            out += _write(p.value, v, f"{self.cls.__name__}.{p.field}")
        return " ".join(out)

    # ----------------------------------------------------------------------- reading

    def parse(self, text: str, tokens: Sequence[str], deck: Collection[Card] | None) -> Any:
        """The command ``tokens`` (``text`` split, the verb first) describe; raises
        :class:`CommandSyntaxError` quoting ``text``."""
        reader = _Reader(text, tokens, self.usage, deck)
        reader.at = 1
        values: dict[str, Any] = {}
        keywords = {p.keyword: p for p in self.parts if p.keyword is not None}
        optional = [p for p in self.parts if p.optional]
        for p in self.parts[1:]:
            if p.optional:
                break
            if p.field is None:
                reader.word(str(p.word))
            else:
                assert p.value is not None
                values[p.field] = reader.value(p.field, p.value, stop=keywords)
        while reader.at < len(tokens):
            token = tokens[reader.at]
            part = keywords.get(token.lower())
            if part is None and optional and optional[-1].keyword is None:
                part = optional[-1]  # the bare trailing [{field}]
            if part is None or part.field in values:
                raise reader.error(f"unexpected {token[:20]!r}")
            if part.keyword is not None:
                reader.at += 1
            assert part.field is not None and part.value is not None
            values[part.field] = reader.value(part.field, part.value, stop=keywords)
        try:
            return self.cls(**values)
        except (TypeError, ValueError) as exc:  # a value the class itself refuses
            raise reader.error(str(exc)) from None


class _Reader:
    """The tokens of one text, read left to right, with errors that quote the text."""

    def __init__(
        self, text: str, tokens: Sequence[str], usage: str, deck: Collection[Card] | None
    ) -> None:
        self.text = text
        self.tokens = tokens
        self.usage = usage
        self.deck = deck
        self.at = 0

    def error(self, problem: str) -> CommandSyntaxError:
        return CommandSyntaxError(self.text[:80], problem, self.usage)

    def word(self, word: str) -> None:
        if self.at >= len(self.tokens) or self.tokens[self.at].lower() != word:
            got = self.tokens[self.at][:20] if self.at < len(self.tokens) else "the end"
            raise self.error(f"{word!r} expected, got {got!r}")
        self.at += 1

    def value(self, field: str, value: _Value, stop: Collection[str]) -> Any:
        if not value.many:
            if self.at >= len(self.tokens):
                raise self.error(f"{field} is missing ({_kind_name(value)})")
            token = self.tokens[self.at]
            self.at += 1
            if value.optional and token == NONE_TEXT:
                return None
            return self.one(field, value, token)
        out = []
        while self.at < len(self.tokens) and self.tokens[self.at].lower() not in stop:
            out.append(self.one(field, value, self.tokens[self.at]))
            self.at += 1
        return tuple(out)

    def one(self, field: str, value: _Value, token: str) -> Any:
        shown = token[:20]
        if value.kind == "card":
            try:
                card = Card.parse(token)
            except ValueError:
                raise self.error(
                    f"{field}: {shown!r} is not a card (e.g. AS, 10H, QC, JK)"
                ) from None
            if self.deck is not None and card not in self.deck:
                raise self.error(f"{field}: {card} is not a card of this game's decks")
            return card
        if value.kind == "int":
            if not _INT.fullmatch(token):
                raise self.error(f"{field}: {shown!r} is not a number")
            return int(token)
        if value.choices and token not in value.choices:
            raise self.error(f"{field}: {shown!r} is not one of {', '.join(value.choices)}")
        if not _WORD.fullmatch(token):
            raise self.error(f"{field}: {shown!r} is not a word")
        return token


def _kind_name(value: _Value) -> str:
    if value.choices:
        return "one of " + ", ".join(value.choices)
    return {"card": "a card, e.g. QS", "int": "a number", "word": "a word"}[value.kind]


# --------------------------------------------------------------------------- a game's commands


def syntax_of(cls: type) -> Syntax | None:
    """The text syntax a command class declares (:func:`cardcore.kit.command`), or None."""
    found = getattr(cls, "syntax", None)
    return found if isinstance(found, Syntax) else None


class CommandTexts:
    """Every command of one game by its verb (built by :meth:`cardcore.engine.Game.parse_command`
    once per game)."""

    def __init__(self, game: str, command_types: Sequence[type]) -> None:
        self.game = game
        self.by_verb: dict[str, Syntax] = {}
        for cls in command_types:
            syntax = syntax_of(cls)
            if syntax is None:
                continue  # a class without a text form (e.g. a test game's): format refuses it
            if syntax.verb in self.by_verb:
                other = self.by_verb[syntax.verb].cls.__name__
                raise TypeError(
                    f"{game}: {cls.__name__} and {other} share the verb {syntax.verb!r}"
                )
            self.by_verb[syntax.verb] = syntax
        self.usage = " | ".join(s.usage for s in self.by_verb.values())

    def parse(self, text: object, deck: Collection[Card] | None = None) -> Any:
        """The command ``text`` describes; cards must be in ``deck`` when one is given. ``text``
        is declared ``object``: what is not a string is a ``CommandSyntaxError`` in both builds
        (the compiled one checks a declared ``str`` on entry with a ``TypeError``)."""
        if not isinstance(text, str):
            raise CommandSyntaxError(repr(text)[:80], "not a string", f"a {self.game} command")
        if len(text) > MAX_COMMAND_TEXT:
            raise CommandSyntaxError(
                text[:80], f"longer than {MAX_COMMAND_TEXT} characters", "a command"
            )
        tokens = text.split()
        if not tokens:
            raise CommandSyntaxError(text, "no command", self.usage)
        syntax = self.by_verb.get(tokens[0].lower())
        if syntax is None:
            raise CommandSyntaxError(
                text[:80], f"{tokens[0][:20]!r} is not a {self.game} command", self.usage
            )
        return syntax.parse(text, tokens, deck)


def format_command(command: object) -> str:
    """The canonical text of a command whose class declares a syntax; raises ``TypeError``
    for any other value."""
    syntax = syntax_of(type(command))
    if syntax is None:
        raise TypeError(f"{type(command).__name__} declares no text syntax (kit.command)")
    return syntax.format(command)
