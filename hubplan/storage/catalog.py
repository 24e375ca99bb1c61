"""The storage catalogue, ``data/storage.csv``: building blocks for each tier.

One row per building block (a parallel-file-system server, an appliance, an object or
capacity node): usable read and write bandwidth and raw capacity per node, protection
scheme, storage-network ports, rack units, power, price and provenance. Empty means
unknown, as in every hubplan catalogue. The table lives in the
:class:`~hubplan.core.catalog.Catalog` (``catalog.storage``,
``catalog.storage_block(name)``), so users override rows with
``load_catalog(storage=...)`` and the stage cache sees every change.
"""

from __future__ import annotations

import pandas as pd

from ..core.catalog import (
    STORAGE_ROLES,
    STORAGE_SCHEMA,
    STORAGE_TIERS,
    Catalog,
    load_catalog,
)

ROLES = STORAGE_ROLES
TIERS = STORAGE_TIERS
__all__ = ["ROLES", "STORAGE_SCHEMA", "TIERS", "storage_catalog", "storage_model"]


def storage_catalog(catalog: Catalog | None = None) -> pd.DataFrame:
    """The storage catalogue of ``catalog`` (default: the shipped one), validated.

    >>> cat = storage_catalog()
    >>> float(cat.set_index("name").loc["DDN AI400X2T", "read_gb_s"])
    99.018
    """
    return (catalog if catalog is not None else load_catalog()).storage


def storage_model(name: str, field: str, catalog: Catalog | None = None) -> pd.Series:
    """One storage building block by name or alias (case-insensitive).

    ``field`` names the scenario field that asked for it, for the error message.
    """
    return (catalog if catalog is not None else load_catalog()).storage_block(name, field)
