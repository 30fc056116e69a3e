"""Which address a request comes from, for the per-address limits.

uvicorn's proxy-header middleware has already replaced the connection's peer
with the client named in `X-Forwarded-For` when — and only when — the peer is a
trusted proxy (`--forwarded-allow-ips`, `FORWARDED_ALLOW_IPS`; docs/deploy.md,
"Behind a proxy"). So the peer here is the real client behind a trusted proxy,
and a forged header from anyone else is ignored.

An IPv6 client usually holds a whole /64 and can pick any address in it: the
limits count the /64, as they count one IPv4 address.
"""

from __future__ import annotations

import ipaddress

from starlette.requests import HTTPConnection

IPV6_PREFIX = 64


def client_address(connection: HTTPConnection) -> str:
    """The key the per-address limits count a request under (`address_key`)."""
    return address_key(connection.client.host if connection.client else "")


def address_key(host: str) -> str:
    """The key the per-address limits count under: an IPv4 address, an IPv6 /64, or
    the peer as given when it is no IP address at all (a Unix socket)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)
