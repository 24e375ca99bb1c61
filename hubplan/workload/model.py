"""Model shapes: the numbers the formulas need, from the catalogue or the scenario."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.catalog import Catalog
from .section import Architecture

#: Bytes per element of stored weights / KV cache.
ELEMENT_BYTES = {
    "fp32": 4.0,
    "tf32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
}


@dataclass(frozen=True)
class ModelShape:
    """The numbers the formulas need about a model (from the catalogue or the scenario)."""

    total_params: float
    active_params: float
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    ffn_hidden_size: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    moe: bool = False
    name: str = ""


def _opt_int(v: float | None) -> int | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)


def resolve_model(
    catalog: Catalog,
    model: str | None,
    architecture: Architecture | None,
    params: float | None,
    active_params: float | None = None,
) -> tuple[ModelShape | None, float, float]:
    """(shape or None, total params, active params) for a workload item.

    ``params`` overrides the catalogue's total (and active, for dense models).
    """
    shape = None
    if architecture is not None:
        a = architecture
        shape = ModelShape(
            a.total_params,
            a.active_params or a.total_params,
            a.layers,
            a.hidden_size,
            a.attention_heads,
            a.kv_heads,
            a.head_dim or a.hidden_size // a.attention_heads,
            a.ffn_hidden_size,
            a.kv_lora_rank,
            a.qk_rope_head_dim,
            moe=bool(a.active_params and a.active_params < a.total_params),
            name="custom",
        )
    elif model is not None:
        row = catalog.model(model).to_dict()  # one conversion, not a Series lookup per field
        heads = int(row["attention_heads"])
        shape = ModelShape(
            float(row["total_params"]),
            float(row["active_params"])
            if row["active_params"] == row["active_params"]
            else float(row["total_params"]),
            int(row["layers"]),
            int(row["hidden_size"]),
            heads,
            int(row["kv_heads"]),
            _opt_int(row["head_dim"]) or int(row["hidden_size"]) // heads,
            _opt_int(row["ffn_hidden_size"]),
            _opt_int(row["kv_lora_rank"]),
            _opt_int(row["qk_rope_head_dim"]),
            moe=row["architecture"] == "moe",
            name=str(row["name"]),
        )
    total = params if params is not None else (shape.total_params if shape else math.nan)
    if active_params is not None:
        active = active_params
    elif shape is not None and shape.moe:
        active = shape.active_params * (total / shape.total_params)
    else:
        active = total
    return shape, total, active


# -- training stage ------------------------------------------------------------------------
