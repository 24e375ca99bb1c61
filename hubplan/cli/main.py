"""Command line: ``hubplan size training|inference``, ``hubplan catalog ...``, ``hubplan plan``.

Application code: it parses flags into a Scenario change, calls the calculators and
prints. Errors exit with status 2 and one line naming the flag, the value and what is
allowed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import unicodedata
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..core.catalog import load_catalog
from ..core.errors import HubplanError, ScenarioError
from ..core.findings import findings_frame
from ..core.labels import display_frame, format_value, label, localize
from ..core.units import parse_number
from ..plan import build_plan
from ..scenario import (
    InferenceService,
    Scenario,
    TrainingJob,
    default_scenario,
    load_scenario,
)
from ..views.render import findings_table
from ..workload import inference_token_model, size_inference, size_training, training_on_gpus

#: Scenario field -> the flag that sets it (error messages name the flag).
_TRAINING_FLAGS = {
    "model": "--model", "params": "--params", "active_params": "--active-params",
    "tokens": "--tokens", "data_bytes": "--data-bytes", "bytes_per_token": "--bytes-per-token",
    "epochs": "--epochs", "method": "--method", "precision": "--precision",
    "mfu": "--mfu", "mfu_justification": "--mfu-justification", "goodput": "--goodput",
    "time_margin": "--time-margin", "days": "--days", "memory_headroom": "--headroom",
    "zero_stage": "--zero-stage", "tensor_parallel": "--tensor-parallel",
    "pipeline_parallel": "--pipeline-parallel", "optimizer": "--optimizer",
}  # fmt: skip
_INFERENCE_FLAGS = {
    "model": "--model", "params": "--params", "peak_qps": "--qps",
    "mean_latency_s": "--latency-s", "concurrency_per_gpu": "--concurrency",
    "prompt_tokens": "--context-tokens", "output_tokens": "--output-tokens",
    "weight_precision": "--weight-precision", "kv_precision": "--kv-precision",
    "compute_precision": "--precision", "tensor_parallel": "--tensor-parallel",
    "architecture": "--layers/--hidden-size/--attention-heads/--kv-heads/--head-dim",
}  # fmt: skip
_POOL_FLAGS = {"accelerator": "--accelerator", "gpus_per_server": "--gpus-per-server"}


class CliError(HubplanError):
    """A flag's value is not acceptable."""


def _num(flag: str):
    def parse(text: str) -> float:
        try:
            return parse_number(text, flag)
        except HubplanError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [_jsonable(r) for r in df.to_dict(orient="records")]


def _scenario(args: argparse.Namespace) -> Scenario:
    return load_scenario(args.scenario) if args.scenario else default_scenario()


def _pick(items: tuple, name: str | None, what: str) -> int:
    if not items:
        return -1
    if name is None:
        return 0
    names = [it.name for it in items]
    if name not in names:
        raise CliError(f"--{what} = {name!r}: not in the scenario; use one of {names}")
    return names.index(name)


def _apply(
    scenario: Scenario,
    section: str,
    index: int,
    item_cls,
    fields: dict,
    args: argparse.Namespace,
    flags: dict[str, str],
) -> Scenario:
    """Apply the flags given (None = not given) to one workload item and its pool.

    Validated as a whole scenario; errors name the flags a CLI user typed.
    """
    changes = {k: v for k, v in fields.items() if v is not None}
    data = scenario.to_dict()
    items = data["workload"][section]
    base: dict[str, Any] = items[index] if index >= 0 else item_cls().model_dump(mode="json")
    if changes.get("tokens") is not None:
        base["data_bytes"] = None
    if changes.get("data_bytes") is not None:
        base["tokens"] = None
    if any(k in changes for k in ("model", "architecture", "params")):
        # A new model replaces the scenario's one: its params override, shape and name go.
        base["params"] = None
        base["architecture"] = None
        base["model"] = None
    base.update(changes)
    if index >= 0:
        items[index] = base
    else:
        items.append(base)
    data["pools"][section].update(_pool_changes(args))
    try:
        return Scenario.from_dict(data)
    except ScenarioError as exc:
        raise _flag_error(exc, flags) from None


def _flag_error(exc: ScenarioError, flags: dict[str, str]) -> CliError:
    """Rename scenario field paths in an error to the flags a CLI user typed."""
    lines = []
    for path, msg in exc.problems:
        field = path.split(" = ")[0].rsplit(".", 1)[-1]
        flag = flags.get(field) or _POOL_FLAGS.get(field)
        if flag and " = " in path:
            lines.append(f"{flag} = {path.split(' = ', 1)[1]}: {msg}")
        elif flag:
            lines.append(f"{flag}: {msg}")
        else:
            lines.append(f"{path}: {msg}")
    return CliError("; ".join(lines))


def _pool_changes(args: argparse.Namespace) -> dict[str, Any]:
    given = {"accelerator": args.accelerator, "gpus_per_server": args.gpus_per_server}
    return {k: v for k, v in given.items() if v is not None}


def _width(text: str) -> int:
    """Display width: CJK characters take two terminal columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _print_rows(row: dict, lang: str) -> None:
    shown = localize(pd.DataFrame([row]), lang).iloc[0]
    width = max(_width(c) for c in shown.index)
    for key, header in zip(row, shown.index, strict=True):
        pad = " " * (width - _width(header))
        print(f"{header}{pad}  {format_value(key, shown[header])}")


def _findings(findings, lang: str) -> pd.DataFrame:
    """Findings (a Plan's frame or Finding objects) with message and fix in ``lang``."""
    df = findings if isinstance(findings, pd.DataFrame) else findings_frame(list(findings))
    return findings_table(df, lang).assign(data=df["data"].to_numpy())


def _print_findings(findings, lang: str) -> None:
    for f in _findings(findings, lang).to_dict(orient="records"):
        print(f"[{f['severity']}] {f['subject']}: {f['message']}")
        print(f"    → {f['fix']}")


def _emit(
    args,
    inputs: dict,
    results: dict,
    findings,
    extra: dict | None = None,
    json_only: dict | None = None,
) -> None:
    """Print results and findings; with --json, one object: inputs, results, findings."""
    if args.json:
        payload = {
            "inputs": inputs,
            "results": {**results, **(json_only or {})},
            "findings": _records(_findings(findings, args.lang)),
            **(extra or {}),
        }
        print(json.dumps(_jsonable(payload), ensure_ascii=False, indent=2))
        return
    _print_rows(results, args.lang)
    _print_findings(findings, args.lang)


# -- commands ------------------------------------------------------------------------------


def cmd_size_training(args: argparse.Namespace) -> None:
    scenario = _scenario(args)
    index = _pick(scenario.workload.training, args.job, "job")
    fields = {
        "model": args.model, "params": args.params, "active_params": args.active_params,
        "tokens": args.tokens, "data_bytes": args.data_bytes,
        "bytes_per_token": args.bytes_per_token, "epochs": args.epochs, "method": args.method,
        "precision": args.precision, "mfu": args.mfu, "mfu_justification": args.mfu_justification,
        "goodput": args.goodput, "time_margin": args.time_margin, "days": args.days,
        "memory_headroom": args.headroom, "zero_stage": args.zero_stage,
        "tensor_parallel": args.tensor_parallel, "pipeline_parallel": args.pipeline_parallel,
        "optimizer": args.optimizer,
    }  # fmt: skip
    scenario = _apply(scenario, "training", index, TrainingJob, fields, args, _TRAINING_FLAGS)
    job = scenario.workload.training[index]
    catalog = _catalog(args)
    if args.gpus is not None:
        if args.gpus < 1 or args.gpus != int(args.gpus):
            raise CliError(f"--gpus = {args.gpus:g}: must be a whole number >= 1")
        row, findings = training_on_gpus(job, scenario.pools.training, catalog, int(args.gpus))
    else:
        row, findings = size_training(job, scenario.pools.training, catalog)
    inputs = {**job.model_dump(mode="json"), **scenario.pools.training.model_dump(mode="json"),
              "accelerator": row["accelerator"], "gpus_given": args.gpus}  # fmt: skip
    # JSON readers get ``days`` (time to finish on ``gpus``) beside the table's columns.
    _emit(args, inputs, row, findings, json_only={"days": row["days_to_finish"]})


def cmd_size_inference(args: argparse.Namespace) -> None:
    scenario = _scenario(args)
    index = _pick(scenario.workload.inference, args.service, "service")
    arch_flags = {"layers": args.layers, "hidden_size": args.hidden_size,
                  "attention_heads": args.attention_heads, "kv_heads": args.kv_heads,
                  "head_dim": args.head_dim}  # fmt: skip
    fields: dict[str, Any] = {
        "model": args.model, "params": args.params, "peak_qps": args.qps,
        "mean_latency_s": args.latency_s, "concurrency_per_gpu": args.concurrency,
        "prompt_tokens": args.context_tokens, "output_tokens": args.output_tokens,
        "weight_precision": args.weight_precision, "kv_precision": args.kv_precision,
        "compute_precision": args.precision, "tensor_parallel": args.tensor_parallel,
    }  # fmt: skip
    if any(v is not None for v in arch_flags.values()):
        if args.params is None:
            raise CliError("--params: required with the architecture flags (--layers ...)")
        given = {k: v for k, v in arch_flags.items() if v is not None}
        fields["architecture"] = {"total_params": args.params, **given}
    scenario = _apply(
        scenario, "inference", index, InferenceService, fields, args, _INFERENCE_FLAGS
    )
    service = scenario.workload.inference[index]
    catalog = _catalog(args)
    row, findings = size_inference(service, scenario.pools.inference, catalog)
    options = inference_token_model(service, scenario.pools.inference, catalog)
    inputs = {**service.model_dump(mode="json"),
              **scenario.pools.inference.model_dump(mode="json"),
              "accelerator": row["accelerator"]}  # fmt: skip
    _emit(args, inputs, row, findings, extra={"tensor_parallel_options": _records(options)})


#: Columns the text listing shows per catalogue (--json gives every column).
_CATALOG_COLUMNS = {
    "accelerators": ["name", "vendor", "segment", "bf16_dense_tflops", "bf16_sparse_tflops",
                     "int8_dense_tops", "vram_gb", "mem_bw_tb_s", "scaleup_kind", "tdp_w",
                     "confidence"],
    "models": ["name", "architecture", "total_params", "active_params", "layers",
               "hidden_size", "attention_heads", "kv_heads", "context_tokens"],
    "servers": ["name", "accelerator", "gpus", "cpu_cores_total", "ram_gb", "compute_nics",
                "compute_nic_gbps", "pcie_gen", "confidence"],
}  # fmt: skip


def _catalog(args: argparse.Namespace):
    return load_catalog(args.accelerators_csv, args.models_csv, args.servers_csv)


def cmd_catalog(args: argparse.Namespace) -> None:
    df = getattr(_catalog(args), args.table)
    if args.json:
        print(json.dumps(_records(df), ensure_ascii=False, indent=2))
        return
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(display_frame(df[_CATALOG_COLUMNS[args.table]], args.lang).to_string(index=False))


def cmd_compare(args: argparse.Namespace) -> None:
    scenario = _scenario(args)
    changes: dict[str, Any] = {}
    if args.candidates:
        changes["accelerator.candidates"] = [c.strip() for c in args.candidates.split(",")]
    if args.budget_usd is not None:
        changes["accelerator.budget_usd"] = args.budget_usd
    if args.rank_by:
        changes["accelerator.rank_by"] = args.rank_by
    if changes:
        try:
            scenario = scenario.with_changes(changes)
        except ScenarioError as exc:
            raise _flag_error(exc, {"candidates": "--candidates", "budget_usd": "--budget-usd",
                                    "rank_by": "--rank-by"}) from None  # fmt: skip
    plan = build_plan(scenario, _catalog(args))
    table = plan["candidates"]
    if args.json:
        print(json.dumps({"candidates": _records(table),
                          "compute_claims": _records(plan["compute_claims"]),
                          "findings": _records(_findings(plan.findings, args.lang))},
                         ensure_ascii=False, indent=2))  # fmt: skip
        return
    cols = ["workload", "rank", "candidate", "gpus", "binding", "capex_usd", "power_kw",
            "interconnect"]  # fmt: skip
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        shown = table.sort_values(["workload", "rank"])[cols]
        print(display_frame(shown, args.lang).to_string(index=False))
    _print_findings([f for f in plan.raw_findings if f.stage == "accelerator"], args.lang)


def cmd_plan(args: argparse.Namespace) -> None:
    plan = build_plan(_scenario(args), _catalog(args))
    if args.json:
        payload = {name: _records(df) for name, df in plan.tables.items()}
        payload["findings"] = _records(_findings(plan.findings, args.lang))
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    print(plan.scenario.name)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(display_frame(plan["pools"], args.lang).to_string(index=False))
    _print_findings(plan.raw_findings, args.lang)


# -- parser --------------------------------------------------------------------------------


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scenario", metavar="FILE", help="scenario YAML for defaults")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--lang", default="en", choices=["en", "zh"], help="label language")
    p.add_argument("--accelerators-csv", metavar="FILE", help="your own accelerator rows")
    p.add_argument("--models-csv", metavar="FILE", help="your own model rows")
    p.add_argument("--servers-csv", metavar="FILE", help="your own server rows")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2 (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hubplan", description=label("panel.workload.title"))
    sub = parser.add_subparsers(dest="command", required=True)

    size = sub.add_parser("size", help="size one workload").add_subparsers(
        dest="what", required=True
    )
    tr = size.add_parser("training", help="GPUs for a deadline, or days on a GPU count")
    _common(tr)
    tr.add_argument("--job", help="job name in the scenario (default: the first)")
    tr.add_argument("--model", help="catalogue model name")
    tr.add_argument("--params", type=_num("--params"), help="parameters, e.g. 70e9 or 70B")
    tr.add_argument("--active-params", type=_num("--active-params"))
    data = tr.add_mutually_exclusive_group()
    data.add_argument("--tokens", type=_num("--tokens"), help="training tokens, e.g. 2T")
    data.add_argument("--data-bytes", type=_num("--data-bytes"), help="text bytes, e.g. 500GB")
    tr.add_argument("--bytes-per-token", type=_num("--bytes-per-token"))
    tr.add_argument("--epochs", type=_num("--epochs"))
    tr.add_argument("--method", help="full, lora or qlora")
    tr.add_argument("--accelerator", help="catalogue accelerator name or alias")
    tr.add_argument("--gpus-per-server", type=int)
    tr.add_argument("--precision", help="bf16, fp16, fp8, tf32, fp32")
    tr.add_argument("--mfu", type=_num("--mfu"))
    tr.add_argument("--mfu-justification")
    tr.add_argument("--goodput", type=_num("--goodput"))
    tr.add_argument("--time-margin", type=_num("--time-margin"))
    tr.add_argument("--headroom", type=_num("--headroom"), help="memory headroom factor")
    tr.add_argument("--zero-stage", type=int)
    tr.add_argument("--tensor-parallel", type=int)
    tr.add_argument("--pipeline-parallel", type=int)
    tr.add_argument("--optimizer")
    solve = tr.add_mutually_exclusive_group()
    solve.add_argument("--days", type=_num("--days"), help="deadline: solve for GPUs")
    solve.add_argument("--gpus", type=_num("--gpus"), help="GPU count: solve for days")
    tr.set_defaults(func=cmd_size_training)

    inf = size.add_parser("inference", help="GPUs for an online service")
    _common(inf)
    inf.add_argument("--service", help="service name in the scenario (default: the first)")
    inf.add_argument("--model", help="catalogue model name")
    inf.add_argument("--params", type=_num("--params"))
    for flag in ("--layers", "--hidden-size", "--attention-heads", "--kv-heads", "--head-dim"):
        inf.add_argument(flag, type=int, help="architecture, for a model not in the catalogue")
    inf.add_argument("--accelerator")
    inf.add_argument("--gpus-per-server", type=int)
    inf.add_argument("--qps", type=_num("--qps"), help="peak requests per second")
    inf.add_argument("--latency-s", type=_num("--latency-s"), help="mean request latency [s]")
    inf.add_argument("--concurrency", type=_num("--concurrency"), help="requests per GPU")
    inf.add_argument("--context-tokens", type=int, help="prompt (context) tokens per request")
    inf.add_argument("--output-tokens", type=int)
    inf.add_argument("--weight-precision")
    inf.add_argument("--kv-precision")
    inf.add_argument("--precision", help="compute precision")
    inf.add_argument("--tensor-parallel", type=int)
    inf.set_defaults(func=cmd_size_inference)

    cat = sub.add_parser("catalog", help="list a catalogue")
    cat.add_argument("table", choices=["accelerators", "models", "servers"])
    _common(cat)
    cat.set_defaults(func=cmd_catalog)

    cmp_ = sub.add_parser("compare", help="compare candidate accelerators for every workload")
    _common(cmp_)
    cmp_.add_argument("--candidates", help="comma-separated accelerator names or aliases")
    cmp_.add_argument("--budget-usd", type=_num("--budget-usd"), help="fixed hardware budget")
    cmp_.add_argument("--rank-by", choices=["capex", "power"])
    cmp_.set_defaults(func=cmd_compare)

    pl = sub.add_parser("plan", help="build the whole plan for a scenario")
    _common(pl)
    pl.set_defaults(func=cmd_plan)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.func(args)
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except HubplanError as exc:
        one_line = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        print(f"hubplan: error: {one_line}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
