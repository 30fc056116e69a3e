"""A game frame's bytes, framed here rather than by websockets' `Frame` (issue 39).

Every action sends about ten text frames, one per connection. websockets frames each one
through a `Frame` object: its checks, each extension's `encode` (which makes a second
`Frame`), a `BytesIO` for the header and the payload. A server's text frame is simpler than
that: never masked, never fragmented, its first byte fixed by whether per-message deflate
was agreed. `TextFrames` writes the same bytes — the same compressor, kept from frame to
frame, and the same header — with none of the objects (`bench/frame_header.py` measures
both on the frames of real games, side by side, and checks the bytes are equal).

It frames only what it knows: no extension, or websockets' own per-message deflate with
the server's context kept (`transport.extensions`); any other agreement goes through
websockets as before (`TextFrames.of` answers None).
"""

from __future__ import annotations

import struct
import zlib

from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.protocol import Protocol

_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")
_TAIL = b"\x00\x00\xff\xff"
"""What a sync flush ends with, and RFC 7692 leaves out of each message."""
_TEXT = 0x81  # FIN and the text opcode
_TEXT_DEFLATED = 0xC1  # and RSV1: this message is compressed (RFC 7692)


class TextFrames:
    """One connection's text frames, as bytes to write: deflated with its compressor when
    per-message deflate was agreed."""

    __slots__ = ("_deflate",)

    def __init__(self, deflate: PerMessageDeflate | None) -> None:
        self._deflate = deflate

    @classmethod
    def of(cls, conn: Protocol) -> TextFrames | None:
        """The frames of this connection, or None when its extensions are not ones this
        frames (websockets then frames them, as it always did)."""
        agreed = conn.extensions
        if not agreed:
            return cls(None)
        deflate = agreed[0]
        if (len(agreed) == 1 and isinstance(deflate, PerMessageDeflate)
                and not deflate.local_no_context_takeover):
            return cls(deflate)
        return None

    def frame(self, data: bytes) -> bytes:
        """`data` (UTF-8 text) as one whole text frame, header and payload."""
        deflate = self._deflate
        if deflate is None:
            first, payload = _TEXT, data
        else:
            encoder = deflate.encoder
            payload = encoder.compress(data) + encoder.flush(zlib.Z_SYNC_FLUSH)
            if payload[-4:] != _TAIL:  # as websockets checks: zlib broke its promise
                raise zlib.error("a sync flush did not end with an empty stored block")
            payload = payload[:-4]
            first = _TEXT_DEFLATED
        size = len(payload)
        if size < 126:
            return _SHORT.pack(first, size) + payload
        if size < 65536:
            return _MEDIUM.pack(first, 126, size) + payload
        return _LONG.pack(first, 127, size) + payload
