"""Storage stage: capacity by tier, bandwidth, checkpoint interval and goodput, DR.

Training that runs slowly is, more often than not, GPUs waiting for data; training that
dies at night is checkpoints filling the disk. This stage sizes the hot, warm and cold
tiers from what they hold and how fast they must be, sums each job's interruption rate from
component failure rates (``failure``), sets the checkpoint interval from it (Young/Daly),
projects the hot tier's fill over the run, and plans the
off-site copy. Its ``storage_nodes`` table is what the network and facility stages read.
"""

from .bandwidth import (
    SUPERPOD_NODE_READ_GB_S,
    SUPERPOD_NODE_WRITE_GB_S,
    client_gb_s,
    read_demand_gb_s,
    token_read_gb_s,
)
from .capacity import PROTECTION_USABLE, checkpoint_tb, nodes_for, usable_needed_tb, usable_tb
from .catalog import STORAGE_SCHEMA, storage_catalog, storage_model
from .checkpoint import (
    checkpoint_interval_s,
    checkpoint_time_share,
    goodput,
    write_window_s,
)
from .dr import replication_gb_s, transfer_hours
from .failure import fat_tree_switches, interruption_breakdown, mtbf_hours
from .section import Storage
from .stage import STORAGE_NODE_COLUMNS

__all__ = [
    "PROTECTION_USABLE", "STORAGE_NODE_COLUMNS", "STORAGE_SCHEMA", "SUPERPOD_NODE_READ_GB_S",
    "SUPERPOD_NODE_WRITE_GB_S", "Storage", "checkpoint_interval_s", "checkpoint_tb",
    "checkpoint_time_share", "client_gb_s", "fat_tree_switches", "goodput",
    "interruption_breakdown", "mtbf_hours", "nodes_for",
    "read_demand_gb_s", "replication_gb_s", "storage_catalog", "storage_model",
    "token_read_gb_s", "transfer_hours", "usable_needed_tb", "usable_tb", "write_window_s",
]  # fmt: skip
