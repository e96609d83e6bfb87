"""Reading a file in pieces, so that an import holds one game at a time, not the file.

A file's text comes a piece at a time (:class:`TextFile` decodes a binary file's
UTF-8 as it reads it; :class:`TextInMemory` slices a text already read). Its JSON
is split by hand only where a results file has its many parts: the document (or
the list of documents), the document's keys, and the items of its "games" list.
Every value found there (a game, the tournament, the format) is decoded whole by
the json module, at its place in the piece read, exactly as ``json.loads`` decodes
it inside the whole file: the same numbers of any length, strings, duplicate keys
(``object_pairs_hook``) and refusals. A refusal, of a value or of the split
itself, is worded as ``json.loads`` words it for the whole file, its line, column
and character counted from the file's start (tests/archive/test_streaming.py
compares the two on damaged files).

:func:`document_events` reads the file once, from its start, as a stream of
events; ``documents`` checks the file with them and ``load`` writes it.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, Protocol, cast

from django.utils.translation import gettext as _

from club.archive.format import ArchiveError, _object_pairs

PIECE = 1024 * 1024  # characters (of text) or bytes (of a file) read at a time
# How far past the character it refuses json reads (at most "-Infinity", or an escaped
# surrogate pair): a refusal further than this from the end of what was read stands.
LOOKAHEAD = 64
_SPACE = re.compile(r"[ \t\n\r]*")  # the json module's whitespace


class Text(Protocol):
    """A file's text, which can be read from its start as often as needed."""

    def pieces(self) -> Iterator[str]: ...


class TextInMemory:
    """A text already read, in slices."""

    def __init__(self, text: str):
        self._text = text

    def pieces(self) -> Iterator[str]:
        for start in range(0, len(self._text), PIECE):
            yield self._text[start : start + PIECE]


class TextFile:
    """A binary file's UTF-8 text (a byte-order mark first is skipped), decoded a piece at a
    time. The file must be seekable: every reading starts again from its first byte."""

    def __init__(self, handle: BinaryIO):
        self._handle = handle

    def check(self) -> None:
        """Refuse a file that is not UTF-8 text, wherever its first faulty byte is."""
        for _piece in self.pieces():
            pass

    def pieces(self) -> Iterator[str]:
        # Positions in a refusal count from after the mark, as bytes.decode("utf-8-sig") does.
        self._handle.seek(0)
        mark = self._handle.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8
        self._handle.seek(len(codecs.BOM_UTF8) if mark else 0)
        decoder = codecs.getincrementaldecoder("utf-8")()
        before = 0  # bytes of the file (after the mark) before this piece
        while True:
            data = self._handle.read(PIECE)
            pending = len(decoder.getstate()[0])
            try:
                text = decoder.decode(data, final=not data)
            except UnicodeDecodeError as error:
                raise ArchiveError(
                    _("The file is not UTF-8 text (%(reason)s).")
                    % {"reason": _decode_reason(error, before - pending)}
                ) from None
            if text:
                yield text
            if not data:
                return
            before += len(data)


def _decode_reason(error: UnicodeDecodeError, skipped: int) -> str:
    """The error as Python words it for the whole file: its position counted from the start."""
    start, end = skipped + error.start, skipped + error.end
    if end == start + 1:
        return (
            f"'{error.encoding}' codec can't decode byte 0x{error.object[error.start]:02x} "
            f"in position {start}: {error.reason}"
        )
    return (
        f"'{error.encoding}' codec can't decode bytes in position {start}-{end - 1}: {error.reason}"
    )


def _not_json(reason: str) -> ArchiveError:
    return ArchiveError(_("The file is not valid JSON: %(reason)s.") % {"reason": reason})


def _too_deep() -> ArchiveError:
    return ArchiveError(_("The file is not valid JSON: it is nested too deeply."))


class _Cursor:
    """A place in the text, and the part of the text around it that is held.

    What lies before the value being read is let go as more is read; the lines
    and characters let go are counted, for a refusal's position.
    """

    def __init__(self, pieces: Iterator[str]):
        self._pieces = pieces
        self._decoder = json.JSONDecoder(object_pairs_hook=_object_pairs)
        self._text = ""
        self._at = 0
        self._ended = False
        self._gone = 0  # characters of the file let go before self._text
        self._gone_lines = 0  # newlines among them
        self._last_newline = -1  # where the last of them was in the file

    def _read(self, wanted: int) -> bool:
        """Let go of the text before the cursor and read at least ``wanted`` more
        characters; False at the end of the file."""
        text, at = self._text, self._at
        self._gone_lines += text.count("\n", 0, at)
        last = text.rfind("\n", 0, at)
        if last >= 0:
            self._last_newline = self._gone + last
        self._gone += at
        parts, added = [text[at:]], 0
        while added < wanted:
            piece = next(self._pieces, None)
            if piece is None:
                self._ended = True
                break
            parts.append(piece)
            added += len(piece)
        self._text, self._at = "".join(parts), 0
        return added > 0

    def position(self) -> int:
        return self._gone + self._at

    def refuse(self, problem: str, position: int | None = None) -> ArchiveError:
        """``problem`` at ``position`` of the file, worded as json.JSONDecodeError words it."""
        if position is None:
            position = self.position()
        here = position - self._gone
        line = self._gone_lines + self._text.count("\n", 0, here) + 1
        last = self._text.rfind("\n", 0, here)
        column = position - (self._gone + last if last >= 0 else self._last_newline)
        return _not_json(f"{problem}: line {line} column {column} (char {position})")

    def skip_space(self) -> None:
        while True:
            self._at = _SPACE.match(self._text, self._at).end()  # type: ignore[union-attr]  # "*" always matches
            if self._at < len(self._text) or not self._read(PIECE):
                return

    def peek(self) -> str:
        """The character at the cursor, or "" at the end of the file."""
        while self._at >= len(self._text):
            if not self._read(PIECE):
                return ""
        return self._text[self._at]

    def take(self) -> None:
        """Step over the character peeked."""
        self._at += 1

    def value(self) -> object:
        """Decode the JSON value at the cursor, reading on until it is whole."""
        wanted = PIECE
        while True:
            try:
                value, end = self._decoder.raw_decode(self._text, self._at)
            except json.JSONDecodeError as error:
                if self._ended or self._refused_whatever_follows(error):
                    raise self.refuse(error.msg, self._gone + error.pos) from None
            except RecursionError:
                raise _too_deep() from None
            except ValueError as error:  # a number too long to convert (int_max_str_digits)
                if self._ended or self._refused_without_the_end(error):
                    raise _not_json(str(error)) from None
            else:
                # A value that ends where the text read ends may go on (a number's digits).
                if end < len(self._text) or self._ended:
                    self._at = end
                    return value
            self._read(wanted)
            wanted *= 2  # a long value is decoded again only a few times

    def _refused_whatever_follows(self, error: json.JSONDecodeError) -> bool:
        # json reports an unclosed string where it opens, having looked to the end.
        return error.pos + LOOKAHEAD < len(self._text) and not error.msg.startswith(
            "Unterminated string"
        )

    def _refused_without_the_end(self, error: ValueError) -> bool:
        """Whether the value is refused the same way with the last characters read left out:
        then the refusal is not about where the reading stopped."""
        try:
            self._decoder.raw_decode(self._text[: len(self._text) - LOOKAHEAD], self._at)
        except RecursionError:
            return False
        except ValueError as again:
            return type(again) is type(error) and str(again) == str(error)
        return False


# --- The events of a file ---------------------------------------------------------------
#
# DocumentOpens and DocumentCloses go around a document object; between them a Pair for
# each key but a "games" list, whose items come as GameRead between GamesOpen and
# GamesClose. A file that is a list has ListOpens ... ListCloses around its items; a value
# that is no document object (in the list, or the whole file) comes as a Value.


@dataclass(frozen=True)
class DocumentOpens:
    """A document object opens."""


@dataclass(frozen=True)
class DocumentCloses:
    """The document object open closes."""


@dataclass(frozen=True)
class Pair:
    """A key of the document and its value, decoded whole (not a "games" list)."""

    key: str
    value: object


@dataclass(frozen=True)
class GamesOpen:
    """The document's "games" list opens."""


@dataclass(frozen=True)
class GameRead:
    """An item of the "games" list, decoded whole: a game as the file gives it."""

    raw: object


@dataclass(frozen=True)
class GamesClose:
    """The "games" list closes."""


@dataclass(frozen=True)
class ListOpens:
    """The file is a list of documents: it opens."""


@dataclass(frozen=True)
class ListCloses:
    """The list of documents closes."""


@dataclass(frozen=True)
class Value:
    """A value where a document object should be (in the list, or the whole file)."""

    value: object


Event = (
    DocumentOpens
    | DocumentCloses
    | Pair
    | GamesOpen
    | GameRead
    | GamesClose
    | ListOpens
    | ListCloses
    | Value
)


def document_events(text: Text) -> Iterator[Event]:
    """Read the file from its start; refuse it, as ``json.loads`` would, where it is not JSON."""
    cursor = _Cursor(text.pieces())
    if cursor.peek() == "\ufeff":
        raise cursor.refuse("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
    cursor.skip_space()
    first = cursor.peek()
    if first == "{":
        yield from _document(cursor)
    elif first == "[":
        yield from _list(cursor)
    else:
        yield Value(cursor.value())
    cursor.skip_space()
    if cursor.peek():
        raise cursor.refuse("Extra data")


def _items(cursor: _Cursor, item: Callable[[_Cursor], Iterator[Event]]) -> Iterator[Event]:
    """The items of the list opening at the cursor, each read by ``item``."""
    cursor.take()
    cursor.skip_space()
    if cursor.peek() == "]":
        cursor.take()
        return
    while True:
        yield from item(cursor)
        cursor.skip_space()
        after = cursor.peek()
        if after == "]":
            cursor.take()
            return
        if after != ",":
            raise cursor.refuse("Expecting ',' delimiter")
        cursor.take()
        cursor.skip_space()


def _list(cursor: _Cursor) -> Iterator[Event]:
    yield ListOpens()
    yield from _items(cursor, _document_or_value)
    yield ListCloses()


def _document_or_value(cursor: _Cursor) -> Iterator[Event]:
    if cursor.peek() == "{":
        yield from _document(cursor)
    else:
        yield Value(cursor.value())


def _game(cursor: _Cursor) -> Iterator[Event]:
    yield GameRead(cursor.value())


def _document(cursor: _Cursor) -> Iterator[Event]:
    yield DocumentOpens()
    cursor.take()
    cursor.skip_space()
    if cursor.peek() == "}":
        cursor.take()
        yield DocumentCloses()
        return
    while True:
        if cursor.peek() != '"':
            raise cursor.refuse("Expecting property name enclosed in double quotes")
        key = cast(str, cursor.value())  # a value that opens with a quote is a string
        cursor.skip_space()
        if cursor.peek() != ":":
            raise cursor.refuse("Expecting ':' delimiter")
        cursor.take()
        cursor.skip_space()
        if key == "games" and cursor.peek() == "[":
            yield GamesOpen()
            yield from _items(cursor, _game)
            yield GamesClose()
        else:
            yield Pair(key, cursor.value())
        cursor.skip_space()
        after = cursor.peek()
        if after == "}":
            cursor.take()
            yield DocumentCloses()
            return
        if after != ",":
            raise cursor.refuse("Expecting ',' delimiter")
        cursor.take()
        cursor.skip_space()
