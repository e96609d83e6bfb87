"""Large posts made a piece at a time, so that a test never holds the body it sends."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

PIECE = 64 * 1024
CSV_LINE = b"Anu Menon,Anu,M-001,yes\n"  # a real register row: read whole, it would be imported


@dataclass
class Multipart:
    """A form as a browser posts it: its fields, then one file of ``file_size`` bytes."""

    fields: dict[str, str]
    file_size: int
    file_field: str = "file"
    file_name: str = "players.csv"
    boundary: str = "----fiftysix-upload-7d3f"
    _line: bytes = field(default=CSV_LINE * (PIECE // len(CSV_LINE) + 1), repr=False)

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def head(self) -> bytes:
        parts = [
            f'--{self.boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
            for name, value in self.fields.items()
        ]
        parts.append(
            f"--{self.boundary}\r\nContent-Disposition: form-data; "
            f'name="{self.file_field}"; filename="{self.file_name}"\r\n'
            "Content-Type: text/csv\r\n\r\n"
        )
        return "".join(parts).encode()

    def tail(self) -> bytes:
        return f"\r\n--{self.boundary}--\r\n".encode()

    def __len__(self) -> int:
        return len(self.head()) + self.file_size + len(self.tail())

    def pieces(self, endless: bool = False) -> Iterator[bytes]:
        """The body, 64 KB at a time; ``endless``: a file that never ends."""
        yield self.head()
        left = self.file_size
        while left > 0 or endless:
            piece = self._line[: PIECE if endless else min(PIECE, left)]
            left -= len(piece)
            yield piece
        yield self.tail()


class StreamedInput:
    """``wsgi.input`` made from pieces as they are asked for; counts what was read."""

    def __init__(self, pieces: Iterator[bytes]):
        self._pieces = pieces
        self._buffer = b""
        self.given = 0

    def read(self, size: int = -1) -> bytes:
        while size < 0 or len(self._buffer) < size:
            piece = next(self._pieces, None)
            if piece is None:
                break
            self._buffer += piece
        if size < 0:
            size = len(self._buffer)
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        self.given += len(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        while b"\n" not in self._buffer and (size < 0 or len(self._buffer) < size):
            piece = next(self._pieces, None)
            if piece is None:
                break
            self._buffer += piece
        end = self._buffer.find(b"\n") + 1 or len(self._buffer)
        return self.read(end if size < 0 else min(end, size))
