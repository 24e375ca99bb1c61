"""Storage stage: capacity by tier, bandwidth, checkpoint interval and goodput, DR.

Training that runs slowly is, more often than not, GPUs waiting for data; training that
dies at night is checkpoints filling the disk. This stage sizes the hot, warm and cold
tiers from what they hold and how fast they must be, sums each job's interruption rate from
component failure rates (``failure``), sets the checkpoint interval from it (Young/Daly),
projects the hot tier's fill over the run, and plans the
off-site copy. Its ``storage_nodes`` table is what the network and facility stages read.
"""

from .bandwidth import (
    LEVELS,
    SUPERPOD_4SU_READ_GB_S,
    SUPERPOD_4SU_WRITE_GB_S,
    SUPERPOD_NODE_READ_GB_S,
    SUPERPOD_NODE_WRITE_GB_S,
    client_gb_s,
    guideline_gb_s,
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
from .nodes import tier_nodes
from .protection import (
    PROTECTION_WRITE_FACTOR,
    SCHEMES,
    client_write_gb_s,
    job_inflow_gb_s,
    nodes_for_protection,
    offload_gb_s,
    storage_write_gb_s,
    usable_fraction,
    write_factor,
)
from .section import Storage
from .stage import STORAGE_NODE_COLUMNS

__all__ = [
    "LEVELS",
    "PROTECTION_USABLE",
    "PROTECTION_WRITE_FACTOR",
    "SCHEMES",
    "STORAGE_NODE_COLUMNS",
    "STORAGE_SCHEMA",
    "SUPERPOD_4SU_READ_GB_S",
    "SUPERPOD_4SU_WRITE_GB_S",
    "SUPERPOD_NODE_READ_GB_S",
    "SUPERPOD_NODE_WRITE_GB_S",
    "Storage",
    "checkpoint_interval_s",
    "checkpoint_tb",
    "checkpoint_time_share",
    "client_gb_s",
    "client_write_gb_s",
    "fat_tree_switches",
    "goodput",
    "guideline_gb_s",
    "interruption_breakdown",
    "job_inflow_gb_s",
    "mtbf_hours",
    "nodes_for",
    "nodes_for_protection",
    "offload_gb_s",
    "replication_gb_s",
    "storage_catalog",
    "storage_model",
    "storage_write_gb_s",
    "tier_nodes",
    "token_read_gb_s",
    "transfer_hours",
    "usable_fraction",
    "usable_needed_tb",
    "usable_tb",
    "write_factor",
    "write_window_s",
]
