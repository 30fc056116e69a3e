"""What one visitor may use: the limits' settings, token buckets, and the middleware and
counters that hold requests, logins, bodies and connections to them (docs/deploy.md)."""
