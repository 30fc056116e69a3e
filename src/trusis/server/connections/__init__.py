"""One connected client and the wire it speaks: the WebSocket transport and its compression,
what a connection may send per turn of the loop (inflow), its send queue, and the protocol's
message types (docs/protocol.md)."""
