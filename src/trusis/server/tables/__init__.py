"""One table's life, from its waiting room to its end: the hub that holds this process's tables,
the room (one table), the game host (its single writer), seats, rematches, timers and bots."""
