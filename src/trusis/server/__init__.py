"""The game server: `trusis serve`, FastAPI over the table layer.

Layers, top to bottom: `app` (the ASGI app and its start-up), `lobby` and `ws`
(HTTP routes and the WebSocket endpoint), `rooms` (one live game per room:
its table, connections, timers and bots), `store` (SQLAlchemy; the game is its
record in the database), `identity` (guests and tokens). Only `rooms` turns a
game into bytes for a client, and only through the table's views and streams.
"""
