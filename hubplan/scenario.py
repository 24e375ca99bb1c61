"""The Scenario: every planning assumption, validated, with units in each field's name.

A Scenario is a tree of frozen pydantic models, one section per planning stage
(DESIGN.md). It loads from and saves to YAML without loss (``load_scenario``,
``Scenario.to_yaml``). Invalid input raises :class:`~hubplan.errors.ScenarioError`
naming the field path, the value and what is allowed; unknown keys get a
"did you mean" hint.

Each field's ``description`` says what it is and why its default is that value.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from ._paths import templates_dir
from .errors import InputError, ScenarioError
from .units import parse_number

SCHEMA_VERSION = 1


def _number(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return parse_number(v)
        except InputError:
            return v  # let pydantic report it with the field path
    return v


#: A float that may be written ``70e9``, ``70B`` or ``500GB`` in YAML.
Quantity = Annotated[float, BeforeValidator(_number)]

TrainingPrecision = Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8"]
WeightPrecision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)


class Architecture(_Section):
    """A transformer's shape, for models not in ``data/models.csv``."""

    total_params: Quantity = Field(gt=0, description="All parameters. [count]")
    active_params: Quantity | None = Field(
        None, gt=0, description="Parameters active per token (MoE); empty = total. [count]"
    )
    layers: int = Field(gt=0, description="Transformer layers.")
    hidden_size: int = Field(gt=0, description="Model width h.")
    attention_heads: int = Field(gt=0, description="Query heads a.")
    kv_heads: int = Field(gt=0, description="Key/value heads (GQA); = attention_heads for MHA.")
    head_dim: int | None = Field(None, gt=0, description="Per-head width; empty = h / a.")
    ffn_hidden_size: int | None = Field(None, gt=0, description="MLP width (per expert).")
    kv_lora_rank: int | None = Field(None, gt=0, description="MLA latent KV rank (DeepSeek).")
    qk_rope_head_dim: int | None = Field(None, gt=0, description="MLA decoupled RoPE width.")


class TrainingJob(_Section):
    """A pre-training or fine-tuning run that must finish by a deadline."""

    name: str = Field("training", min_length=1, description="Shown in tables.")
    model: str | None = Field(
        None, description="A model in data/models.csv: gives parameters and architecture."
    )
    architecture: Architecture | None = Field(
        None, description="The model's shape when it is not in the catalogue."
    )
    params: Quantity | None = Field(
        None,
        gt=0,
        description="Total parameters N; overrides the catalogue figure (e.g. the round "
        "70e9 of a planning brief). [count]",
    )
    active_params: Quantity | None = Field(
        None, gt=0, description="Activated parameters per token for MoE; empty = N. [count]"
    )
    method: Literal["full", "lora", "qlora"] = Field(
        "full",
        description="full: every weight trains (16 B/param mixed-precision Adam); lora: "
        "frozen BF16 base + adapters (Hu et al. 2021); qlora: 4-bit NF4 base (Dettmers et "
        "al. 2023).",
    )
    tokens: Quantity | None = Field(None, gt=0, description="Training tokens D per epoch.")
    data_bytes: Quantity | None = Field(
        None, gt=0, description="Training text in bytes, when tokens are not known. [B]"
    )
    bytes_per_token: float = Field(
        4.0,
        gt=0,
        le=64,
        description="Text bytes per token: ~4 characters per token for English BPE "
        "(OpenAI tokenizer guide); a Chinese character is 3 UTF-8 bytes and modern "
        "tokenizers pack ~1.3-1.5 characters per token, also ~4 B. [B/token]",
    )
    epochs: float = Field(1.0, gt=0, le=1000, description="Passes over the data.")
    days: float = Field(15.0, gt=0, le=3650, description="Deadline, calendar days. [d]")
    precision: TrainingPrecision = Field(
        "bf16", description="Math precision of the matmuls; dense peak at this precision."
    )
    use_sparse: bool = Field(
        False, description="Size on the 2:4-sparse peak. Wrong for training; needs the force flag."
    )
    force_marketing_figure: bool = Field(
        False,
        description="Allow INT8 or sparse peaks for training sizing (a warning finding is "
        "still raised). Off: sizing training on them is an error.",
    )
    mfu: float = Field(
        0.45,
        gt=0,
        le=1,
        description="Model FLOPs utilisation: 0.45 is the planning rule (DESIGN.md); "
        "Llama 3 405B reached 38-43% BF16 MFU on 16K H100 (arXiv 2407.21783 Table 4). "
        "Outside 0.35-0.55 is warned; above 0.6 needs mfu_justification.",
    )
    mfu_justification: str = Field(
        "", description="Why an MFU above 0.6 is credible (required above 0.6)."
    )
    goodput: float = Field(
        0.9,
        gt=0,
        le=1,
        description="Share of wall-clock time that trains (failures, restarts, checkpoints "
        "excluded): Llama 3 405B kept >90% effective training time (arXiv 2407.21783 §3.3.4).",
    )
    time_margin: float = Field(
        0.30,
        ge=0,
        le=5,
        description="Schedule margin: the job is planned to finish in days / (1 + margin); "
        "0.30 is the planning rule (DESIGN.md).",
    )
    optimizer: Literal["adam_mixed", "adam_fp32", "adam_bf16_states", "sgd_momentum_mixed"] = Field(
        "adam_mixed",
        description="adam_mixed: 2+2+12 = 16 B/param (ZeRO paper §3.1); adam_fp32: 4+4+8 = "
        "16; adam_bf16_states: BF16 moments, FP32 master = 12; sgd_momentum_mixed: 2+2+8 = 12.",
    )
    zero_stage: Literal[0, 1, 2, 3] = Field(
        1, description="ZeRO-DP stage (Rajbhandari et al. 2019); 1 shards optimizer states."
    )
    tensor_parallel: int = Field(1, ge=1, le=512, description="Tensor-parallel degree t.")
    pipeline_parallel: int = Field(1, ge=1, le=512, description="Pipeline-parallel degree p.")
    sequence_parallel: bool = Field(
        True, description="Megatron sequence parallelism (shards LayerNorm/dropout by t)."
    )
    recompute: Literal["none", "selective", "full"] = Field(
        "selective",
        description="Activation recomputation (Korthikanti et al. 2022): selective drops "
        "the attention-score term at ~2-4% extra compute; full keeps only layer inputs.",
    )
    seq_len_tokens: int = Field(4096, ge=1, le=10_000_000, description="Sequence length s.")
    micro_batch: int = Field(1, ge=1, le=4096, description="Micro-batch size b per GPU.")
    memory_headroom: float = Field(
        2.0,
        ge=1,
        le=10,
        description="Memory-bound count = model state × headroom / VRAM; 2× leaves room "
        "for activations, buffers and fragmentation (DESIGN.md).",
    )
    lora_rank: int = Field(16, ge=1, le=4096, description="LoRA rank r on every linear layer.")

    @model_validator(mode="after")
    def _check(self) -> TrainingJob:
        if (self.tokens is None) == (self.data_bytes is None):
            raise ValueError("give exactly one of tokens or data_bytes")
        if self.model is None and self.architecture is None and self.params is None:
            raise ValueError("give model (a catalogue name), architecture or params")
        if self.mfu > 0.6 and not self.mfu_justification.strip():
            raise ValueError(
                f"mfu = {self.mfu}: above 0.6 needs mfu_justification (published large runs "
                "reach 0.38-0.55)"
            )
        marketing = self.precision == "int8" or self.use_sparse
        if marketing and not self.force_marketing_figure:
            which = "INT8" if self.precision == "int8" else "2:4-sparse"
            raise ValueError(
                f"precision = {self.precision!r}, use_sparse = {self.use_sparse}: training is "
                f"sized on dense floating-point peaks, not {which} figures; use bf16/fp16/fp8 "
                "dense, or set force_marketing_figure: true to override"
            )
        return self


class InferenceService(_Section):
    """An online serving workload, sized two ways (planning rule and token model)."""

    name: str = Field("inference", min_length=1, description="Shown in tables.")
    model: str | None = Field(None, description="A model in data/models.csv.")
    architecture: Architecture | None = Field(None, description="Shape when not catalogued.")
    params: Quantity | None = Field(None, gt=0, description="Overrides catalogue N. [count]")
    peak_qps: float = Field(10.0, gt=0, description="Peak requests per second. [1/s]")
    mean_latency_s: float = Field(
        10.0, gt=0, description="Mean end-to-end request time at peak (planning rule). [s]"
    )
    concurrency_per_gpu: float = Field(
        4.0, gt=0, description="Concurrent requests one GPU serves (planning rule)."
    )
    prompt_tokens: int = Field(1024, ge=1, description="Mean prompt length. [tokens]")
    output_tokens: int = Field(256, ge=1, description="Mean generated length. [tokens]")
    weight_precision: WeightPrecision = Field(
        "bf16", description="Precision of stored weights (bf16 2 B, fp8/int8 1 B, int4 0.5 B)."
    )
    kv_precision: Literal["fp32", "bf16", "fp16", "fp8", "int8"] = Field(
        "bf16", description="Precision of the KV cache."
    )
    compute_precision: Literal["bf16", "fp16", "fp8", "int8"] = Field(
        "bf16", description="Matmul precision for prefill/decode compute (dense peak)."
    )
    gpu_memory_utilization: float = Field(
        0.9,
        gt=0,
        le=1,
        description="Share of VRAM the server may use for weights + KV cache; vLLM's "
        "default gpu_memory_utilization is 0.9.",
    )
    memory_bandwidth_utilization: float = Field(
        0.6,
        gt=0,
        le=1,
        description="Achieved share of peak HBM bandwidth in decode (MBU); ~0.6 is typical "
        "of tuned servers at moderate batch (Databricks 'LLM Inference Performance "
        "Engineering', 2023).",
    )
    compute_mfu: float = Field(
        0.5,
        gt=0,
        le=1,
        description="MFU of prompt processing (prefill is compute-bound) and of the "
        "compute ceiling in decode; 0.5 sits between training MFU and dense-matmul peaks.",
    )
    tensor_parallel: int | None = Field(
        None, ge=1, le=72, description="GPUs per model replica; empty = smallest that fits."
    )
    max_batch: int = Field(
        256, ge=1, description="Cap on concurrent sequences per replica (vLLM max_num_seqs 256)."
    )

    @model_validator(mode="after")
    def _check(self) -> InferenceService:
        if self.model is None and self.architecture is None:
            raise ValueError("give model (a catalogue name) or architecture")
        return self


class DevelopmentPool(_Section):
    """Interactive development and debugging GPUs."""

    developers: int = Field(16, ge=0, description="People who need GPUs for development.")
    gpus_per_developer: float = Field(1.0, gt=0, le=64, description="GPUs each uses when active.")
    peak_active_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="Share of developers active at the busiest hour; 0.5 is an assumption "
        "to revisit with the client's team calendar.",
    )


class Overlap(_Section):
    """How the pools' peaks coincide: pools are never summed blindly."""

    policy: Literal["dedicated", "shared"] = Field(
        "dedicated",
        description="dedicated: each pool owns its servers and the fleet is their sum. "
        "shared: pools on the same accelerator are one scheduled fleet sized to the "
        "coincident peak Σ pool × coincidence.",
    )
    training_coincidence: float = Field(1.0, ge=0, le=1, description="Share at fleet peak.")
    inference_coincidence: float = Field(1.0, ge=0, le=1, description="Share at fleet peak.")
    development_coincidence: float = Field(
        0.5, ge=0, le=1, description="Development is daytime-bursty: half its peak coincides."
    )


class Workload(_Section):
    """Workload stage: what the centre must carry."""

    training: tuple[TrainingJob, ...] = Field(default=(), description="Training / fine-tune jobs.")
    inference: tuple[InferenceService, ...] = Field(default=(), description="Online services.")
    development: DevelopmentPool | None = Field(None, description="Development pool.")
    overlap: Overlap = Field(default_factory=Overlap, description="Peak-overlap policy.")


class ServerSpec(_Section):
    """A server configuration typed by the user, checked like a catalogue server."""

    name: str = Field("custom server", min_length=1, description="Shown in tables.")
    accelerator: str = Field(description="A name or alias in data/accelerators.csv.")
    gpus: int = Field(8, ge=1, le=72, description="Accelerators per server.")
    cpu_model: str = Field("", description="For the record.")
    cpu_sockets: int | None = Field(None, ge=1, le=8, description="CPU sockets.")
    cpu_cores_total: int | None = Field(None, ge=1, description="Physical cores, all sockets.")
    cpu_base_ghz: float | None = Field(None, gt=0, le=10, description="Base clock. [GHz]")
    ram_gb: float | None = Field(None, gt=0, description="Host memory. [GB]")
    compute_nics: int = Field(0, ge=0, description="Scale-out (east-west) NIC ports.")
    compute_nic_gbps: float | None = Field(None, gt=0, description="Speed of each. [Gb/s]")
    storage_nics: int = Field(0, ge=0, description="Storage-network NIC ports.")
    storage_nic_gbps: float | None = Field(None, gt=0, description="Speed of each. [Gb/s]")
    inband_nics: int = Field(0, ge=0, description="In-band management / frontend ports.")
    inband_nic_gbps: float | None = Field(None, gt=0, description="Speed of each. [Gb/s]")
    bmc_nics: int = Field(0, ge=0, description="Out-of-band BMC ports.")
    bmc_nic_gbps: float | None = Field(None, gt=0, description="Speed of each. [Gb/s]")
    pcie_gen: int | None = Field(None, ge=3, le=7, description="Host PCIe generation.")
    max_power_kw: float | None = Field(None, gt=0, description="Maximum system power. [kW]")
    price_usd: float | None = Field(None, gt=0, description="Indicative price. [USD]")


class ExistingServers(_Section):
    """Servers the client already owns and puts into a pool."""

    server: str = Field(description="A name or alias in data/servers.csv.")
    count: int = Field(ge=1, description="How many.")


class PoolSpec(_Section):
    """One resource pool: its hardware, spares and scheduling policy."""

    accelerator: str = Field(
        "H100 SXM5 80GB", description="A name or alias in data/accelerators.csv."
    )
    gpus_per_server: int = Field(
        8, ge=1, le=72, description="8 for HGX/OAM and 8×PCIe servers; 4 per GB200 tray."
    )
    server: str | None = Field(
        None, description="A server in data/servers.csv; must carry this pool's accelerator."
    )
    custom_server: ServerSpec | None = Field(
        None, description="A user-entered server configuration (instead of server)."
    )
    spare_ratio: float = Field(
        0.05,
        ge=0,
        le=1,
        description="Spare servers per working server, rounded up: 0.05 is one spare per "
        "twenty; BLOOM kept 4 spare nodes for 48 (8%, arXiv 2211.05100 §3.4.1).",
    )
    partition: str | None = Field(
        None, description="Scheduler (Slurm) partition name; empty = the pool's name."
    )
    quota: Literal["exclusive", "fair_share", "preemptible"] = Field(
        "fair_share",
        description="exclusive: reserved for one team or job; fair_share: shared by "
        "fair-share priority; preemptible: borrowed capacity that can be reclaimed.",
    )
    max_gpus_per_user: int | None = Field(
        None, ge=1, description="Per-user GPU cap in the scheduler; empty = none."
    )
    existing_servers: tuple[ExistingServers, ...] = Field(
        default=(), description="Servers already owned that join this pool."
    )

    @model_validator(mode="after")
    def _one_server(self) -> PoolSpec:
        if self.server is not None and self.custom_server is not None:
            raise ValueError("give server or custom_server, not both")
        return self


class Pools(_Section):
    """Accelerator-and-server stage: one pool per workload kind."""

    training: PoolSpec = Field(default_factory=lambda: PoolSpec(quota="exclusive"))
    inference: PoolSpec = Field(default_factory=PoolSpec)
    development: PoolSpec = Field(default_factory=PoolSpec)


class Selection(_Section):
    """Accelerator stage: the candidates compared side by side, and how to rank them."""

    candidates: tuple[str, ...] = Field(
        (),
        max_length=12,
        description="Accelerators to compare (a workshop picks 3-6); empty = the pools' own.",
    )
    budget_usd: float | None = Field(
        None, gt=0, description="Fixed hardware budget for 'training days on budget'. [USD]"
    )
    platform_overhead: float = Field(
        0.3,
        ge=0,
        le=5,
        description="Server share on top of the accelerator price (CPU, RAM, NICs, chassis): "
        "an 8×H100 HGX server quoted at ~US$310k (2024) against 8 × US$30k cards is ×1.29.",
    )
    depreciation_years: float = Field(
        5.0,
        gt=0,
        le=15,
        description="Useful life for cost per effective PFLOP-day: 5 years (Amazon 10-K: "
        "servers 6 → 5 years from 2025 for the pace of AI hardware; Meta 5.5; Microsoft, "
        "Alphabet 6).",
    )
    mfu_scaling: Literal["measured_matmul", "same"] = Field(
        "measured_matmul",
        description="measured_matmul: the job's MFU holds for the pool's own accelerator; "
        "each other candidate gets MFU × (its measured maximum-achievable matmul share ÷ "
        "the pool accelerator's), since the same software reaches 80% of peak on H100 but "
        "51% on MI300X (ml-engineering MAMF). same: one MFU for every card.",
    )
    rank_by: Literal["capex", "power"] = Field(
        "capex",
        description="capex: cheapest hardware that meets each workload; power: lowest "
        "accelerator TDP that meets it.",
    )


class ServerPolicy(_Section):
    """Server stage: the balance rules every pool's server is checked against."""

    ram_to_gpu_memory: float = Field(
        1.0,
        ge=0,
        le=16,
        description="Host RAM ≥ this × total GPU memory. 1.0 is compute-centre practice "
        "(NVIDIA's H200 NVL enterprise RA asks 128 GB per 141 GB GPU, ≈0.9×); selection "
        "guides advise 2.0 (Puget Systems: 'at least double the amount of CPU memory as "
        "there is total GPU memory'; RunPod hosts: 1.5-2×).",
    )
    min_cpu_cores_per_gpu: float = Field(
        4.0,
        ge=0,
        le=128,
        description="Physical CPU cores per accelerator: Puget Systems 'at least 4 cores "
        "for each GPU'; RunPod hosts 4 (+2 for the system); NVIDIA's H200 NVL enterprise "
        "RA 7; DGX H100 ships 14.",
    )
    min_cpu_base_ghz: float = Field(
        2.0,
        ge=0,
        le=10,
        description="CPU base clock floor: NVIDIA AI Enterprise reference architecture, "
        "'2.0 GHz minimum CPU clock'. [GHz]",
    )
    training_fabric_gbps: float = Field(
        400.0,
        gt=0,
        description="Scale-out speed per GPU in training pools: one 400 Gb/s NIC per GPU, "
        "rail-optimised (DGX SuperPOD RA; NVIDIA HGX '2-8-9-400').",
    )
    require_storage_network: bool = Field(
        True, description="Training and inference servers need separate storage NICs."
    )
    require_management_network: bool = Field(
        True, description="Every server needs in-band management and a BMC port."
    )


class Scenario(_Section):
    """Every assumption of a plan. Build with :func:`load_scenario` or
    :func:`default_scenario`; change with :meth:`with_changes`."""

    schema_version: Literal[1] = Field(SCHEMA_VERSION, description="File format version.")
    name: str = Field("scenario", min_length=1, description="Shown on every output.")
    description: str = Field("", description="Free text for the proposal.")
    workload: Workload = Field(default_factory=Workload)
    pools: Pools = Field(default_factory=Pools)
    accelerator: Selection = Field(default_factory=Selection)
    server: ServerPolicy = Field(default_factory=ServerPolicy)

    # -- construction ----------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> Scenario:
        """Validate a plain dict (as read from YAML) into a Scenario."""
        if not isinstance(data, dict):
            raise ScenarioError([("(top level)", f"expected a mapping, got {data!r}")], source)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ScenarioError(_problems(exc, cls), source) from None

    @classmethod
    def from_yaml(cls, text: str, source: str | None = None) -> Scenario:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ScenarioError([("(file)", f"not valid YAML: {exc}")], source) from None
        return cls.from_dict(data if data is not None else {}, source)

    def to_dict(self) -> dict[str, Any]:
        """Every field, defaults included, as plain YAML-safe values."""
        return self.model_dump(mode="json")

    def to_yaml(self) -> str:
        """YAML text that :meth:`from_yaml` turns back into an equal Scenario."""
        return yaml.dump(self.to_dict(), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                         width=100)  # fmt: skip

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the YAML atomically (a crash never leaves a half-written file)."""
        path = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_yaml())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def with_changes(self, changes: dict[str, Any]) -> Scenario:
        """A new Scenario with dotted-path fields replaced, validated as a whole.

        >>> s = default_scenario().with_changes({"workload.training.0.days": 20})
        >>> s.workload.training[0].days
        20.0
        """
        data = self.to_dict()
        for dotted, value in changes.items():
            node: Any = data
            keys = dotted.split(".")
            for key in keys[:-1]:
                node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
            last = keys[-1]
            if isinstance(node, list):
                node[int(last)] = value
            else:
                node[last] = value
        return Scenario.from_dict(data)


class _Dumper(yaml.SafeDumper):
    """SafeDumper that keeps YAML line-break characters (NEL, LS, PS) exact.

    PyYAML writes them raw inside single quotes, where a reader folds them; double
    quotes escape them (\\N, \\L, \\P) and the text survives the round trip.
    """


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    if any(ch in data for ch in "\x85\u2028\u2029"):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    return dumper.represent_str(data)


_Dumper.add_representer(str, _represent_str)


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read a scenario YAML file; errors name the file and each invalid field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(
            [("(file)", f"cannot read {path}: {exc.strerror}")], str(path)
        ) from None
    return Scenario.from_yaml(text, source=str(path))


def default_scenario() -> Scenario:
    """The embedded default: a 70 B industry-model fine-tune, an online service and a
    development pool (``templates/scenarios/default.yaml``)."""
    return load_scenario(templates_dir() / "scenarios" / "default.yaml")


# -- error messages ----------------------------------------------------------------------


def _format_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _model_at(cls: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class that owns the last element of ``loc`` (for hints and ranges)."""
    current: Any = cls
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return None
        current = _inner_model(fields[part].annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _inner_model(annotation: Any) -> Any:
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _inner_model(arg)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
    return annotation


def _allowed(owner: type[BaseModel] | None, field: str) -> str:
    if owner is None or field not in owner.model_fields:
        return ""
    info = owner.model_fields[field]
    bounds = []
    for m in info.metadata:
        for kind, attr, sym in (
            (Gt, "gt", ">"),
            (Ge, "ge", ">="),
            (Lt, "lt", "<"),
            (Le, "le", "<="),
        ):
            if isinstance(m, kind):
                bounds.append(f"{sym} {getattr(m, attr)}")
    return f" (allowed: {field} {' and '.join(bounds)})" if bounds else ""


def _problems(exc: ValidationError, cls: type[BaseModel]) -> list[tuple[str, str]]:
    problems = []
    for err in exc.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
        path = _format_path(loc)
        kind = err["type"]
        if kind == "extra_forbidden":
            owner = _model_at(cls, loc[:-1]) if len(loc) > 1 else cls
            names = list(owner.model_fields) if owner else []
            close = difflib.get_close_matches(str(loc[-1]), names, n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            valid = f" Valid keys here: {', '.join(names)}." if names else ""
            problems.append((path, f"unknown key{hint}{valid}"))
            continue
        value = err.get("input")
        owner = _model_at(cls, loc[:-1]) if loc else None
        field = str(loc[-1]) if loc else ""
        msg = err["msg"].removeprefix("Value error, ")
        if kind == "value_error" and isinstance(value, dict):
            problems.append((path, msg))  # a whole-section rule; the message names its fields
        else:
            problems.append((f"{path} = {value!r}", f"{msg}{_allowed(owner, field)}"))
    return problems
