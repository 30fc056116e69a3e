"""The transport's limit: a bare FastAPI WebSocket broadcast server, and nothing else.

Each text message received on /ws/{room} is sent to every client of that room,
the sender included (its copy is its answer), padded to BARE_PAD characters so
that its frames weigh what the game server's weigh. No game, no database, no
per-seat views: what is left is FastAPI, uvicorn's WebSocket protocol and the
loopback. bench/load.py starts it like the game server: uvicorn with the
websockets-sansio protocol and the same per-message deflate setting
(`python bench/bare.py --port P --compression off|deflate|light`, as
`trusis serve --ws-compression`), and drives it with the same clients.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

from trusis.server.connections.transport import COMPRESSIONS, DEFAULT_COMPRESSION, protocol

PAD = int(os.environ.get("BARE_PAD", "0"))
FILLER = Path(os.environ["BARE_FILLER"]).read_text() if os.environ.get("BARE_FILLER") else "x"
"""What the padding repeats: the text of a real game frame, so that permessage-deflate
works on the game server's kind of bytes, not on a run of one letter."""

app = FastAPI()
rooms: defaultdict[str, set[WebSocket]] = defaultdict(set)


@app.get("/health")
async def health() -> dict[str, Any]:
    return {"ok": True, "rooms": len(rooms)}


def padded(text: str) -> str:
    """The message with a `pad` field that brings it to PAD characters (a JSON object)."""
    missing = PAD - len(text) - 10
    if missing <= 0 or not text.endswith("}"):
        return text
    filler = (FILLER * (missing // len(FILLER) + 1))[:missing]
    return f'{text[:-1]}, "pad": {json.dumps(filler)}}}'


@app.websocket("/ws/{room}")
async def broadcast(websocket: WebSocket, room: str) -> None:
    await websocket.accept()
    members = rooms[room]
    members.add(websocket)
    try:
        while True:
            text = padded(await websocket.receive_text())
            for member in list(members):
                try:
                    await member.send_text(text)
                except Exception:  # a client that went away
                    members.discard(member)
    except WebSocketDisconnect:
        pass
    finally:
        members.discard(websocket)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--compression", choices=COMPRESSIONS, default=DEFAULT_COMPRESSION)
    args = parser.parse_args()
    uvicorn.run(app, host="127.0.0.1", port=args.port, ws=protocol(args.compression),
                log_level="warning")


if __name__ == "__main__":
    main()
