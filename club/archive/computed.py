"""A file's computed fields (tables, places, the deals' numbers ...) compared with what the
rules give for its deals: the same value however the file spells a name, never a
``true`` for a ``1``."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _

from club.archive.format import _Place, _quoted
from club.games.whos_who import name_key


def _comparable(value: object) -> object:
    """A value reduced so that spelling of names does not matter but types do."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, str):
        return ("str", name_key(value))
    if isinstance(value, list):
        return ("list", [_comparable(item) for item in value])
    if isinstance(value, dict):
        items = {name_key(key): _comparable(item) for key, item in value.items()}
        if len(items) != len(value) or getattr(value, "duplicate", None) is not None:
            return ("dict", "ambiguous", id(value))
        return ("dict", items)
    return (type(value).__name__, value)


def _plain(value: object) -> bool:
    """A whole number, a text, or a list or an object of them (no key given twice): its
    ``repr`` says all that counts."""
    if type(value) is int or type(value) is str:
        return True
    if type(value) is list:
        return all(type(item) is int or type(item) is str for item in value)
    if isinstance(value, dict) and getattr(value, "duplicate", None) is None:
        return all(type(item) is int or type(item) is str for item in value.values())
    return False


def _agrees(given: object, expected: object, *, unordered: bool = False) -> bool:
    try:
        return _agrees_exactly(given, expected, unordered=unordered)
    except RecursionError:  # a value nested deeper than any the rules give
        return False


def _agrees_exactly(given: object, expected: object, *, unordered: bool) -> bool:
    if _plain(given) and repr(given) == repr(expected):  # as a file writes it: the same
        return True
    if unordered and isinstance(given, list) and isinstance(expected, list):
        return sorted(map(repr, map(_comparable, given))) == sorted(
            map(repr, map(_comparable, expected))
        )
    return _comparable(given) == _comparable(expected)


def _check_computed(
    place: _Place, raw: dict, expected: dict, keys: Sequence[str], number: int | None = None
) -> None:
    for key in keys:
        if key not in raw or (key == "made" and "thani" in raw):  # a thani's made is given
            continue
        if key not in expected:
            raise place.error(
                _("a game of these settings has no “%(key)s”.") % {"key": key},
                number=number,
                field=key,
            )
        if not _agrees(raw[key], expected[key], unordered=key in ("eliminated", "kodi")):
            raise place.error(
                _(
                    "the file says %(given)s but the deals, settled by the rules, give "
                    "%(expected)s; the file has been changed or is damaged."
                )
                % {"given": _quoted(raw[key]), "expected": _quoted(expected[key])},
                number=number,
                field=key,
            )
