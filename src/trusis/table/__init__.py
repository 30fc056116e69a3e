"""The table layer: a game with its record and its per-seat event streams.

Records (`record`), replay (`game`), the `trusis replay` document (`result`) and
the `Table` object that the server, the bot driver and the terminal game share.
"""
