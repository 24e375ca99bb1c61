"""The IP plan: supernets per plane, subnets per leaf (rail, rack), addresses per interface.

Supernets come from the scenario and are validated with :mod:`ipaddress`; per-interface
addresses are integer arithmetic on numpy arrays, turned into dotted strings in one
vectorised step, so a 131 072-GPU plan addresses every interface in seconds.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import HubplanError

#: ``vlan``: an Ethernet plane's VLAN (0 on InfiniBand); ``pkey``: an InfiniBand
#: plane's partition key (0 on Ethernet). Kept last: the stage adds ``pkey`` per plane.
IP_COLUMNS = [
    "device",
    "device_role",
    "interface",
    "plane",
    "address",
    "prefix",
    "gateway",
    "vlan",
    "pkey",
]


#: The 256 octet values as strings, looked up by value when writing addresses.
_OCTETS = np.array([str(i) for i in range(256)])


def dotted_array(addresses: np.ndarray) -> np.ndarray:
    """IPv4 integers as dotted strings in a numpy unicode array, vectorised.

    Each octet is looked up in a table of the 256 octet strings and the four are joined
    with numpy's string addition, so no Python code runs per address.

    >>> dotted_array(np.array([167772161, 3232235777])).tolist()
    ['10.0.0.1', '192.168.1.1']
    """
    a = np.asarray(addresses, dtype=np.int64)
    out = _OCTETS[(a >> 24) & 255]
    for shift in (16, 8, 0):
        out = np.strings.add(np.strings.add(out, "."), _OCTETS[(a >> shift) & 255])
    return out


def dotted(addresses: np.ndarray) -> pd.Series:
    """IPv4 integers as dotted strings, vectorised.

    >>> dotted(np.array([167772161, 3232235777])).tolist()
    ['10.0.0.1', '192.168.1.1']
    """
    return pd.Series(dotted_array(addresses).astype(object), dtype="str")


def subnet_prefix(hosts: int) -> int:
    """The longest prefix whose subnet holds ``hosts`` plus network, broadcast and gateway.

    Notes
    -----
    prefix = 32 − ⌈log2(hosts + 3)⌉.

    Examples
    --------
    A SuperPOD rail subnet of 32 servers needs 35 addresses: a /26 (64); 61 hosts fit a
    /26 exactly, 62 need a /25:

    >>> subnet_prefix(32), subnet_prefix(61), subnet_prefix(62), subnet_prefix(1)
    (26, 26, 25, 30)
    """
    return 32 - max(2, math.ceil(math.log2(hosts + 3)))


@dataclass(frozen=True)
class SupernetFit:
    """How a plane's subnets fit its supernet."""

    field: str
    cidr: str
    subnets: int
    prefix: int
    needed: int
    needed_with_growth: int

    @property
    def size(self) -> int:
        return ipaddress.ip_network(self.cidr).num_addresses

    @property
    def growth_ok(self) -> bool:
        return self.size >= self.needed_with_growth


def fit_supernet(field: str, cidr: str, subnets: int, prefix: int, growth: float) -> SupernetFit:
    """Check that ``subnets`` subnets of ``/prefix`` fit ``cidr`` with ``growth`` to spare.

    Raises a :class:`HubplanError` naming the field and the smallest supernet that holds
    the plan with its growth when the plan itself does not fit.

    Notes
    -----
    needed = subnets × 2^(32 − prefix); with growth: ⌈subnets × (1 + growth)⌉ × 2^(32 − prefix).

    Examples
    --------
    512 rail subnets of /26 (16 384 GPUs) need 32 768 addresses, 42 624 with 30 % growth:
    a /16 holds them with room; a /17 holds the plan but not the growth:

    >>> fit_supernet("network.compute_cidr", "10.0.0.0/16", 512, 26, 0.3).growth_ok
    True
    >>> fit_supernet("network.compute_cidr", "10.0.0.0/17", 512, 26, 0.3).growth_ok
    False
    """
    block = 2 ** (32 - prefix)
    needed = subnets * block
    grown = math.ceil(round(subnets * (1 + growth), 9)) * block
    net = ipaddress.ip_network(cidr)
    if prefix < net.prefixlen or net.num_addresses < needed:
        want = 32 - math.ceil(math.log2(max(grown, block)))
        raise HubplanError(
            f"{field} = {cidr!r} holds {net.num_addresses:,} addresses; the plan needs "
            f"{subnets:,} subnets of /{prefix} = {needed:,} addresses, {grown:,} with "
            f"{growth:.0%} growth: use a /{want} or larger"
        )
    return SupernetFit(field, cidr, subnets, prefix, needed, grown)


def check_no_overlap(cidrs: dict[str, str]) -> None:
    """Raise when two planes' supernets overlap.

    >>> check_no_overlap({"a": "10.0.0.0/16", "b": "10.1.0.0/16"})
    >>> check_no_overlap({"a": "10.0.0.0/8", "b": "10.1.0.0/16"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hubplan.core.errors.HubplanError: a = '10.0.0.0/8' overlaps b = '10.1.0.0/16': ...
    """
    items = [(k, ipaddress.ip_network(v)) for k, v in cidrs.items()]
    for i, (ka, a) in enumerate(items):
        for kb, b in items[i + 1 :]:
            if a.overlaps(b):
                raise HubplanError(
                    f"{ka} = {str(a)!r} overlaps {kb} = {str(b)!r}: give each plane its own range"
                )


def interface_addresses(
    fit: SupernetFit,
    subnet: np.ndarray,
    slot: np.ndarray,
    *,
    offset: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Address and gateway integers for interfaces at (subnet index, slot).

    Subnet i starts at supernet + (offset + i) × block; .1 is the gateway and hosts start
    at .2.

    >>> fit = fit_supernet("x", "10.0.0.0/16", 4, 26, 0)
    >>> a, g = interface_addresses(fit, np.array([0, 1]), np.array([0, 31]))
    >>> dotted(a).tolist(), dotted(g).tolist()
    (['10.0.0.2', '10.0.0.97'], ['10.0.0.1', '10.0.0.65'])
    """
    base = int(ipaddress.ip_network(fit.cidr).network_address)
    block = 2 ** (32 - fit.prefix)
    starts = base + (offset + np.asarray(subnet, dtype=np.int64)) * block
    return starts + 2 + np.asarray(slot, dtype=np.int64), starts + 1
