"""The implementation schedule: four phases, their tasks and dependencies, durations from
lead times with a time buffer, milestones, phased hand-over and the critical path.

Phases (practitioners' planning guide 智算技术与算力规划设计及部署实施方案 v2.0): detailed
design and procurement; facility fit-out (in parallel with procurement); delivery,
unpacking inspection and racking (after the room is ready); commissioning and trial run
(after the network is up).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from ..core.errors import InputError
from .section import Delivery

PHASES = ("design_procurement", "facility_fitout", "delivery_racking", "commissioning")

SCHEDULE_COLUMNS = [
    "task",
    "phase",
    "batch",
    "depends_on",
    "duration_days",
    "buffer_days",
    "start_day",
    "end_day",
    "slack_days",
    "critical",
    "milestone",
    "start_date",
    "end_date",
]

#: Acceptance criteria per phase: (phase, criterion code, target, unit).
PHASE_CRITERIA: tuple[tuple[str, str, float, str], ...] = (
    ("design_procurement", "design_review_clear", 0.0, "count"),
    ("design_procurement", "orders_placed", math.nan, ""),
    ("design_procurement", "lead_times_confirmed", math.nan, ""),
    ("facility_fitout", "rack_power_capability", math.nan, "kW"),
    ("facility_fitout", "cold_aisle_temperature", 27.0, "°C"),
    ("facility_fitout", "cooling_load_test", math.nan, "kW"),
    ("delivery_racking", "unpacking_inspection", 0.0, "count"),
    ("delivery_racking", "power_on_self_test", 0.0, "count"),
    ("delivery_racking", "bmc_reachable", 0.0, "count"),
    ("delivery_racking", "cabling_matches_port_map", 0.0, "count"),
    ("commissioning", "no_missing_gpu", 0.0, "count"),
    ("commissioning", "acceptance_figures_met", math.nan, ""),
    ("commissioning", "stability_run_clean", 0.0, "count"),
)


def buffered_days(days: float, buffer: float) -> float:
    """A task's duration with its time buffer, rounded up to whole days. [days]

    Notes
    -----
    ``ceil(days × (1 + buffer))``: the planning guide's 20 % buffer on every task.

    Examples
    --------
    20 weeks of server lead time with a 20 % buffer: 140 × 1.2 = 168 days.

    >>> buffered_days(140, 0.2)
    168
    """
    if days < 0 or buffer < 0:
        raise InputError("days, buffer", (days, buffer), "durations and buffer must be ≥ 0")
    return math.ceil(round(days * (1 + buffer), 9))


def racking_days(servers: int, per_crew_day: float, crews: int = 1) -> int:
    """Days for ``crews`` crews to unpack, inspect, rack and power-cable ``servers``. [days]

    Notes
    -----
    ``ceil(servers ÷ (crews × servers per crew-day))``: crews work in parallel, each at
    the section's rate (``delivery.racking_servers_per_crew_day``).

    Examples
    --------
    100 servers, 2 crews of 8 a day: 100 / 16 = 6.25 → 7 days.

    >>> racking_days(100, 8, 2)
    7
    """
    return _crew_days(servers, per_crew_day, crews, "racking_servers_per_crew_day", "install_crews")


def _crew_days(
    work: float, per_crew_day: float, crews: int, rate_field: str, crews_field: str
) -> int:
    """Whole days for ``crews`` crews at ``per_crew_day`` each to get through ``work``; a
    rate or crew count out of range is an error naming its ``delivery`` field."""
    if per_crew_day <= 0:
        raise InputError(f"delivery.{rate_field}", per_crew_day, "must be > 0")
    if crews < 1:
        raise InputError(f"delivery.{crews_field}", crews, "must be ≥ 1")
    return math.ceil(round(work / (per_crew_day * crews), 9)) if work > 0 else 0


def cabling_days(links: float, per_crew_day: float, crews: int = 1) -> int:
    """Days for ``crews`` crews to run, label and check ``links`` cables. [days]

    Notes
    -----
    ``ceil(links ÷ (crews × links per crew-day))`` (``delivery.cabling_links_per_crew_day``).

    Examples
    --------
    2 900 links, 2 crews of 96 a day: 2 900 / 192 = 15.1 → 16 days.

    >>> cabling_days(2900, 96, 2)
    16
    """
    return _crew_days(links, per_crew_day, crews, "cabling_links_per_crew_day", "cabling_crews")


def fabric_links(fabric: pd.DataFrame) -> float:
    """Cables of every network plane: endpoint links plus the links between switch tiers.
    [count]

    Notes
    -----
    In a folded-Clos (fat-tree) plane each tier above the leaves carries the endpoints'
    bandwidth divided by the oversubscription, so a plane of E endpoint ports and T tiers
    has E × (1 + (T − 1) ÷ oversubscription) links (Leiserson, "Fat-trees", 1985; at 1:1,
    two tiers double the endpoint links and three tier them). An unknown
    oversubscription counts as 1:1 (the most cables).

    Examples
    --------
    The default plan: compute 144 endpoints over two tiers at 1:1 (288), storage 52, in-band
    50 and BMC 44 on one tier each: 434 links.

    >>> f = pd.DataFrame({"endpoints": [144, 52, 50, 44], "tiers": [2, 1, 1, 1],
    ...                   "oversubscription": [1.0, float("nan"), float("nan"), float("nan")]})
    >>> fabric_links(f)
    434.0
    """
    if fabric.empty:
        return 0.0
    e = fabric["endpoints"].to_numpy(dtype=float)
    tiers = fabric["tiers"].to_numpy(dtype=float)
    over = fabric["oversubscription"].to_numpy(dtype=float)
    over = np.where(np.isfinite(over) & (over > 0), over, 1.0)
    return float(np.sum(e * (1 + (tiers - 1) / over)))


def batch_sizes(servers: int, batches: int) -> list[int]:
    """Servers per hand-over batch, as even as whole servers allow (first batches larger).

    >>> batch_sizes(21, 4)
    [6, 5, 5, 5]
    >>> batch_sizes(1, 3)
    [1]
    """
    batches = max(1, min(batches, servers)) if servers > 0 else 1
    base, extra = divmod(servers, batches)
    return [base + (1 if i < extra else 0) for i in range(batches)]


def schedule_tasks(
    servers: int,
    delivery: Delivery,
    *,
    storage: bool = True,
    network: bool = True,
    links: float = 0.0,
) -> pd.DataFrame:
    """The tasks with their phase, batch, dependencies and base duration [days].

    One procurement, racking, network, commissioning and trial task per hand-over batch;
    milestones have zero duration. ``links`` is the cable count of every plane
    (:func:`fabric_links`), shared among the batches in proportion to their servers.
    """
    return pd.DataFrame(
        _task_rows(servers, delivery, storage=storage, network=network, links=links)
    )


def _task_rows(
    servers: int,
    delivery: Delivery,
    *,
    storage: bool = True,
    network: bool = True,
    links: float = 0.0,
) -> list[dict]:
    """:func:`schedule_tasks` as a list of rows (the stage builds one frame at the end)."""
    d = delivery
    rows: list[dict] = []

    def add(task, phase, days, deps, batch=0, milestone=False):
        rows.append(
            {
                "task": task,
                "phase": phase,
                "batch": batch,
                "depends_on": deps,
                "base_days": float(days),
                "milestone": milestone,
            }
        )

    add("design", "design_procurement", d.design_weeks * 7, ())
    add("orders_placed", "design_procurement", 0, ("design",), milestone=True)
    add("fitout", "facility_fitout", d.fitout_weeks * 7, ("orders_placed",))
    add("room_ready", "facility_fitout", 0, ("fitout",), milestone=True)
    first = ["room_ready"]
    if network:
        add("procure_network", "design_procurement", d.network_lead_weeks * 7, ("orders_placed",))
        first.append("procure_network")
    if storage:
        add("procure_storage", "design_procurement", d.storage_lead_weeks * 7, ("orders_placed",))
        first.append("procure_storage")
    previous = None
    for b, n in enumerate(batch_sizes(servers, d.handover_batches), start=1):
        lead = (d.server_lead_weeks + (b - 1) * d.batch_interval_weeks) * 7
        add(f"procure_servers_{b}", "design_procurement", lead, ("orders_placed",), b)
        deps = [f"procure_servers_{b}", *(first if b == 1 else ["room_ready"])]
        net_deps = [f"rack_{b}"]
        if previous:
            deps.append(f"rack_{previous}")  # the install crews work batch after batch
            net_deps.append(f"network_{previous}")  # and so do the cabling crews
        rack = racking_days(n, d.racking_servers_per_crew_day, d.install_crews)
        add(f"rack_{b}", "delivery_racking", rack, tuple(deps), b)
        batch_links = links * n / servers if servers > 0 else 0.0
        cable = cabling_days(batch_links, d.cabling_links_per_crew_day, d.cabling_crews)
        add(f"network_{b}", "delivery_racking", d.network_days + cable, tuple(net_deps), b)
        add(f"network_up_{b}", "delivery_racking", 0, (f"network_{b}",), b, milestone=True)
        accept = math.ceil(round(n / d.acceptance_servers_per_day, 9))
        add(
            f"commission_{b}",
            "commissioning",
            d.commissioning_days + accept,
            (f"network_up_{b}",),
            b,
        )
        add(
            f"trial_run_{b}",
            "commissioning",
            math.ceil(d.stability_hours / 24) + 1,
            (f"commission_{b}",),
            b,
        )
        add(f"handover_{b}", "commissioning", 0, (f"trial_run_{b}",), b, milestone=True)
        previous = b
    return rows


def critical_path(tasks: pd.DataFrame, buffer: float) -> pd.DataFrame:
    """Earliest start and finish, slack and the critical flag of every task (CPM).

    Notes
    -----
    Critical-path method: forward pass ES = max(EF of predecessors), EF = ES + duration;
    backward pass LF = min(LS of successors) (the project end for the last tasks),
    LS = LF − duration; slack = LS − ES; a task with zero slack is critical (Kelley and
    Walker, "Critical-path planning and scheduling", 1959). Durations include the buffer.
    The loop runs over tasks (tens), not over GPUs.
    """
    t = tasks.copy()
    cpm = _cpm(
        t["task"].tolist(),
        t["base_days"].tolist(),
        t["milestone"].tolist(),
        t["depends_on"].tolist(),
        buffer,
    )
    for column, values in cpm.items():
        t[column] = values
    return t


def _cpm(
    tasks: list[str],
    base_days: list[float],
    milestone: list[bool],
    depends_on: list[tuple[str, ...]],
    buffer: float,
) -> dict[str, list]:
    """The columns :func:`critical_path` adds, from the tasks' columns as lists: buffered
    whole-day durations, so every day figure is a whole number, exact in float."""
    duration = [0 if m else buffered_days(x, 0) for x, m in zip(base_days, milestone, strict=True)]
    buffer_days = [
        0 if m else buffered_days(x, buffer) - buffered_days(x, 0)
        for x, m in zip(base_days, milestone, strict=True)
    ]
    dur = {k: a + b for k, a, b in zip(tasks, duration, buffer_days, strict=True)}
    deps = dict(zip(tasks, depends_on, strict=True))
    unknown = {p for ps in deps.values() for p in ps} - set(dur)
    if unknown:
        raise InputError("depends_on", sorted(unknown), "name tasks of the schedule")
    es: dict[str, float] = {}
    for task in tasks:  # rows are in dependency order
        es[task] = float(max((es[p] + dur[p] for p in deps[task]), default=0.0))
    end = float(max(es[k] + dur[k] for k in es))
    succ: dict[str, list[str]] = {k: [] for k in dur}
    for task, ps in deps.items():
        for p in ps:
            succ[p].append(task)
    lf: dict[str, float] = {}
    for task in reversed(tasks):
        lf[task] = float(min((lf[s] - dur[s] for s in succ[task]), default=end))
    start_day = np.array([es[k] for k in tasks], dtype=float)
    end_day = start_day + np.array([dur[k] for k in tasks], dtype=float)
    slack = np.array([lf[k] for k in tasks], dtype=float) - end_day
    return {
        "duration_days": duration,
        "buffer_days": buffer_days,
        "start_day": start_day,
        "end_day": end_day,
        "slack_days": slack,
        "critical": np.abs(slack) < 1e-9,
        "depends_on": [", ".join(d) for d in depends_on],
    }


def implementation_schedule(
    servers: int,
    delivery: Delivery,
    *,
    storage: bool = True,
    network: bool = True,
    links: float = 0.0,
) -> pd.DataFrame:
    """The dated schedule: tasks, buffered durations, start and end dates, slack and the
    critical path. [days]

    Examples
    --------
    Default lead times, one batch of 16 servers and the default plan's 434 links: design
    42 d × 1.2 = 51 (50.4 rounded up), then servers 140 × 1.2 = 168 d (fit-out 112 × 1.2 =
    135 d runs in parallel); racking 16 ÷ (2 crews × 8) = 1 d → 2 with the buffer; network
    5 + ⌈434 ÷ (2 × 96)⌉ = 8 → 10; commissioning 15 + ⌈16 ÷ 64⌉ = 16 → 20; trial
    ⌈24 h⌉ + 1 = 2 → 3: 51 + 168 + 2 + 10 + 20 + 3 = 254 days to hand-over.

    >>> from hubplan.delivery.section import Delivery
    >>> s = implementation_schedule(16, Delivery(handover_batches=1), links=434)
    >>> int(s.loc[s["task"] == "handover_1", "end_day"].iloc[0])
    254
    """
    rows = _task_rows(servers, delivery, storage=storage, network=network, links=links)
    t = {
        c: [r[c] for r in rows]
        for c in ("task", "phase", "batch", "depends_on", "base_days", "milestone")
    }
    t.update(_cpm(t["task"], t["base_days"], t["milestone"], t["depends_on"], delivery.buffer))
    start = pd.Timestamp(delivery.start_date)
    dates = {
        "start_date": start + pd.to_timedelta(t["start_day"], unit="D"),
        "end_date": start + pd.to_timedelta(t["end_day"], unit="D"),
    }
    return pd.DataFrame({c: dates[c] if c in dates else t[c] for c in SCHEDULE_COLUMNS})


def phase_acceptance() -> pd.DataFrame:
    """The acceptance criteria of each phase (codes; ``target`` in ``unit``; a count of 0
    means "no failures")."""
    return pd.DataFrame(
        list(PHASE_CRITERIA), columns=["phase", "criterion", "target", "figure_unit"]
    )


#: The six deployment steps and how each is verified: (step, verification, tool). A
#: ``{...}`` tool is filled from the accelerator family's row (data/families.csv) by
#: :func:`deployment_steps`.
DEPLOYMENT_STEPS: tuple[tuple[str, str, str], ...] = (
    ("rack_and_post", "verify_post", "BMC event log / ipmitool sel list"),
    ("bmc_and_firmware", "verify_firmware", "Redfish UpdateService inventory"),
    ("os_at_scale", "verify_os", "PXE install log; uname -r on every node"),
    ("driver_and_runtime", "verify_driver", "{device_list_cmd}; {diag_cmd}; container run"),
    ("rdma_validation", "verify_rdma", "{link_check_cmd}; {rdma_test_cmd} per port"),
    ("training_smoke_test", "verify_smoke", "{collective_test}; short training job"),
)


def _family_tool(template: str, family: pd.Series) -> str:
    """``template`` with the family's facts in place; an empty fact reads ``unknown``."""

    def fill(m: re.Match) -> str:
        value = family.get(m.group(1), "")
        value = "" if value is None or (isinstance(value, float) and value != value) else value
        return str(value).strip() or "unknown"

    return re.sub(r"\{(\w+)\}", fill, template)


#: The step a rack-scale NVLink domain (GB200 NVL72) adds after the driver: its NVLink
#: switch trays' fabric up and the IMEX service configured over the domain's trays
#: (NVIDIA MNNVL user guide: NMX-Controller on the switch trays, IMEX service;
#: "nvidia-imex-ctl -N: Gets the full status of the entire IMEX domain", IMEX user's
#: guide; a GPU's fabric registration in ``nvidia-smi -q``, section Fabric).
NVLINK_DOMAIN_STEP = (
    "nvlink_domain",
    "verify_nvlink_domain",
    "nvidia-smi -q (Fabric: State Completed); nvidia-imex-ctl -N",
)


def deployment_steps(
    families: list[pd.Series] | None = None, rack_scale_nvlink: bool = False
) -> pd.DataFrame:
    """The six deployment steps in order, each with its verification action and tool
    (seven with ``rack_scale_nvlink``: :data:`NVLINK_DOMAIN_STEP` after the driver).

    The driver, RDMA and smoke-test tools are the plan's accelerator families' own
    (``families``: rows of ``data/families.csv``, one per family in the plan): NVIDIA
    ``nvidia-smi -L; dcgmi diag -r 3``, Huawei ``npu-smi info -l; ascend-dmi ...``, each
    prefixed with the family's name when the plan has several. A fact a family's row
    leaves empty reads ``unknown``; without families those tools read ``unknown``.

    >>> asc = pd.Series({"name": "Huawei", "collective_test": "all_reduce_test (HCCL Test)"})
    >>> deployment_steps([asc]).set_index("step").loc["training_smoke_test", "tool"]
    'all_reduce_test (HCCL Test); short training job'
    """
    families = list(families or [pd.Series({"name": ""})])
    rows = []
    steps = list(DEPLOYMENT_STEPS)
    if rack_scale_nvlink:
        steps.insert(4, NVLINK_DOMAIN_STEP)
    for i, (step, verification, template) in enumerate(steps, start=1):
        if "{" in template:
            tools = [(str(f.get("name", "")), _family_tool(template, f)) for f in families]
            tool = (
                tools[0][1] if len(tools) == 1 else " | ".join(f"{name}: {t}" for name, t in tools)
            )
        else:
            tool = template
        rows.append({"order": i, "step": step, "verification": verification, "tool": tool})
    return pd.DataFrame(rows)
