"""Who a request comes from: the key its limits are counted by, and whether it is a class.

Every per-client limit (work units in limits.py, runs in admission.py, connections in
transport.py) counts by the same key: the client's address, or its /64 for IPv6, since one
IPv6 host commonly holds a whole /64. Addresses in CLASS_NETWORKS (a school's NAT, where a
room of students shares one address) get each limit's class-sized allowance instead.
"""

from __future__ import annotations

import ipaddress

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str) -> list[Network]:
    """Parse CLASS_NETWORKS: CIDR networks separated by spaces or commas."""
    out = []
    for item in str(text or "").replace(",", " ").split():
        try:
            out.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(
                f"CLASS_NETWORKS must be CIDR networks separated by spaces or commas, such as "
                f"'10.0.0.0/8 2001:db8::/32'; got {item[:60]!r}"
            ) from None
    return out


class Clients:
    """Map a client address to its key and say whether it lies in a class network."""

    def __init__(self, class_networks: str) -> None:
        self.networks = parse_networks(class_networks)

    def key(self, address: str) -> str:
        """Return whose allowance `address` spends: the address, or its /64 for IPv6."""
        ip = _ip(address)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
        return str(ip) if ip is not None else address

    def is_class(self, address: str) -> bool:
        ip = _ip(address)
        return ip is not None and any(ip in network for network in self.networks)


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(address)
    except ValueError:
        return None
