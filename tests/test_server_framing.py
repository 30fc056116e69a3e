"""A game frame framed by framing.py is byte for byte what websockets makes (issue 39).

`DirectFrames` writes the game's text frames with `TextFrames`, which skips websockets'
`Frame` objects; a client must not be able to tell. For any run of messages — small, of
two-byte and eight-byte lengths, repeating (so that the compressor's kept context matters)
— the bytes equal websockets' own, with the server's deflate settings, uvicorn's, and none.
"""

from __future__ import annotations

import zlib
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from trusis.server.connections.framing import TextFrames
from trusis.server.connections.transport import extensions


def deflater(compression: str) -> PerMessageDeflate | None:
    offers = extensions(compression)  # type: ignore[arg-type]
    if not offers:
        return None
    made = offers[0]
    return PerMessageDeflate(made.client_no_context_takeover,  # type: ignore[attr-defined]
                             made.server_no_context_takeover,  # type: ignore[attr-defined]
                             made.client_max_window_bits,  # type: ignore[attr-defined]
                             made.server_max_window_bits,  # type: ignore[attr-defined]
                             made.compress_settings)  # type: ignore[attr-defined]


def websockets_bytes(messages: list[bytes], compression: str) -> list[bytes]:
    deflate = deflater(compression)
    used = [deflate] if deflate is not None else []
    return [Frame(Opcode.TEXT, m).serialize(mask=False, extensions=used) for m in messages]


def our_bytes(messages: list[bytes], compression: str) -> list[bytes]:
    frames = TextFrames(deflater(compression))
    return [frames.frame(m) for m in messages]


VIEW = (b'{"type":"events","seq":%d,"events":[{"code":"vote_cast","params":{"voter":2,'
        b'"target":5}}],"view":{"players":[%b]}}')


def game_like(count: int, players: int) -> list[bytes]:
    seat = b'{"seat":%d,"name":"Player %d","alive":true,"passed":false}'
    return [VIEW % (n, b",".join(seat % (s, s) for s in range(players))) for n in range(count)]


@pytest.mark.parametrize("compression", ["deflate", "wide", "off"])
def test_game_frames_of_every_length_are_websockets_bytes(compression: str) -> None:
    messages = [*game_like(30, 10), *game_like(5, 600), b"", b"x" * 125, b"y" * 126,
                b"z" * 65535, bytes(range(256)) * 300]
    assert our_bytes(messages, compression) == websockets_bytes(messages, compression)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=3000), max_size=25), st.sampled_from(["deflate", "off"]))
def test_any_run_of_messages_is_websockets_bytes(messages: list[bytes], compression: str) -> None:
    assert our_bytes(messages, compression) == websockets_bytes(messages, compression)


def test_a_deflate_without_kept_context_is_left_to_websockets() -> None:
    """A compressor made again for each message is websockets' to handle (`of`: None)."""

    fresh_each_time = PerMessageDeflate(False, True, 12, 12, {"memLevel": 2})
    kept_none = SimpleNamespace(extensions=[fresh_each_time])
    assert TextFrames.of(kept_none) is None  # type: ignore[arg-type]
    plain = SimpleNamespace(extensions=[])
    assert isinstance(TextFrames.of(plain), TextFrames)  # type: ignore[arg-type]


def test_a_broken_flush_is_an_error_not_a_bad_frame() -> None:
    deflate = deflater("deflate")
    assert deflate is not None

    class Broken:
        def compress(self, data: bytes) -> bytes:
            return b""

        def flush(self, mode: int) -> bytes:
            return b"\x01"

    deflate.encoder = Broken()  # type: ignore[assignment]
    with pytest.raises(zlib.error):
        TextFrames(deflate).frame(b"{}")
