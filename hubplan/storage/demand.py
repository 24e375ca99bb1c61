"""Demand: what each job stores and writes, what each tier holds, and the read and write
bandwidth the storage must deliver to each pool (the first step of the storage stage)."""

from __future__ import annotations

import math

from ..core.findings import Finding
from ..core.units import SECONDS_PER_HOUR
from .bandwidth import guideline_gb_s, token_read_gb_s
from .capacity import checkpoint_tb
from .checkpoint import checkpoint_time_share, write_window_s
from .failure import mtbf_hours
from .section import Storage


def checkpoint_bytes(method: str, storage: Storage) -> tuple[float, float, float]:
    """(weights, master, optimizer) bytes per parameter a job's checkpoint saves.

    A full fine-tune or pre-training saves all three (2 + 4 + 8 = 14 B/param by default,
    ZeRO arXiv 1910.02054 §3.1 less the gradients); LoRA / QLoRA freeze the base, so the
    merged model is saved as weights only.

    >>> checkpoint_bytes("full", Storage()), checkpoint_bytes("lora", Storage())
    ((2.0, 4.0, 8.0), (2.0, 0.0, 0.0))
    """
    if method == "full":
        return (
            storage.checkpoint_weights_bytes,
            storage.checkpoint_master_bytes,
            storage.checkpoint_optimizer_bytes,
        )
    return storage.checkpoint_weights_bytes, 0.0, 0.0


def job_storage(
    row: dict, data_bytes: float | None, bytes_per_token: float, storage: Storage
) -> dict:
    """What one training job stores: checkpoint, final weights, datasets. [TB]

    ``row`` is the job's row of the workload stage's ``training`` table; ``data_bytes``
    the job's own dataset size when the scenario gives one, else tokens × bytes per token.

    Examples
    --------
    The default 70 B fine-tune on 125 G tokens: a 70e9 × 14 B = 0.98 TB checkpoint,
    0.14 TB of final weights, 125e9 × 4 B = 0.5 TB tokenised.

    >>> row = {"job": "ft", "method": "full", "params": 70e9, "tokens": 125e9, "gpus": 144,
    ...        "servers": 18, "goodput": 0.9, "tokens_per_s": 1e5, "days_to_finish": 10}
    >>> j = job_storage(row, None, 4.0, Storage())
    >>> j["checkpoint_tb"], j["final_weights_tb"], j["processed_tb"]
    (0.98, 0.14, 0.5)
    """
    w, m, o = checkpoint_bytes(str(row["method"]), storage)
    params, tokens = float(row["params"]), float(row["tokens"])
    text_tb = (float(data_bytes) if data_bytes is not None else tokens * bytes_per_token) / 1e12
    return {
        "job": row["job"],
        "params": params,
        "weights_bytes": w,
        "master_bytes": m,
        "optimizer_bytes": o,
        "bytes_per_param": w + m + o,
        "checkpoint_tb": checkpoint_tb(params, w + m + o),
        "final_weights_tb": checkpoint_tb(params, w),
        "processed_tb": tokens * storage.processed_bytes_per_token / 1e12,
        "raw_tb": text_tb * storage.raw_to_text,
        "gpus": int(row["gpus"]),
        "servers": int(row["servers"]),
        "goodput": float(row["goodput"]),
        "tokens_per_s": float(row["tokens_per_s"]),
        "job_days": float(row["days_to_finish"]),
    }


def tier_content(
    jobs: list[dict], repo_tb: float, developers: int, storage: Storage
) -> dict[str, dict[str, float]]:
    """What each tier holds, by content, before growth. [TB]

    Notes
    -----
    hot: tokenised datasets, the last N checkpoints per job, the model repository (served
    models and final weights), home space per developer; warm: raw datasets, older
    checkpoints for roll-back, logs; cold: raw datasets, milestone checkpoints and the
    model repository (the planning guide's hot / warm / cold split).

    Examples
    --------
    One 0.98 TB checkpoint, 3 kept hot, 10 warm, 5 cold:

    >>> j = {"checkpoint_tb": 0.98, "processed_tb": 0.5, "raw_tb": 0.5,
    ...      "final_weights_tb": 0.14}
    >>> c = tier_content([j], 0.14, 16, Storage())
    >>> round(c["hot"]["checkpoints"], 2), round(c["warm"]["checkpoints"], 2)
    (2.94, 9.8)
    """
    ck = sum(j["checkpoint_tb"] for j in jobs)
    repo = repo_tb + sum(j["final_weights_tb"] for j in jobs)
    raw = sum(j["raw_tb"] for j in jobs)
    return {
        "hot": {
            "datasets_processed": sum(j["processed_tb"] for j in jobs),
            "checkpoints": storage.checkpoint_keep_last * ck,
            "model_repository": repo,
            "home": developers * storage.home_tb_per_developer,
        },
        "warm": {
            "datasets_raw": raw,
            "checkpoints": storage.warm_checkpoints * ck,
            "logs": storage.logs_tb,
        },
        "cold": {
            "datasets_raw": raw,
            "checkpoints": storage.cold_checkpoints * ck,
            "model_repository": repo,
        },
    }


def content_rows(content: dict[str, dict[str, float]], growth_margin: float) -> list[dict]:
    """The ``storage_content`` rows: each tier's contents and its growth allowance.

    >>> content_rows({"hot": {"a": 10.0}}, 0.3)
    [{'tier': 'hot', 'content': 'a', 'tb': 10.0}, {'tier': 'hot', 'content': 'growth', 'tb': 3.0}]
    """
    rows = []
    for tier, parts in content.items():
        rows += [{"tier": tier, "content": name, "tb": tb} for name, tb in parts.items()]
        rows.append({"tier": tier, "content": "growth", "tb": sum(parts.values()) * growth_margin})
    return rows


def checkpoint_write_demand(
    jobs: list[dict], per_days: list[float], storage: Storage
) -> list[Finding]:
    """Each job's checkpoint write demand, before the hot tier is sized: adds
    ``interruptions_per_day``, ``mtbf_hours``, ``write_share``, ``write_window_s`` and
    ``write_demand_gb_s`` to each job; an error finding for a job whose restarts alone
    exceed its goodput budget.

    Notes
    -----
    ``per_days``: each job's interruptions per day, from the failure model
    (:func:`~hubplan.storage.failure.job_interruptions`, in the order of ``jobs``). M = 24 h
    ÷ that (:func:`~hubplan.storage.failure.mtbf_hours`), the
    write share from the goodput target (:func:`~hubplan.storage.checkpoint.
    checkpoint_time_share`) unless the scenario fixes it, the window δ = 2 M share²
    (:func:`~hubplan.storage.checkpoint.write_window_s`), demand = checkpoint / δ.
    """
    findings = []
    restart_s = storage.restart_minutes * 60
    for j, per_day in zip(jobs, per_days, strict=True):
        mtbf_s = mtbf_hours(per_day) * SECONDS_PER_HOUR
        share = (
            storage.checkpoint_time_share
            if storage.checkpoint_time_share is not None
            else checkpoint_time_share(j["goodput"], mtbf_s, restart_s)
        )
        j.update(
            interruptions_per_day=per_day, mtbf_hours=mtbf_s / SECONDS_PER_HOUR, write_share=share
        )
        if share <= 0:
            j.update(write_window_s=math.nan, write_demand_gb_s=math.nan)
            findings.append(
                Finding(
                    "error",
                    "storage",
                    j["job"],
                    "goodput_unreachable",
                    {
                        "job": j["job"],
                        "goodput": j["goodput"],
                        "mtbf_hours": mtbf_s / SECONDS_PER_HOUR,
                        "restart_minutes": storage.restart_minutes,
                    },
                )
            )
            continue
        window = write_window_s(share, mtbf_s)
        j.update(write_window_s=window, write_demand_gb_s=j["checkpoint_tb"] * 1000 / window)
    return findings


def bandwidth_rows(pools: list[dict], jobs: list[dict], storage: Storage) -> list[dict]:
    """The ``storage_bandwidth`` rows: read and write demand per pool and in total.

    Parameters
    ----------
    pools : list of dict
        One per pool: ``pool``, ``gpus`` (with spares), ``servers`` (with spares),
        ``working_gpus`` (without: spares run no job) and ``client_gb_s`` (what its
        servers' storage NICs move).
    jobs : list of dict
        The training jobs with their checkpoint write demand
        (:func:`checkpoint_write_demand`).

    Notes
    -----
    Per pool, read demand = max(guideline read, tokens/s × bytes/token × amplification)
    and write demand = max(guideline write, checkpoint write), the guideline at
    ``storage.performance_level`` (:func:`~hubplan.storage.bandwidth.guideline_gb_s`,
    DGX SuperPOD RA-11333-001 Table 6); checkpoints are written by the training pool. The
    total row takes the guideline of all working GPUs together, not the sum of the pools'
    (the RA's aggregate is one system's: pools do not peak at once, and the scalable
    units are counted once), with the token reads and checkpoint writes of every job.

    Examples
    --------
    The RA's 4-SU build as one pool, 127 DGX H100, at 'better': read 160 GB/s, write 80.

    >>> rows = bandwidth_rows([{"pool": "training", "gpus": 1016, "servers": 127,
    ...                         "working_gpus": 1016, "client_gb_s": 12_700.0}], [],
    ...                       Storage(performance_level="better"))
    >>> rows[-1]["read_demand_gb_s"], rows[-1]["write_demand_gb_s"]
    (160.0, 80.0)
    """
    level = storage.performance_level
    token = sum(
        token_read_gb_s(
            j["tokens_per_s"], storage.processed_bytes_per_token, storage.read_amplification
        )
        for j in jobs
    )
    ck_write = sum(
        j["write_demand_gb_s"] for j in jobs if math.isfinite(j.get("write_demand_gb_s", math.nan))
    )

    def row(
        pool: str,
        gpus: int,
        servers: int,
        working: float,
        client: float,
        token_gb_s: float,
        ck_gb_s: float,
    ) -> dict:
        read, write = guideline_gb_s(working, level), guideline_gb_s(working, level, "write")
        return {
            "pool": pool,
            "gpus": gpus,
            "servers": servers,
            "read_demand_gb_s": max(read, token_gb_s),
            "token_read_gb_s": token_gb_s,
            "write_demand_gb_s": max(write, ck_gb_s),
            "client_gb_s": client,
            "guideline_good_read_gb_s": guideline_gb_s(working, "good"),
            "guideline_best_read_gb_s": guideline_gb_s(working, "best"),
            "guideline_read_gb_s": read,
            "guideline_write_gb_s": write,
            "checkpoint_write_gb_s": ck_gb_s,
        }

    rows = [
        row(
            str(p["pool"]),
            int(p["gpus"]),
            int(p["servers"]),
            float(p["working_gpus"]),
            float(p["client_gb_s"]),
            token if p["pool"] == "training" else 0.0,
            ck_write if p["pool"] == "training" else 0.0,
        )
        for p in pools
    ]
    rows.append(
        row(
            "total",
            sum(r["gpus"] for r in rows),
            sum(r["servers"] for r in rows),
            sum(float(p["working_gpus"]) for p in pools),
            sum(r["client_gb_s"] for r in rows),
            token,
            ck_write,
        )
    )
    return rows
