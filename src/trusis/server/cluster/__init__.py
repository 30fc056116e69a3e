"""Several `trusis serve` processes sharing PostgreSQL and Redis (docs/deploy.md).

- `lease`: which process owns each game, under which fencing number (PostgreSQL);
- `bus`: the Redis channels between processes (events out, commands in);
- `node`: one process's part — owning, following, forwarding, taking over.
"""
