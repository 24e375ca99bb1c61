"""Cable and optic of a link from where its two ends stand, and a sourced reach table.

Where the ends stand
--------------------
Racks are laid out by the facility stage, which runs after this one. The network stage
therefore places its links by the rule the facility stage racks by
(:func:`hubplan.facility.racks.rack_rows`), which is the DGX SuperPOD layout
(RA-11333-001, "DGX SuperPOD architecture": each scalable unit's leaf switches in a
network rack of the unit's row; spines, the storage, in-band and out-of-band switches in
the management racks):

============================ =============== ================================================
link                          placement       why
============================ =============== ================================================
GPU server – compute leaf     ``same_row``    a unit's leaves stand in its row's network rack
storage / in-band / BMC       ``other_row``   plane leaves stand in the shared network racks,
endpoint – plane leaf                         which join the first row or rows of their own
leaf – spine                  ``other_row``   spines stand in the shared network racks
spine – core                  ``other_hall``  pods' spines to the core row, across the hall
============================ =============== ================================================

A placement has a cable length (the network section's ``*_reach_m`` fields) and the
length and the link's speed choose the medium: the first row of ``data/optics.csv``
(cheapest first: DAC, ACC, then optics by reach) of the link's speed class that reaches.
"""

from __future__ import annotations

import pandas as pd

from ..core.errors import HubplanError

#: Where the two ends of a link stand, nearest first.
PLACEMENTS = ("same_rack", "adjacent_rack", "same_row", "other_row", "other_hall")

#: Placement of each link segment: ``(plane kind, segment)`` → placement.
SEGMENT_PLACEMENT = {
    ("compute", "server-leaf"): "same_row",
    ("plane", "node-leaf"): "other_row",
    ("compute", "leaf-spine"): "other_row",
    ("plane", "leaf-spine"): "other_row",
    ("compute", "spine-core"): "other_hall",
    ("plane", "spine-core"): "other_hall",
}


def placement_lengths_m(network) -> dict[str, float]:
    """Cable length of each placement [m], from the network section.

    >>> from hubplan.network import Network
    >>> list(placement_lengths_m(Network()).values())
    [3.0, 5.0, 30.0, 100.0, 500.0]
    """
    return {
        "same_rack": network.rack_reach_m,
        "adjacent_rack": network.adjacent_rack_reach_m,
        "same_row": network.server_leaf_reach_m,
        "other_row": network.leaf_spine_reach_m,
        "other_hall": network.spine_core_reach_m,
    }


def segment_reach_m(plane: str, network) -> tuple[float, float, float]:
    """Cable lengths of a plane's endpoint–leaf, leaf–spine and spine–core links [m].

    >>> from hubplan.network import Network
    >>> segment_reach_m("compute", Network()), segment_reach_m("storage", Network())
    ((30.0, 100.0, 500.0), (100.0, 100.0, 500.0))
    """
    kind = "compute" if plane == "compute" else "plane"
    first = "server-leaf" if kind == "compute" else "node-leaf"
    length = placement_lengths_m(network)
    return tuple(  # type: ignore[return-value]
        length[SEGMENT_PLACEMENT[(kind, seg)]] for seg in (first, "leaf-spine", "spine-core")
    )


def choose_media(optics: pd.DataFrame, speed_gbps: float, length_m: float) -> str:
    """The medium of a link: the first row of the optics table, in its order, of the
    smallest speed class that carries ``speed_gbps`` and reaches ``length_m``.

    Parameters
    ----------
    optics : pandas.DataFrame
        ``data/optics.csv`` (``media``, ``max_gbps``, ``max_reach_m``), cheapest first.
    speed_gbps, length_m : float
        The link's speed [Gb/s] and cable length [m].

    Notes
    -----
    Reaches are the parts' own (NVIDIA LinkX product specifications: passive DAC to 3 m,
    ACC to 5 m, SR4 multimode 50 m, DR4 single mode 100 m and 500 m, FR4 2 km), shorter
    than the IEEE reaches. A 100 or 200 Gb/s link is planned on the 400G parts (their
    200G mode; no 100G part is in the table). 1 GbE runs on RJ45 copper to 100 m.

    Examples
    --------
    >>> from hubplan.core.catalog import load_catalog
    >>> t = load_catalog().optics
    >>> [choose_media(t, 400, m) for m in (2, 5, 30, 100, 300)]
    ['DAC', 'ACC', 'transceiver-SR4', 'transceiver-DR4', 'transceiver-DR4-500m']
    >>> choose_media(t, 1, 100), choose_media(t, 800, 100), choose_media(t, 100, 3)
    ('RJ45', 'transceiver-DR8', 'DAC')
    """
    if speed_gbps != speed_gbps or length_m != length_m:
        return ""
    speeds = optics["max_gbps"].astype(float)
    carry = speeds[speeds >= speed_gbps]
    if carry.empty:
        raise HubplanError(
            f"no cable or optic in data/optics.csv carries {speed_gbps:g} Gb/s "
            f"(fastest: {speeds.max():g} Gb/s); add a part with its source"
        )
    rows = optics[speeds == carry.min()]
    fits = rows[rows["max_reach_m"].astype(float) >= length_m]
    if fits.empty:
        raise HubplanError(
            f"no {carry.min():g} Gb/s cable or optic in data/optics.csv reaches "
            f"{length_m:g} m (longest: {rows['max_reach_m'].max():g} m); shorten the "
            "network section's *_reach_m or add a part with its source"
        )
    return str(fits["media"].iloc[0])
