"""Tiers: the building block of each tier and what one of its nodes delivers once its
protection is paid (the second step of the storage stage)."""

from __future__ import annotations

import math
from typing import NamedTuple

import pandas as pd

from ..core.catalog import Catalog
from ..core.errors import HubplanError
from .protection import usable_fraction, write_factor
from .section import Storage

TIERS = ("hot", "warm", "cold")


class NodeFigures(NamedTuple):
    """What one node of a tier delivers, client side. [GB/s, TB]"""

    read_gb_s: float
    write_gb_s: float  # what clients see: the catalogue figure ÷ write_factor
    write_factor: float  # the protection's write amplification applied (1: at clients)
    raw_tb: float
    usable_tb: float


def _num(v: float | str | None) -> float:
    return math.nan if v is None or v == "" else float(v)


def tier_block(tier: str, catalog: Catalog, storage: Storage) -> tuple[pd.Series, str, str]:
    """(catalogue row, scenario field, protection) of a tier; an error names the field when
    the block is not listed for the tier."""
    field = f"storage.{tier}_model"
    name = getattr(storage, f"{tier}_model")
    row = catalog.storage_block(name, field)
    if tier not in str(row["tiers"]).split(";"):
        raise HubplanError(
            f"{field} = {name!r}: data/storage.csv lists it for {row['tiers']}, not the {tier} tier"
        )
    return row, field, getattr(storage, f"{tier}_protection")


def node_figures(row: pd.Series, field: str, protection: str, storage: Storage) -> NodeFigures:
    """Read, client-side write and capacity of one node of a building block.

    Notes
    -----
    write = catalogue write ÷ the protection's write amplification when the catalogue
    figure is counted at the drives (``write_basis = drives``: (k + m)/k,
    :func:`~hubplan.storage.protection.write_factor`), as is when it was measured at the
    clients (``client``: MLPerf Storage, a MinIO benchmark). A block with no write figure
    takes ``storage.write_to_read_when_unknown`` × read, the ratio of the DGX SuperPOD
    guideline, which is a client-side figure. usable = raw × k/(k + m); on ``appliance``
    protection (the vendor's own scheme, not given as k + m) the block's ``usable_tb`` when
    its source reports one (MLPerf Storage v1.0 submissions: IEI AS13000 172,032 GiB usable
    of 344,064 GiB raw, two copies), else raw × 79.2 %
    (:func:`~hubplan.storage.protection.usable_fraction`).

    Examples
    --------
    The Lustre OSS, 24 × 3.2 GB/s = 76.8 GB/s of drive writes on RAID 6 8+2: clients see
    61.44 GB/s. MinIO's 5.54 GB/s is measured at its clients: it stays 5.54.

    >>> from hubplan.core.catalog import load_catalog
    >>> cat, st = load_catalog(), Storage()
    >>> oss = node_figures(cat.storage_block(st.hot_model), "f", "raid6_8+2", st)
    >>> oss.write_gb_s, oss.write_factor, oss.usable_tb
    (61.44, 1.25, 589.824)
    >>> node_figures(cat.storage_block("minio-nvme"), "f", "ec_4+2", st).write_gb_s
    5.54

    An appliance with a reported usable capacity keeps it; one without takes 79.2 % of raw:

    >>> node_figures(cat.storage_block("AS13000"), "f", "appliance", st).usable_tb
    61.573
    >>> round(node_figures(cat.storage_block("ai400x2t"), "f", "appliance", st).usable_tb, 1)
    292.7
    """
    read, write, raw = _num(row["read_gb_s"]), _num(row["write_gb_s"]), _num(row["raw_tb"])
    for col, v in (("read_gb_s", read), ("raw_tb", raw)):
        if math.isnan(v) or v <= 0:
            raise HubplanError(
                f"{field} = {row['name']!r}: column {col} is empty in data/storage.csv, so "
                "the tier cannot be sized; choose another building block or add the "
                "figure with its source"
            )
    if math.isnan(write):
        write, basis = read * storage.write_to_read_when_unknown, "client"
    else:
        basis = str(row["write_basis"])
        if basis not in ("client", "drives"):
            raise HubplanError(
                f"{field} = {row['name']!r}: column write_basis is {basis!r} in "
                "data/storage.csv; say where its write_gb_s is counted: 'drives' (from "
                "drive sheets, before protection) or 'client' (measured at the clients)"
            )
    factor = write_factor(protection, basis)
    usable = raw * usable_fraction(protection)
    own = _num(row.get("usable_tb"))
    if protection == "appliance" and not math.isnan(own):
        usable = own
    return NodeFigures(read, write / factor, factor, raw, usable)
