"""The Catalog: hardware and model reference data from ``data/*.csv``, with provenance.

One loader per table, validated against a schema (column, kind, whether required), in
the manner of pvlib's ``retrieve_sam``: an unknown name fails listing the closest valid
names. Users add or override rows with their own CSV (same columns; a row whose ``name``
matches replaces the shipped row); errors name the file, the CSV line and the column.
"""

from __future__ import annotations

import csv
import datetime as dt
import difflib
import hashlib
import io
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pandas as pd

from .errors import CatalogError, FileReadError
from .files import CATALOG_MAX_BYTES, read_user_file
from .paths import data_dir

_STR, _NUM, _INT = "str", "num", "int"

#: column -> (kind, required). Numeric columns must be plain numbers or empty (unknown).
ACCELERATOR_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "aliases": (_STR, False),
    "vendor": (_STR, True),
    "segment": (_STR, True),
    "generation": (_STR, False),
    "form_factor": (_STR, False),
    "fp64_dense_tflops": (_NUM, False),
    "fp64_tensor_dense_tflops": (_NUM, False),
    "fp32_dense_tflops": (_NUM, False),
    "tf32_dense_tflops": (_NUM, False),
    "tf32_sparse_tflops": (_NUM, False),
    "bf16_dense_tflops": (_NUM, False),
    "bf16_sparse_tflops": (_NUM, False),
    "fp16_dense_tflops": (_NUM, False),
    "fp16_sparse_tflops": (_NUM, False),
    "fp8_dense_tflops": (_NUM, False),
    "fp8_sparse_tflops": (_NUM, False),
    "int8_dense_tops": (_NUM, False),
    "int8_sparse_tops": (_NUM, False),
    "fp4_dense_tflops": (_NUM, False),
    "fp4_sparse_tflops": (_NUM, False),
    "mamf_bf16_tflops": (_NUM, False),
    "vram_gb": (_NUM, True),
    "memory_type": (_STR, False),
    "mem_bw_tb_s": (_NUM, False),
    "scaleup_link": (_STR, False),
    "scaleup_kind": (_STR, False),
    "scaleup_domain_gpus": (_INT, False),
    "scaleup_bw_gb_s": (_NUM, False),
    "pcie_gen": (_INT, False),
    "tdp_w": (_NUM, False),
    "price_usd": (_NUM, False),
    "price_source": (_STR, False),
    "price_as_of": (_STR, False),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

MODEL_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "aliases": (_STR, False),
    "family": (_STR, False),
    "architecture": (_STR, True),
    "total_params": (_NUM, True),
    "active_params": (_NUM, False),
    "layers": (_INT, True),
    "hidden_size": (_INT, True),
    "ffn_hidden_size": (_INT, False),
    "attention_heads": (_INT, True),
    "kv_heads": (_INT, True),
    "head_dim": (_INT, False),
    "vocab_size": (_INT, False),
    "context_tokens": (_INT, False),
    "moe_experts": (_INT, False),
    "moe_active_experts": (_INT, False),
    "kv_lora_rank": (_INT, False),
    "qk_rope_head_dim": (_INT, False),
    "source": (_STR, True),
    "params_source": (_STR, False),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

SERVER_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "aliases": (_STR, False),
    "vendor": (_STR, True),
    "kind": (_STR, True),
    "accelerator": (_STR, True),
    "gpus": (_INT, True),
    "cpu_model": (_STR, False),
    "cpu_sockets": (_INT, False),
    "cpu_cores_total": (_INT, False),
    "cpu_base_ghz": (_NUM, False),
    "ram_gb": (_NUM, False),
    "compute_nics": (_INT, False),
    "compute_nic_gbps": (_NUM, False),
    "storage_nics": (_INT, False),
    "storage_nic_gbps": (_NUM, False),
    "storage_usable_gbps": (_NUM, False),
    "inband_nics": (_INT, False),
    "inband_nic_gbps": (_NUM, False),
    "bmc_nics": (_INT, False),
    "bmc_nic_gbps": (_NUM, False),
    "pcie_gen": (_INT, False),
    "local_nvme_tb": (_NUM, False),
    "max_power_kw": (_NUM, False),
    "rack_units": (_NUM, False),
    "weight_kg": (_NUM, False),
    "price_usd": (_NUM, False),
    "price_source": (_STR, False),
    "price_as_of": (_STR, False),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

#: The switch catalogue (``data/switches.csv``): one row per switch model.
SWITCH_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "aliases": (_STR, False),
    "vendor": (_STR, True),
    "technology": (_STR, True),
    "ports": (_INT, True),
    "port_gbps": (_NUM, True),
    "cages": (_INT, False),
    "max_breakout": (_INT, False),
    "uplink_ports": (_INT, False),
    "uplink_gbps": (_NUM, False),
    "rack_units": (_NUM, False),
    "max_power_kw": (_NUM, False),
    "typical_power_kw": (_NUM, False),
    "price_usd": (_NUM, False),
    "price_source": (_STR, False),
    "price_as_of": (_STR, False),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

#: The storage catalogue (``data/storage.csv``): one row per building block (a parallel
#: file-system server, an appliance, an object or capacity node). ``usable_tb`` is the usable
#: capacity the block's own source reports (an appliance's scheme), at most ``raw_tb``.
STORAGE_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "aliases": (_STR, False),
    "vendor": (_STR, True),
    "form": (_STR, True),
    "role": (_STR, True),
    "tiers": (_STR, True),
    "read_gb_s": (_NUM, False),
    "write_gb_s": (_NUM, False),
    "write_basis": (_STR, False),
    "raw_tb": (_NUM, False),
    "usable_tb": (_NUM, False),
    "protection": (_STR, False),
    "nic_ports": (_INT, False),
    "nic_gbps": (_NUM, False),
    "rack_units": (_NUM, False),
    "max_power_kw": (_NUM, False),
    "typical_power_kw": (_NUM, False),
    "price_usd": (_NUM, False),
    "price_source": (_STR, False),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

#: The cables and optics catalogue (``data/optics.csv``): one row per part or standard,
#: cheapest first within a speed (the media choice takes the first row that reaches).
OPTICS_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "aliases": (_STR, False),
    "media": (_STR, True),
    "fibre": (_STR, True),
    "max_gbps": (_NUM, True),
    "max_reach_m": (_NUM, True),
    "ports": (_INT, True),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

#: Ports per transceiver cage of a server's NICs (``data/server_cages.csv``): a DGX H100
#: serves its eight compute ports from four twin-port OSFP cages. A server and plane not
#: listed has one port per cage (a single-port OSFP or QSFP112 adapter per port).
SERVER_CAGE_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "aliases": (_STR, False),
    "compute_ports_per_cage": (_INT, False),
    "storage_ports_per_cage": (_INT, False),
    "inband_ports_per_cage": (_INT, False),
    "form_factor": (_STR, False),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

#: The cloud offers (``data/cloud.csv``): one row per offer of one accelerator, priced per
#: GPU-hour in its own currency (``price_per_gpu_hour``, ``currency``); a price in another
#: currency than USD carries the rate it is converted at (``usd_per_unit``: USD for one
#: unit of the currency) and that rate's date (``fx_date``). ``usd_per_gpu_hour`` is
#: filled from them (given, it must agree). ``term_months`` is a reservation's or a
#: capacity block's term (empty: compared over the plan's horizon).
CLOUD_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "provider": (_STR, True),
    "accelerator": (_STR, True),
    "pricing": (_STR, True),
    "region": (_STR, False),
    "price_per_gpu_hour": (_NUM, True),
    "currency": (_STR, True),
    "usd_per_unit": (_NUM, False),
    "fx_date": (_STR, False),
    "usd_per_gpu_hour": (_NUM, False),
    "term_months": (_NUM, False),
    "price_date": (_STR, True),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}
#: Kinds of cloud pricing: on demand (paid per hour used), a reservation or a capacity
#: block (paid for every hour of the term, used or not); and the currencies a price may be in.
CLOUD_PRICING = ("on_demand", "reserved", "capacity_block")
CLOUD_CURRENCIES = ("USD", "CNY")
#: How far a given ``usd_per_gpu_hour`` may sit from price × rate: half a cent, the
#: rounding of a USD figure written to two decimals.
_FX_TOLERANCE_USD = 0.005
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")

#: Allowed values of ``fibre`` (optics); the NIC planes of a server's cages.
OPTICS_FIBRES = ("copper", "MMF", "SMF")
CAGE_PLANES = ("compute", "storage", "inband")

#: The accelerator families (``data/families.csv``): one row per accelerator vendor
#: (``name`` = the ``vendor`` of accelerators.csv) with its scale-out fabric, collective
#: library, management and test tools, Slurm device detection and training image. An
#: empty cell is an unknown fact, never another family's.
FAMILY_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "aliases": (_STR, False),
    "scaleout_fabric": (_STR, False),
    "scaleout_nic": (_STR, False),
    "collective_library": (_STR, False),
    "collective_env_prefix": (_STR, False),
    "collective_test": (_STR, False),
    "device_list_cmd": (_STR, False),
    "ecc_check_cmd": (_STR, False),
    "diag_cmd": (_STR, False),
    "rdma_test_cmd": (_STR, False),
    "link_check_cmd": (_STR, False),
    "gres_autodetect": (_STR, False),
    "device_file": (_STR, False),
    "device_file_first": (_INT, False),
    "container_image": (_STR, False),
    # the extended resource the vendor's Kubernetes device plugin advertises
    "k8s_device_resource": (_STR, False),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

#: The failure-rate table (``data/failure_rates.csv``): one row per component, its rate
#: per million hours of the unit it is counted on, and the observation it comes from.
FAILURE_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "per": (_STR, True),
    "per_million_hours": (_NUM, True),
    "events": (_INT, False),
    "units": (_NUM, False),
    "hours": (_NUM, False),
    "includes": (_STR, False),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

GRID_CARBON_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "kg_co2_per_kwh": (_NUM, True),
    "year": (_INT, True),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

#: Acceptance figures measured on real systems (``data/acceptance_measured.csv``): one row
#: per (acceptance test, subject), the subject an accelerator's catalogue name
#: (``nvlink_all_reduce``, GB/s) or a NIC line rate in Gb/s (``rdma_write_bw``, Gb/s);
#: ``figure_source`` keys the ``figure_source.*`` label the acceptance table shows.
ACCEPTANCE_MEASURED_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "test": (_STR, True),
    "subject": (_STR, True),
    "value": (_NUM, True),
    "figure_unit": (_STR, True),
    "figure_source": (_STR, True),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}
ACCEPTANCE_MEASURED_UNITS = {"nvlink_all_reduce": "GB/s", "rdma_write_bw": "Gb/s"}

#: NVIDIA data-center driver branches (``data/driver_branches.csv``): ``name`` the branch
#: number (``580``), its kind and its end of life (an ISO date).
DRIVER_BRANCH_SCHEMA: dict[str, tuple[str, bool]] = {
    "name": (_STR, True),
    "branch_kind": (_STR, True),
    "end_of_life": (_STR, True),
    "source": (_STR, True),
    "as_of": (_STR, True),
    "confidence": (_STR, True),
    "notes": (_STR, False),
}

#: Components of the failure model (``name`` in data/failure_rates.csv) and the units a
#: rate can be counted on (``per``): a GPU, a node (server), a switch, or the job itself.
FAILURE_COMPONENTS = ("gpu", "hbm", "nic", "switch", "host", "software")
FAILURE_UNITS = ("gpu", "node", "switch", "job")
#: How far a row's rate may sit from events / (units x hours) x 10^6: the rounding of a
#: rate written to five significant figures.
_RATE_TOLERANCE = 5e-4

#: Allowed values of ``technology`` (switches), ``role`` and each of ``tiers`` (storage).
SWITCH_TECHNOLOGIES = ("infiniband", "ethernet")
STORAGE_ROLES = ("oss", "mds", "appliance", "capacity", "object")
STORAGE_TIERS = ("hot", "warm", "cold")

_CHOICES = {
    "kind": {"server", "tray", "rack"},
    # high: a vendor document read directly; medium: a faithful transcription or two
    # agreeing secondary sources; low: one secondary source; estimate: no source gives
    # the figure itself, it is derived by a rule the row's notes state.
    "confidence": {"high", "medium", "low", "estimate"},
    "segment": {"datacenter-training", "datacenter-inference", "workstation", "consumer"},
    "scaleup_kind": {"nvswitch", "bridge", "mesh", "ethernet", "none", ""},
    "architecture": {"dense", "moe"},
    "technology": set(SWITCH_TECHNOLOGIES),
    "role": set(STORAGE_ROLES),
    "fibre": set(OPTICS_FIBRES),
    # Slurm gres.conf(5) AutoDetect: nvml (NVIDIA), rsmi (AMD), oneapi (Intel GPUs), nrt
    # (AWS Trainium), off (no plugin: File= lists the devices); empty = unknown.
    "gres_autodetect": {"nvml", "rsmi", "oneapi", "nrt", "off", ""},
    "scaleout_nic": {"host", "integrated", ""},
    # storage write_gb_s counted at the drives (before protection) or at the clients
    "write_basis": {"client", "drives"},
    # cloud offers: the kind of pricing and the currency of the price
    "pricing": set(CLOUD_PRICING),
    "currency": set(CLOUD_CURRENCIES),
    # measured acceptance figures: the test a row measures
    "test": set(ACCEPTANCE_MEASURED_UNITS),
    # NVIDIA driver branches: long-term support, production, new feature (short-lived)
    "branch_kind": {"ltsb", "production", "new_feature"},
}

#: Precision name -> catalogue column stem. FP16 has its own column: some parts (Gaudi 3,
#: Ascend 910B/910C) run FP16 at a different rate than BF16, so one never stands in for the
#: other.
PRECISION_COLUMN = {
    "fp64": "fp64_tensor",
    "fp32": "fp32",
    "tf32": "tf32",
    "bf16": "bf16",
    "fp16": "fp16",
    "fp8": "fp8",
    "int8": "int8",
    "fp4": "fp4",
    "int4": "fp4",
}


def check_one_of(where: str, column: str, value: object, allowed: Sequence[str]) -> None:
    """A catalogue cell must be one of ``allowed``: else a CatalogError naming the file
    and line (``where``), the column, the value and the choices.

    >>> check_one_of("a.csv, line 2", "per", "rack", ["gpu", "node"])
    Traceback (most recent call last):
    ...
    hubplan.core.errors.CatalogError: a.csv, line 2, column per: 'rack' is not one of gpu, node
    """
    if value not in allowed:
        raise CatalogError(
            f"{where}, column {column}: {value!r} is not one of {', '.join(allowed)}"
        )


def read_table(path: str | os.PathLike[str], schema: dict[str, tuple[str, bool]]) -> pd.DataFrame:
    """Read and validate one catalogue CSV; errors name the file, line and column.

    Only a regular file of at most :data:`~hubplan.core.files.CATALOG_MAX_BYTES` (8 MiB)
    is read (a named pipe or a device would hang the reader or fill the memory).
    """
    path = Path(path)
    try:
        text = read_user_file(path, limit_bytes=CATALOG_MAX_BYTES).decode("utf-8-sig")
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = reader.fieldnames or []
        rows = list(reader)
    except FileReadError as exc:
        raise CatalogError(f"{path}: {exc.problem}") from None
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except csv.Error as exc:
        raise CatalogError(f"{path}: not a readable CSV ({exc})") from None
    if not header:
        raise CatalogError(f"{path}: is empty; it needs a header line with the columns")
    unknown = [c for c in header if c not in schema]
    if unknown:
        hints = [
            f"{c!r}"
            + (
                f" (did you mean {m[0]!r}?)"
                if (m := difflib.get_close_matches(c, schema, 1))
                else ""
            )
            for c in unknown
        ]
        raise CatalogError(f"{path}: unknown column(s) {', '.join(hints)}")
    missing = [c for c, (_, req) in schema.items() if req and c not in header]
    if missing:
        raise CatalogError(f"{path}: missing required column(s) {missing}")
    records = []
    for line, row in enumerate(rows, start=2):  # line 1 is the header
        rec: dict[str, object] = {}
        for col, (kind, required) in schema.items():
            raw = (row.get(col) or "").strip()
            if raw == "":
                if required:
                    raise CatalogError(f"{path}, line {line}, column {col}: required, but empty")
                rec[col] = "" if kind == _STR else math.nan
                continue
            if kind == _STR:
                if col in _CHOICES:
                    allowed = sorted(c for c in _CHOICES[col] if c)
                    check_one_of(f"{path}, line {line}", col, raw, allowed)
                rec[col] = raw
                continue
            try:
                num = float(raw)
            except ValueError:
                raise CatalogError(
                    f"{path}, line {line}, column {col}: {raw!r} is not a number "
                    "(write a plain number, or leave it empty when unknown)"
                ) from None
            if not math.isfinite(num) or num < 0:
                raise CatalogError(f"{path}, line {line}, column {col}: {raw!r} must be >= 0")
            if kind == _INT and num != int(num):
                raise CatalogError(f"{path}, line {line}, column {col}: {raw!r} must be whole")
            rec[col] = num
        records.append(rec)
    df = pd.DataFrame.from_records(records, columns=list(schema))
    for col, (kind, _) in schema.items():
        if kind != _STR:
            df[col] = df[col].astype("float64")
    dupes = df["name"][df["name"].str.lower().duplicated()].tolist()
    if dupes:
        raise CatalogError(f"{path}: duplicate name(s) {dupes}")
    return df


def _merge(base: pd.DataFrame, extra: pd.DataFrame) -> pd.DataFrame:
    keep = base[~base["name"].str.lower().isin(extra["name"].str.lower())]
    return pd.concat([keep, extra], ignore_index=True)


def _empty(schema: dict[str, tuple[str, bool]]) -> pd.DataFrame:
    return pd.DataFrame(
        {c: pd.Series(dtype=object if k == _STR else "float64") for c, (k, _) in schema.items()}
    )


@dataclass(frozen=True)
class Catalog:
    """Accelerators, models, servers, switches and storage building blocks, each a
    DataFrame with one row per item.

    Lookups by name or alias are indexed once, when the Catalog is made; treat the
    returned rows as read-only.
    """

    accelerators: pd.DataFrame
    models: pd.DataFrame
    servers: pd.DataFrame
    switches: pd.DataFrame = field(default_factory=lambda: _empty(SWITCH_SCHEMA))
    storage: pd.DataFrame = field(default_factory=lambda: _empty(STORAGE_SCHEMA))
    optics: pd.DataFrame = field(default_factory=lambda: _empty(OPTICS_SCHEMA))
    server_cages: pd.DataFrame = field(default_factory=lambda: _empty(SERVER_CAGE_SCHEMA))
    #: One row per accelerator family (vendor); None = the shipped ``data/families.csv``.
    families: pd.DataFrame | None = None
    failure_rates: pd.DataFrame = field(default_factory=lambda: _empty(FAILURE_SCHEMA))
    #: One row per cloud offer; None = the shipped ``data/cloud.csv``.
    cloud_offers: pd.DataFrame | None = None
    #: Grid emission factor per region; None = the shipped ``data/grid_carbon.csv``.
    grid_carbon: pd.DataFrame | None = None
    #: Measured acceptance figures; None = the shipped ``data/acceptance_measured.csv``.
    acceptance_measured: pd.DataFrame | None = None
    #: GPU driver branches; None = the shipped ``data/driver_branches.csv``.
    driver_branches: pd.DataFrame | None = None
    _index: dict = field(init=False, repr=False, compare=False)
    #: A content hash of every table: the stage cache keys on it.
    fingerprint: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.families is None:
            object.__setattr__(self, "families", _shipped_families())
        if self.cloud_offers is None:
            object.__setattr__(self, "cloud_offers", _shipped_cloud())
        if self.grid_carbon is None:
            object.__setattr__(self, "grid_carbon", _shipped_grid_carbon())
        if self.acceptance_measured is None:
            object.__setattr__(self, "acceptance_measured", _shipped_acceptance_measured())
        if self.driver_branches is None:
            object.__setattr__(self, "driver_branches", _shipped_driver_branches())
        h = hashlib.blake2b(digest_size=16)
        for df in (
            self.accelerators,
            self.models,
            self.servers,
            self.switches,
            self.storage,
            self.optics,
            self.server_cages,
            self.families,
            self.failure_rates,
            self.cloud_offers,
            self.grid_carbon,
            self.acceptance_measured,
            self.driver_branches,
        ):
            h.update(repr(list(df.columns)).encode())
            h.update(pd.util.hash_pandas_object(df.astype(str), index=False).to_numpy().tobytes())
        object.__setattr__(self, "fingerprint", h.hexdigest())
        index = {
            name: (_keys(df), [row for _, row in df.iterrows()])
            for name, df in (
                ("accelerator", self.accelerators),
                ("model", self.models),
                ("server", self.servers),
                ("switch", self.switches),
                ("storage", self.storage),
                ("family", self.families),
            )
        }
        object.__setattr__(self, "_index", index)

    def grid_factor(self, region: str) -> float:
        """A region's grid emission factor [kg CO2 per kWh] (``data/grid_carbon.csv``).

        >>> load_catalog().grid_factor("china_2022")
        0.5366
        """
        rows = self.grid_carbon[self.grid_carbon["name"] == region]
        if rows.empty:
            known = ", ".join(self.grid_carbon["name"])
            raise CatalogError(
                f"grid region {region!r} is not in data/grid_carbon.csv (known: {known})"
            )
        return float(rows["kg_co2_per_kwh"].iloc[0])

    def measured(self, test: str, subject: str) -> tuple[float, str] | None:
        """A figure measured on a real system for an acceptance ``test`` and its
        ``subject`` (an accelerator's name, or a NIC line rate in Gb/s), with its source
        code; None where none is published (``data/acceptance_measured.csv``).

        >>> load_catalog().measured("nvlink_all_reduce", "H100 SXM5 80GB")
        (480.0, 'nccl_tests_212')
        >>> cat = load_catalog()
        >>> cat.measured("rdma_write_bw", "400"), cat.measured("rdma_write_bw", "800")
        ((392.0, 'nvidia_dgx_h100_gdr'), None)
        """
        rows = self.acceptance_measured
        hit = rows[(rows["test"] == test) & (rows["subject"] == str(subject))]
        if hit.empty:
            return None
        return float(hit["value"].iloc[0]), str(hit["figure_source"].iloc[0])

    def driver_branch(self, branch: str) -> tuple[str, dt.date] | None:
        """An NVIDIA driver branch's kind (``ltsb``, ``production``, ``new_feature``) and
        end of life; None for a branch not in ``data/driver_branches.csv``.

        >>> load_catalog().driver_branch("580")
        ('ltsb', datetime.date(2028, 6, 30))
        """
        rows = self.driver_branches
        hit = rows[rows["name"] == str(branch)]
        if hit.empty:
            return None
        eol = dt.date.fromisoformat(str(hit["end_of_life"].iloc[0]))
        return str(hit["branch_kind"].iloc[0]), eol

    def accelerator(self, name: str) -> pd.Series:
        """One accelerator row by name or alias (case-insensitive)."""
        return self._lookup("accelerator", name, "data/accelerators.csv")

    def model(self, name: str) -> pd.Series:
        """One model row by name or alias (case-insensitive)."""
        return self._lookup("model", name, "data/models.csv")

    def server(self, name: str) -> pd.Series:
        """One server row by name or alias (case-insensitive)."""
        return self._lookup("server", name, "data/servers.csv")

    def switch(self, name: str, field: str = "switch") -> pd.Series:
        """One switch row by name or alias (case-insensitive).

        ``field`` names the scenario field that asked for it, for the error message.

        >>> int(load_catalog().switch("MQM9700")["ports"])
        64
        """
        return self._lookup("switch", name, "data/switches.csv", field)

    def storage_block(self, name: str, field: str = "storage") -> pd.Series:
        """One storage building block by name or alias (case-insensitive).

        ``field`` names the scenario field that asked for it, for the error message.

        >>> float(load_catalog().storage_block("ddn ai400x2t")["read_gb_s"])
        99.018
        """
        return self._lookup("storage", name, "data/storage.csv", field)

    def ports_per_cage(self, server: str | None, plane: str) -> int:
        """Ports that share one transceiver cage on a catalogue server's ``plane`` NICs.

        1 for a server or plane that ``data/server_cages.csv`` does not list (one
        single-port OSFP or QSFP112 adapter per port) and for a custom server (None).

        >>> cat = load_catalog()
        >>> cat.ports_per_cage("DGX H100", "compute"), cat.ports_per_cage("DGX H100", "storage")
        (2, 1)
        """
        if server is None:
            return 1
        if plane not in CAGE_PLANES:
            raise CatalogError(f"plane = {plane!r}: use one of {', '.join(CAGE_PLANES)}")
        name = str(self.server(server)["name"])
        rows = self.server_cages
        hit = rows.loc[rows["name"] == name, f"{plane}_ports_per_cage"]
        return int(hit.iloc[0]) if len(hit) and hit.iloc[0] == hit.iloc[0] else 1

    def family(self, vendor: str) -> pd.Series:
        """The accelerator family row of ``vendor`` (an accelerator's ``vendor``).

        A vendor without a row gets a row of unknowns (every fact empty): hubplan then
        reports each missing fact rather than using another family's.

        >>> load_catalog().family("Huawei")["collective_library"]
        'HCCL (Huawei CANN)'
        >>> load_catalog().family("Acme")["collective_library"]
        ''
        """
        keys, rows = self._index["family"]
        idx = keys.get(str(vendor).strip().lower())
        if idx is not None:
            return rows[idx]
        unknown = {c: ("" if k == _STR else math.nan) for c, (k, _) in FAMILY_SCHEMA.items()}
        unknown.update(
            name=str(vendor),
            confidence="low",
            notes="no row in data/families.csv: every fact unknown",
        )
        return pd.Series(unknown, dtype=object)

    def accelerator_family(self, accelerator: str) -> pd.Series:
        """The family row of an accelerator (by name or alias), from its ``vendor``.

        >>> load_catalog().accelerator_family("910B")["name"]
        'Huawei'
        """
        return self.family(str(self.accelerator(accelerator)["vendor"]))

    def _lookup(self, what: str, name: str, where: str, field: str | None = None) -> pd.Series:
        keys, rows = self._index[what]
        idx = keys.get(str(name).strip().lower())
        if idx is None:
            close = difflib.get_close_matches(str(name).lower(), keys, n=4, cutoff=0.3)
            names = list(dict.fromkeys(str(rows[keys[c]]["name"]) for c in close))
            hint = f"; closest: {', '.join(names)}" if names else ""
            raise CatalogError(f"{field or what} = {name!r}: not in {where}{hint}")
        return rows[idx]


def _keys(df: pd.DataFrame) -> dict[str, int]:
    keys: dict[str, int] = {}
    for i, (name, aliases) in enumerate(zip(df["name"], df["aliases"], strict=True)):
        for key in [name, *str(aliases).split(";")]:
            if key.strip():
                keys.setdefault(key.strip().lower(), i)
    return keys


def _check_families(families: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Every family's ``scaleout_fabric`` is a ``;``-separated subset of the switch
    technologies, its ``device_file`` holds ``{i}`` (the device number) and its
    ``collective_env_prefix`` ends in ``_``."""
    for line, r in enumerate(families.to_dict("records"), start=2):
        where = f"{path}, line {line}, column"
        fabrics = str(r["scaleout_fabric"]).split(";")
        bad = [t for t in fabrics if t and t not in SWITCH_TECHNOLOGIES]
        if bad:
            allowed = ", ".join(SWITCH_TECHNOLOGIES)
            raise CatalogError(
                f"{where} scaleout_fabric: {bad} not in {allowed} (separate several with ';')"
            )
        if r["device_file"] and "{i}" not in r["device_file"]:
            raise CatalogError(
                f"{where} device_file: {r['device_file']!r} needs {{i}} "
                "where the device number goes"
            )
        prefix = str(r["collective_env_prefix"])
        if prefix and not prefix.endswith("_"):
            raise CatalogError(
                f"{where} collective_env_prefix: {prefix!r} must end in '_' (NCCL_, HCCL_)"
            )
    return families


@cache
def _shipped_families() -> pd.DataFrame:
    path = data_dir() / "families.csv"
    return _check_families(read_table(path, FAMILY_SCHEMA), path)


def _check_family_coverage(accelerators: pd.DataFrame, families: pd.DataFrame, where: str) -> None:
    """Every vendor of the accelerator catalogue has a family row (its facts may be
    unknown, but the row says so)."""
    known = _keys(families)
    missing = sorted({v for v in accelerators["vendor"] if v.strip().lower() not in known})
    if missing:
        raise CatalogError(
            f"{where}: accelerator vendor(s) {missing} have no row in "
            "data/families.csv; add one (empty cells = unknown facts)"
        )


@cache
def _shipped() -> Catalog:
    d = data_dir()
    _check_family_coverage(
        read_table(d / "accelerators.csv", ACCELERATOR_SCHEMA),
        _shipped_families(),
        str(d / "accelerators.csv"),
    )
    return Catalog(
        accelerators=read_table(d / "accelerators.csv", ACCELERATOR_SCHEMA),
        models=read_table(d / "models.csv", MODEL_SCHEMA),
        servers=_check_servers(
            read_table(d / "servers.csv", SERVER_SCHEMA),
            d / "servers.csv",
            read_table(d / "accelerators.csv", ACCELERATOR_SCHEMA),
        ),
        switches=read_table(d / "switches.csv", SWITCH_SCHEMA),
        storage=_check_storage(read_table(d / "storage.csv", STORAGE_SCHEMA), d / "storage.csv"),
        optics=_check_optics(read_table(d / "optics.csv", OPTICS_SCHEMA), d / "optics.csv"),
        server_cages=read_table(d / "server_cages.csv", SERVER_CAGE_SCHEMA),
        failure_rates=_check_failure_rates(
            read_table(d / "failure_rates.csv", FAILURE_SCHEMA),
            d / "failure_rates.csv",
            complete=True,
        ),
    )


def _check_cloud(offers: pd.DataFrame, path: Path, accelerators: pd.DataFrame) -> pd.DataFrame:
    """Every cloud offer names a catalogue accelerator (stored under its catalogue name),
    carries a positive price, dates written YYYY, YYYY-MM or YYYY-MM-DD, and, in a
    currency other than USD, the rate it is converted at and that rate's date;
    ``usd_per_gpu_hour`` is filled as price × rate (a given one must agree within half a
    cent). A term is whole months above 0, and an on-demand offer has none.
    """
    keys = _keys(accelerators)
    names = accelerators["name"].tolist()
    offers = offers.copy()
    usd, accs = [], []
    for line, r in enumerate(offers.to_dict("records"), start=2):
        where = f"{path}, line {line}, column"
        idx = keys.get(str(r["accelerator"]).strip().lower())
        if idx is None:
            close = difflib.get_close_matches(str(r["accelerator"]).lower(), keys, n=3, cutoff=0.4)
            hint = f"; closest: {', '.join(close)}" if close else ""
            raise CatalogError(
                f"{where} accelerator: {r['accelerator']!r} is not in the "
                f"accelerator catalogue{hint}"
            )
        accs.append(names[idx])
        if not r["price_per_gpu_hour"] > 0:
            raise CatalogError(
                f"{where} price_per_gpu_hour: {r['price_per_gpu_hour']:g} must be above 0"
            )
        for col in ("price_date", "as_of", "fx_date"):
            if r[col] and not _DATE.match(str(r[col])):
                raise CatalogError(
                    f"{where} {col}: {r[col]!r} is not a date; write YYYY, YYYY-MM or YYYY-MM-DD"
                )
        if r["currency"] == "USD":
            rate = 1.0
            if not math.isnan(r["usd_per_unit"]) and r["usd_per_unit"] != 1.0:
                raise CatalogError(
                    f"{where} usd_per_unit: {r['usd_per_unit']:g} for a USD "
                    "price; leave it empty (or 1)"
                )
        else:
            rate = r["usd_per_unit"]
            if math.isnan(rate) or not rate > 0 or not r["fx_date"]:
                cur = r["currency"]
                raise CatalogError(
                    f"{where} usd_per_unit: a {cur} price needs the exchange "
                    f"rate it is converted at (USD for one {cur}, above 0) "
                    "and its date in fx_date"
                )
        derived = r["price_per_gpu_hour"] * rate
        given = r["usd_per_gpu_hour"]
        if not math.isnan(given) and abs(given - derived) > _FX_TOLERANCE_USD:
            raise CatalogError(
                f"{where} usd_per_gpu_hour: {given:g} but price_per_gpu_hour x usd_per_unit "
                f"= {r['price_per_gpu_hour']:g} x {rate:g} = {derived:.4f}; correct one or "
                "leave usd_per_gpu_hour empty"
            )
        usd.append(derived)
        term = r["term_months"]
        if not math.isnan(term):
            if r["pricing"] == "on_demand":
                raise CatalogError(
                    f"{where} term_months: an on_demand offer has no term (leave it empty)"
                )
            if not term >= 1 or term != int(term):
                raise CatalogError(f"{where} term_months: {term:g} must be whole months, 1 or more")
    offers["accelerator"] = pd.Series(accs, index=offers.index, dtype=object)
    offers["usd_per_gpu_hour"] = pd.Series(usd, index=offers.index, dtype="float64")
    return offers


@cache
def _shipped_cloud() -> pd.DataFrame:
    d = data_dir()
    return _check_cloud(
        read_table(d / "cloud.csv", CLOUD_SCHEMA),
        d / "cloud.csv",
        read_table(d / "accelerators.csv", ACCELERATOR_SCHEMA),
    )


def _check_grid_carbon(grid: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Every factor above 0 and below 2 kg CO2/kWh (the most coal-heavy grids emit about
    1.0-1.1); each region (``name``) once, as :func:`read_table` checks for every table."""
    for line, factor in enumerate(grid["kg_co2_per_kwh"], start=2):
        if not 0 < float(factor) < 2:
            raise CatalogError(
                f"{path}, line {line}, column kg_co2_per_kwh: {factor!r} must "
                "be above 0 and below 2"
            )
    return grid


def _check_acceptance_measured(rows: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Every figure above 0, in its test's unit."""
    for line, r in enumerate(rows.to_dict("records"), start=2):
        if not float(r["value"]) > 0:
            raise CatalogError(f"{path}, line {line}, column value: {r['value']!r} must be above 0")
        unit = ACCEPTANCE_MEASURED_UNITS[str(r["test"])]
        if r["figure_unit"] != unit:
            raise CatalogError(
                f"{path}, line {line}, column figure_unit: {r['figure_unit']!r}; "
                f"a {r['test']} figure is in {unit}"
            )
    return rows


def _shipped_acceptance_measured() -> pd.DataFrame:
    path = data_dir() / "acceptance_measured.csv"
    return _check_acceptance_measured(read_table(path, ACCEPTANCE_MEASURED_SCHEMA), path)


def _check_driver_branches(rows: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Every branch a number and every end of life an ISO date (YYYY-MM-DD)."""
    for line, r in enumerate(rows.to_dict("records"), start=2):
        if not str(r["name"]).isdigit():
            raise CatalogError(
                f"{path}, line {line}, column name: {r['name']!r} must be a branch number (580)"
            )
        try:
            dt.date.fromisoformat(str(r["end_of_life"]))
        except ValueError:
            raise CatalogError(
                f"{path}, line {line}, column end_of_life: {r['end_of_life']!r} must be a "
                "date, YYYY-MM-DD"
            ) from None
    return rows


def _shipped_driver_branches() -> pd.DataFrame:
    path = data_dir() / "driver_branches.csv"
    return _check_driver_branches(read_table(path, DRIVER_BRANCH_SCHEMA), path)


def _shipped_grid_carbon() -> pd.DataFrame:
    path = data_dir() / "grid_carbon.csv"
    return _check_grid_carbon(read_table(path, GRID_CARBON_SCHEMA), path)


def _check_optics(optics: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Every optics row has a positive speed, reach and port count."""
    for col in ("max_gbps", "max_reach_m", "ports"):
        for line, v in enumerate(optics[col], start=2):
            if not float(v) > 0:
                raise CatalogError(f"{path}, line {line}, column {col}: {v!r} must be above 0")
    return optics


def _check_cages(cages: pd.DataFrame, path: Path, servers: pd.DataFrame) -> pd.DataFrame:
    """Every cage row names a catalogue server (its exact name) and 1 or more ports."""
    known = {str(n) for n in servers["name"]}
    for line, server in enumerate(cages["name"], start=2):
        if server not in known:
            raise CatalogError(
                f"{path}, line {line}, column name: {server!r} is not in "
                "the server catalogue (its exact name)"
            )
        for plane in CAGE_PLANES:
            ppc = cages[f"{plane}_ports_per_cage"].iloc[line - 2]
            if ppc == ppc and not ppc >= 1:
                raise CatalogError(
                    f"{path}, line {line}, column {plane}_ports_per_cage: "
                    f"{ppc:g} must be 1 or more (or empty)"
                )
    return cages


def _check_failure_rates(rates: pd.DataFrame, path: Path, complete: bool = False) -> pd.DataFrame:
    """Every row names a known component and unit, and its rate agrees with its
    observation (events / (units x hours) x 10^6) when the observation is given.

    ``complete``: every component has a row (the shipped table; a user's file may
    override some).
    """
    for line, row in enumerate(rates.to_dict("records"), start=2):
        where = f"{path}, line {line}"
        check_one_of(where, "name", row["name"], FAILURE_COMPONENTS)
        check_one_of(where, "per", row["per"], FAILURE_UNITS)
        observed = [row[c] for c in ("events", "units", "hours")]
        if any(math.isnan(v) for v in observed):
            if not all(math.isnan(v) for v in observed):
                raise CatalogError(
                    f"{where}: give all of events, units and hours (the "
                    "observation the rate comes from) or none"
                )
            continue
        events, units, hours = observed
        if units <= 0 or hours <= 0:
            raise CatalogError(f"{where}: units and hours must be > 0 (got {units:g}, {hours:g})")
        derived = events / (units * hours) * 1e6
        if abs(row["per_million_hours"] - derived) > _RATE_TOLERANCE * max(derived, 1e-12):
            raise CatalogError(
                f"{where}, column per_million_hours: {row['per_million_hours']:g} but "
                f"events / (units x hours) x 10^6 = {events:g} / ({units:g} x {hours:g}) "
                f"x 10^6 = {derived:.5g}; correct one or the other"
            )
    if complete:
        missing = [c for c in FAILURE_COMPONENTS if c not in set(rates["name"])]
        if missing:
            names = ", ".join(FAILURE_COMPONENTS)
            raise CatalogError(
                f"{path}: no row for component(s) {missing}; the failure model "
                f"needs one per component: {names}"
            )
    return rates


def _check_storage(storage: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Every storage row's ``tiers`` is a ``;``-separated subset of hot, warm, cold, and its
    ``usable_tb``, when given, is at most its ``raw_tb`` (protection never adds capacity)."""
    for line, tiers in enumerate(storage["tiers"], start=2):
        bad = [t for t in tiers.split(";") if t not in STORAGE_TIERS]
        if bad:
            raise CatalogError(
                f"{path}, line {line}, column tiers: {bad} not in {', '.join(STORAGE_TIERS)} "
                "(separate several with ';')"
            )
    for line, (usable, raw) in enumerate(
        zip(storage["usable_tb"], storage["raw_tb"], strict=True), start=2
    ):
        if usable > raw:  # False when either is empty (NaN)
            raise CatalogError(
                f"{path}, line {line}, column usable_tb: {usable:g} is more than raw_tb "
                f"{raw:g}; usable capacity is at most the raw capacity"
            )
    return storage


def _check_servers(servers: pd.DataFrame, path: Path, accelerators: pd.DataFrame) -> pd.DataFrame:
    """Every server must name an accelerator that the catalogue has."""
    known = _keys(accelerators)
    for line, acc in enumerate(servers["accelerator"], start=2):
        if acc.strip().lower() not in known:
            close = difflib.get_close_matches(acc.lower(), known, n=3, cutoff=0.4)
            hint = f"; closest: {', '.join(close)}" if close else ""
            raise CatalogError(
                f"{path}, line {line}, column accelerator: {acc!r} is not in the accelerator "
                f"catalogue{hint}"
            )
    return servers


def load_catalog(
    accelerators: str | os.PathLike[str] | None = None,
    models: str | os.PathLike[str] | None = None,
    servers: str | os.PathLike[str] | None = None,
    switches: str | os.PathLike[str] | None = None,
    storage: str | os.PathLike[str] | None = None,
    families: str | os.PathLike[str] | None = None,
    failure_rates: str | os.PathLike[str] | None = None,
    cloud: str | os.PathLike[str] | None = None,
) -> Catalog:
    """The shipped catalogue, with rows from the user's own CSVs added or overriding.

    ``cloud`` is a CSV of cloud offers (the columns of ``data/cloud.csv``).

    >>> cat = load_catalog()
    >>> cat.accelerator("h100")["name"]
    'H100 SXM5 80GB'
    """
    base = _shipped()
    acc, mod, srv = base.accelerators, base.models, base.servers
    swi, sto, fam, fail = base.switches, base.storage, base.families, base.failure_rates
    if families is not None:
        fam = _merge(fam, _check_families(read_table(families, FAMILY_SCHEMA), Path(families)))
    if failure_rates is not None:
        fail = _merge(
            fail,
            _check_failure_rates(read_table(failure_rates, FAILURE_SCHEMA), Path(failure_rates)),
        )
    if switches is not None:
        swi = _merge(swi, read_table(switches, SWITCH_SCHEMA))
    if storage is not None:
        sto = _merge(sto, _check_storage(read_table(storage, STORAGE_SCHEMA), Path(storage)))
    if accelerators is not None:
        acc = _merge(acc, read_table(accelerators, ACCELERATOR_SCHEMA))
    if models is not None:
        mod = _merge(mod, read_table(models, MODEL_SCHEMA))
    if servers is not None:
        srv = _merge(srv, _check_servers(read_table(servers, SERVER_SCHEMA), Path(servers), acc))
    clo = base.cloud_offers
    if cloud is not None:
        clo = _merge(clo, _check_cloud(read_table(cloud, CLOUD_SCHEMA), Path(cloud), acc))
    return Catalog(
        accelerators=acc.copy(),
        models=mod.copy(),
        servers=srv.copy(),
        switches=swi.copy(),
        storage=sto.copy(),
        optics=base.optics.copy(),
        server_cages=_check_cages(base.server_cages, data_dir() / "server_cages.csv", srv),
        families=fam.copy(),
        failure_rates=fail.copy(),
        cloud_offers=clo.copy(),
        grid_carbon=base.grid_carbon.copy(),
        acceptance_measured=base.acceptance_measured.copy(),
        driver_branches=base.driver_branches.copy(),
    )


def peak_tflops(acc: pd.Series, precision: str, sparse: bool = False) -> float:
    """Tensor peak of an accelerator at a precision, dense unless ``sparse``. [TFLOPS]

    INT8 figures are TOPS. A missing figure raises, never a guess.
    """
    if precision not in PRECISION_COLUMN:
        raise CatalogError(f"precision = {precision!r}: use one of {', '.join(PRECISION_COLUMN)}")
    stem = PRECISION_COLUMN[precision]
    if stem in ("fp32", "fp64_tensor"):
        col = f"{stem}_dense_tflops"
    else:
        unit_ = "tops" if stem == "int8" else "tflops"
        col = f"{stem}_{'sparse' if sparse else 'dense'}_{unit_}"
    value = float(acc[col])
    if math.isnan(value):
        not_bf16 = " (the BF16 figure is not used in its place)" if precision == "fp16" else ""
        raise CatalogError(
            f"accelerator {acc['name']!r} has no sourced {'sparse' if sparse else 'dense'} "
            f"{precision} figure{not_bf16} (column {col} is empty in data/accelerators.csv); "
            "choose another precision or accelerator, or add the figure with its source in "
            "your own catalogue CSV"
        )
    return value
