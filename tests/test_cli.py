"""The command line: numbers, --json, catalogues, one-line errors with exit status 2."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hubplan
from hubplan.cli import main

#: ``make test`` runs the random-flag campaigns on the same examples every time (CI is
#: repeatable); ``HUBPLAN_LONG=1`` (``make properties``) draws fresh, more of them.
LONG = os.environ.get("HUBPLAN_LONG", "") not in ("", "0")


def run(capsys, *args):
    """Run the CLI in-process; it must succeed. Returns standard output."""
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_size_training_rule_from_issue(capsys, tmp_path):
    # A catalogue row at exactly 989 TFLOPS reproduces the sizing rule: 365 GPUs.
    csv = tmp_path / "acc.csv"
    csv.write_text(
        "name,vendor,segment,vram_gb,bf16_dense_tflops,source,as_of,confidence\n"
        "Rule-989,Example,datacenter-training,80,989,planning rule,2026,high\n"
    )
    out = run(
        capsys,
        "size",
        "training",
        "--params",
        "70e9",
        "--tokens",
        "2000B",
        "--accelerator",
        "Rule-989",
        "--accelerators-csv",
        str(csv),
        "--mfu",
        "0.45",
        "--goodput",
        "1",
        "--time-margin",
        "0",
        "--days",
        "60",
        "--gpus-per-server",
        "1",
        "--json",
    )
    result = json.loads(out)["results"]
    assert result["compute_bound_gpus"] == 365
    assert result["flops"] == pytest.approx(8.4e23)
    assert result["binding"] == "compute"


def test_size_training_default_json(capsys):
    out = run(capsys, "size", "training", "--json")
    data = json.loads(out)
    assert data["inputs"]["accelerator"] == "H100 SXM5 80GB"
    assert data["inputs"]["days"] == 15
    r = data["results"]
    assert (r["gpus"], r["binding"], r["model_state_gb"]) == (136, "compute", 1120.0)
    assert r["days"] == pytest.approx(1516.26 / 136, abs=0.01)
    assert data["findings"][0]["code"] == "binding_compute"


def test_size_training_solve_for_days(capsys):
    out = run(capsys, "size", "training", "--gpus", "32", "--json")
    r = json.loads(out)["results"]
    assert r["gpus"] == 32 and r["days"] == pytest.approx(47.38, abs=0.01)
    assert r["meets_deadline"] is False


def test_size_training_from_catalogue_model(capsys):
    # Llama-3.1-8B (8 030 261 248 params) on 1 T tokens: 6·N·D = 4.818e22 FLOP
    out = run(capsys, "size", "training", "--model", "Llama-3.1-8B", "--tokens", "1T", "--json")
    r = json.loads(out)["results"]
    assert r["flops"] == pytest.approx(6 * 8_030_261_248 * 1e12)


def test_size_inference_json(capsys):
    out = run(capsys, "size", "inference", "--json")
    data = json.loads(out)
    r = data["results"]
    assert r["kv_cache_bytes_per_token"] == 327_680
    assert (r["rule_gpus"], r["token_gpus"], r["gpus"], r["binding"]) == (5, 8, 8, "token_model")
    assert [o["tensor_parallel"] for o in data["tensor_parallel_options"]] == [1, 2, 4, 8]


def test_size_inference_architecture_flags(capsys):
    # 2 × 32 layers × 8 KV heads × 128 × 2 B = 131 072 B/token (Llama-3.1-8B shape)
    out = run(
        capsys,
        "size",
        "inference",
        "--params",
        "8e9",
        "--layers",
        "32",
        "--hidden-size",
        "4096",
        "--attention-heads",
        "32",
        "--kv-heads",
        "8",
        "--qps",
        "20",
        "--latency-s",
        "4",
        "--concurrency",
        "32",
        "--context-tokens",
        "2048",
        "--json",
    )
    r = json.loads(out)["results"]
    assert r["kv_cache_bytes_per_token"] == 131_072
    assert r["rule_gpus"] == 3  # 20 × 4 / 32 = 2.5 → 3


def test_catalog_json_has_every_column(capsys):
    out = run(capsys, "catalog", "accelerators", "--json")
    rows = json.loads(out)
    h100 = next(r for r in rows if r["name"] == "H100 SXM5 80GB")
    assert h100["bf16_dense_tflops"] == 989.5 and h100["source"]
    assert "price_usd" in h100 and "confidence" in h100
    out = run(capsys, "catalog", "models", "--json")
    assert any(r["name"] == "DeepSeek-V3" for r in json.loads(out))


def test_text_output_in_chinese(capsys):
    out = run(capsys, "size", "training", "--lang", "zh")
    assert "GPU 数" in out and "瓶颈在算力" in out


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (
            ["size", "training", "--mfu", "1.5"],
            "--mfu = 1.5: Input should be less than or equal to 1",
        ),
        (
            ["size", "training", "--accelerator", "H10"],
            "accelerator = 'H10': not in data/accelerators.csv; closest: H100",
        ),
        (["size", "training", "--params", "seventy"], "--params = 'seventy': must be a number"),
        (["size", "training", "--precision", "int8"], "force_marketing_figure"),
        (["size", "training", "--gpus", "2.5"], "--gpus = 2.5: must be a whole number"),
        (["size", "training", "--days", "5", "--gpus", "8"], "not allowed with argument --days"),
        (["size", "inference", "--model", "Llama-9"], "model = 'Llama-9': not in data/models.csv"),
        (["size", "training", "--scenario", "/nonexistent.yaml"], "cannot read /nonexistent.yaml"),
    ],
)
def test_errors_are_one_line_with_status_2(capsys, args, match):
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert match in err
    assert err.count("\n") == 1, err


def test_console_script_runs():
    out = subprocess.run(
        [sys.executable, "-m", "hubplan.cli", "plan"], capture_output=True, text=True, check=True
    )
    assert "fleet" in out.stdout and "dedicated" in out.stdout and "Spare servers" in out.stdout


def test_compare_json(capsys):
    out = run(capsys, "compare", "--candidates", "H100,B200,MI300X", "--json")
    data = json.loads(out)
    win = {r["workload"]: r["candidate"] for r in data["candidates"] if r["winner"]}
    # hand-worked in test_selection: MI300X 160 GPUs 3.12 M USD < B200 3.328 M < H100 5.304 M
    assert win["industry-70b-finetune"] == "MI300X 192GB"
    assert {r["candidate"] for r in data["compute_claims"]} == {
        "H100 SXM5 80GB",
        "B200 180GB",
        "MI300X 192GB",
    }


def test_compare_budget_and_unknown_candidate(capsys):
    out = run(capsys, "compare", "--candidates", "H100", "--budget-usd", "2.5e6", "--json")
    row = json.loads(out)["candidates"][0]
    assert row["budget_gpus"] == 64  # 2.5e6 / (8 × 39 000) → 8 servers
    assert main(["compare", "--candidates", "H100,X9"]) == 2
    assert "accelerator = 'X9'" in capsys.readouterr().err


def test_catalog_servers(capsys):
    rows = json.loads(run(capsys, "catalog", "servers", "--json"))
    dgx = next(r for r in rows if r["name"] == "DGX H100")
    assert (dgx["gpus"], dgx["ram_gb"], dgx["cpu_cores_total"]) == (8, 2048, 112)


def test_catalog_switches_and_storage(capsys, tmp_path):
    rows = json.loads(run(capsys, "catalog", "switches", "--json"))
    qm = next(r for r in rows if r["name"] == "QM9700")
    assert (qm["ports"], qm["typical_power_kw"]) == (64, 0.747)  # QM97x0 manual, Specifications
    assert "OceanStor A800" in run(capsys, "catalog", "storage")
    mine = tmp_path / "sw.csv"
    mine.write_text(
        "name,vendor,technology,ports,port_gbps,source,as_of,confidence\n"
        "X64,Acme,ethernet,64,400,Acme sheet,2026-11,medium\n"
    )
    rows = json.loads(run(capsys, "catalog", "switches", "--switches-csv", str(mine), "--json"))
    assert rows[-1]["name"] == "X64"
    bad = tmp_path / "st.csv"
    bad.write_text(
        "name,vendor,form,role,tiers,source,as_of,confidence\nX,A,server,oss,tepid,s,2026,high\n"
    )
    assert main(["catalog", "storage", "--storage-csv", str(bad)]) == 2
    assert "column tiers" in capsys.readouterr().err


# -- the CLI reads the Plan; flags come from the scenario's fields ---------------------------


def fail(capsys, *args):
    """Run the CLI; returns (exit status, stdout, stderr) whatever happens."""
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_every_scenario_field_is_a_flag():
    from hubplan.cli.main import build_parser
    from hubplan.scenario import InferenceService, PoolSpec, TrainingJob

    def options(*path):
        p = build_parser()
        for name in path:
            p = next(a for a in p._actions if a.dest in ("command", "what")).choices[name]
        return {s for a in p._actions for s in a.option_strings}

    train = options("size", "training")
    for field in set(TrainingJob.model_fields) - {"name", "architecture"}:
        assert "--" + field.replace("_", "-") in train, field
    for field in set(PoolSpec.model_fields) - {"custom_server", "existing_servers"}:
        assert "--" + field.replace("_", "-") in train, field
    served = options("size", "inference")
    for field in set(InferenceService.model_fields) - {"name", "architecture"}:
        assert "--" + field.replace("_", "-") in served, field
    # The README's short names stay, beside the derived ones.
    assert {"--qps", "--latency-s", "--concurrency", "--context-tokens"} <= served
    assert {"--headroom", "--gpus", "--days"} <= train
    assert {"--candidates", "--budget-usd", "--rank-by", "--mfu-scaling"} <= options("compare")


def test_derived_flag_sets_the_field(capsys):
    # --micro-batch was never a hand-written flag; it comes from TrainingJob.micro_batch.
    out = run(capsys, "size", "training", "--micro-batch", "2", "--json")
    assert json.loads(out)["inputs"]["micro_batch"] == 2
    out = run(capsys, "size", "training", "--quota", "preemptible", "--json")
    assert json.loads(out)["inputs"]["quota"] == "preemptible"


def test_help_shows_choices_and_ranges(capsys):
    code, out, _ = fail(capsys, "size", "training", "--help")
    assert code == 0
    assert "{full,lora,qlora}" in out and "> 0, <= 1" in out  # method; mfu's range


def test_readme_commands_work_as_written(capsys, tmp_path, monkeypatch):
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # commands that write files write them here
    hubplan.default_scenario().save(tmp_path / "my_client.yaml")  # the reader's own files
    pretrain = hubplan.core.paths.templates_dir() / "scenarios" / "pretrain-16k.yaml"
    hubplan.load_scenario(pretrain).save(tmp_path / "other_option.yaml")
    block = readme.split("### Command line", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [
        shlex.split(line.split("#", 1)[0])
        for line in block.splitlines()
        if line.startswith("hubplan ")
    ]
    assert len(commands) >= 9
    for cmd in commands:
        code, out, err = fail(capsys, *cmd[1:])
        assert code == 0, (cmd, err)
        assert out.strip()


# -- infeasible plans say so and exit 1 -------------------------------------------------------


def test_context_beyond_the_window_exits_1(capsys):
    code, out, err = fail(
        capsys, "size", "inference", "--model", "Llama-2-70B", "--context-tokens", "10M"
    )
    assert code == 1
    assert "exceeds Llama-2-70B's 4,096-token context window" in out
    assert err.startswith("hubplan: the plan has 2 error(s)") and err.count("\n") == 1
    assert "nan" not in out.lower()


def test_feasible_plan_exits_0_and_plan_with_errors_exits_1(capsys, tmp_path):
    assert fail(capsys, "plan")[0] == 0
    s = hubplan.default_scenario().with_changes({"workload.inference.0.prompt_tokens": 10_000})
    path = s.save(tmp_path / "long.yaml")  # Llama-2-70B: 10 256 tokens > 4 096
    code, _, err = fail(capsys, "plan", "--scenario", str(path))
    assert code == 1 and "context window" in err
    assert fail(capsys, "compare", "--scenario", str(path))[0] == 1


def test_gpus_that_miss_the_deadline_warn(capsys):
    out = run(capsys, "size", "training", "--gpus", "32")
    assert "[warning]" in out and "past its 15-day deadline" in out
    out = run(capsys, "size", "training", "--gpus", "136")
    assert "[warning]" not in out


def test_json_is_strict_json_even_with_nan(capsys):
    code, out, _ = fail(
        capsys, "size", "inference", "--model", "Llama-3.1-405B", "--accelerator", "L40S", "--json"
    )
    assert code == 1
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert data["results"]["token_gpus"] is None


# -- inputs that slip through ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["size", "training", "--params", "70GB"], "--params = '70GB': is a count, not bytes"),
        (
            ["size", "training", "--params", "-70B"],
            "--params = -70000000000.0: Input should be greater than 0",
        ),
        (["size", "training", "--tokens", "1e40"], "--tokens = 1e+40"),
        (["size", "inference", "--qps", "1e9"], "--qps = 1000000000.0"),
        (["compare", "--budget-usd", "1e15"], "--budget-usd = 1000000000000000.0"),
        (["size", "inference", "--context-tokens", "2.5k5"], "--context-tokens"),
        (["size", "training", "--zero-stage", "7"], "invalid choice"),
        (["size", "training", "--mfu", "0.7"], "--mfu-justification"),
    ],
)
def test_flag_errors_name_the_flag(capsys, args, match):
    code, _, err = fail(capsys, *args)
    assert code == 2
    assert match in err and err.count("\n") == 1, err
    assert "workload." not in err  # a flag, not the scenario path


def test_integer_flags_take_suffixes(capsys):
    out = run(capsys, "size", "inference", "--context-tokens", "2k", "--json")
    assert json.loads(out)["inputs"]["prompt_tokens"] == 2000


def test_changing_model_rederives_from_it(capsys):
    # The default job overrides params to 70e9 for Llama-2-70B; --model must drop that.
    out = run(capsys, "size", "training", "--model", "Llama-3.1-8B", "--json")
    data = json.loads(out)
    assert data["inputs"]["params"] is None and data["results"]["model"] == "Llama-3.1-8B"
    assert data["results"]["params"] == 8_030_261_248
    text = run(capsys, "size", "training", "--model", "Llama-3.1-8B")
    assert "Llama-3.1-8B" in text.splitlines()[0] and "TP " in text.splitlines()[1]


def test_yaml_boolean_in_scenario_is_exit_2(capsys, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "workload:\n  training:\n    - model: Llama-2-70B\n      tokens: 1T\n      days: yes\n"
    )
    code, _, err = fail(capsys, "size", "training", "--scenario", str(path))
    assert code == 2 and "not true/false" in err


# -- Chinese all the way ----------------------------------------------------------------------


def test_chinese_severity_yes_no_and_values(capsys):
    out = run(capsys, "size", "training", "--gpus", "32", "--lang", "zh")
    assert "[警告]" in out and "满足工期" in out
    assert "False" not in out and "否" in out
    assert "给定数量" in out  # binding 'given'


def test_chinese_errors_and_help(capsys):
    code, _, err = fail(capsys, "size", "training", "--mfu", "1.5", "--lang", "zh")
    assert code == 2 and "错误" in err and "应小于或等于 1" in err
    assert "Input should" not in err
    code, out, _ = fail(capsys, "size", "inference", "--help", "--lang", "zh")
    assert code == 0 and out.startswith("用法：") and "选项" in out
    assert "峰值每秒请求数" in out and "show this help" not in out
    code, _, err = fail(capsys, "size", "training", "--zero-stage", "7", "--lang", "zh")
    assert code == 2 and "无效选项" in err


def test_chinese_tables_align_by_display_width(capsys):
    from hubplan.cli.main import _width

    out = run(capsys, "catalog", "accelerators", "--lang", "zh")
    lines = out.splitlines()
    assert len({_width(line) for line in lines}) == 1, "columns drift with CJK headers"


# -- no traceback, whatever the input ---------------------------------------------------------

_VALUES = st.one_of(
    st.sampled_from(
        [
            "-1",
            "0",
            "1e40",
            "nan",
            "inf",
            "-inf",
            "70GB",
            "yes",
            "2k",
            "1.5",
            "",
            "Llama-9",
            "H100",
            "10M",
            "-70B",
            "1e-300",
            "abc",
            "0x10",
            "１０",
        ]
    ),
    st.text(max_size=8),
)
_FLAGS = [
    "--params",
    "--tokens",
    "--data-bytes",
    "--days",
    "--gpus",
    "--mfu",
    "--goodput",
    "--model",
    "--accelerator",
    "--gpus-per-server",
    "--zero-stage",
    "--epochs",
    "--tensor-parallel",
    "--headroom",
    "--method",
    "--micro-batch",
    "--seq-len-tokens",
]
_INF_FLAGS = [
    "--qps",
    "--latency-s",
    "--concurrency",
    "--context-tokens",
    "--output-tokens",
    "--model",
    "--accelerator",
    "--params",
    "--layers",
    "--kv-heads",
    "--max-batch",
    "--tensor-parallel",
    "--gpu-memory-utilization",
]


def _check_no_traceback(capsys, args):
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (args, code)
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1, (args, err)
    if "--json" in args and code in (0, 1):
        data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
        findings = data.get("findings", [])
        if any(f["severity"] == "error" for f in findings):
            assert code == 1, args  # never exit 0 with an error finding


@settings(
    max_examples=1000 if LONG else 150,
    deadline=None,
    derandomize=not LONG,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    kind=st.sampled_from(["training", "inference"]),
    picks=st.lists(st.tuples(st.integers(0, 100), _VALUES), min_size=1, max_size=4),
    as_json=st.booleans(),
    lang=st.sampled_from(["en", "zh"]),
)
def test_random_flags_never_traceback(capsys, kind, picks, as_json, lang):
    flags = _FLAGS if kind == "training" else _INF_FLAGS
    args = ["size", kind, "--lang", lang]
    for i, value in picks:
        args += [flags[i % len(flags)], value]
    if as_json:
        args.append("--json")
    _check_no_traceback(capsys, args)


_YAML_VALUES = st.one_of(
    st.sampled_from(
        [
            "yes",
            "no",
            "~",
            "-1",
            "1e40",
            ".nan",
            ".inf",
            "[]",
            "{}",
            "70GB",
            "'x'",
            "0",
            "2k",
            "[1, 2]",
        ]
    ),
    st.integers(-10, 10**16).map(str),
)
_PATHS = [
    "workload.training.0.days",
    "workload.training.0.params",
    "workload.training.0.tokens",
    "workload.training.0.mfu",
    "workload.inference.0.peak_qps",
    "workload.inference.0.prompt_tokens",
    "workload.development.developers",
    "pools.training.gpus_per_server",
    "pools.inference.accelerator",
    "accelerator.budget_usd",
    "server.ram_to_gpu_memory",
    "workload.overlap.policy",
]


@settings(
    max_examples=1000 if LONG else 150,
    deadline=None,
    derandomize=not LONG,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    edits=st.lists(st.tuples(st.sampled_from(_PATHS), _YAML_VALUES), min_size=1, max_size=3),
    command=st.sampled_from([["plan"], ["compare"], ["size", "training"], ["size", "inference"]]),
)
def test_random_scenarios_never_traceback(capsys, tmp_path_factory, edits, command):
    data = hubplan.default_scenario().to_dict()
    for dotted, value in edits:
        node = data
        *head, last = dotted.split(".")
        for key in head:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[last] = yaml.safe_load(value)
    path = tmp_path_factory.mktemp("s") / "s.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    _check_no_traceback(capsys, [*command, "--scenario", str(path), "--json"])


def test_plan_writes_the_scheduler_files(tmp_path):
    # slurm.conf for the default plan: the 18 DGX H100 of the training pool (17 + 1 spare)
    # are one node group with 8 H100 each (gres.conf(5) typed GPUs).
    out = subprocess.run(
        [sys.executable, "-m", "hubplan.cli", "plan", "--slurm", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "7 scheduler files written" in out.stdout
    conf = (tmp_path / "slurm.conf").read_text()
    assert "NodeName=train-[0001-0018]" in conf and "Gres=gpu:h100:8" in conf
    assert os.access(tmp_path / "prolog.sh", os.X_OK) and os.access(tmp_path / "qos.sh", os.X_OK)
    assert (
        "SwitchName=compute-su-01 Nodes=train-[0001-0018]"
        in (tmp_path / "topology.conf").read_text()
    )


def test_a_vanishing_load_still_gets_one_replica(capsys):
    # Found by the random-flag campaign: 1e-300 requests/s rounded to 0 replicas and
    # divided by zero. Any load at all needs one replica: one tensor-parallel instance.
    row = json.loads(run(capsys, "size", "inference", "--qps", "1e-300", "--json"))["results"]
    # Llama-2-70B's 140 GB of weights need two 80 GB H100s: one replica at TP 2; the
    # planning rule gives one GPU, not none; the pool rounds up to one 8-GPU server.
    assert (row["tensor_parallel"], row["token_gpus"], row["rule_gpus"]) == (2, 2, 1)
    assert (row["gpus"], row["servers"]) == (8, 1)


def test_make_lab_serves_the_scenarios_beside_the_notebooks():
    # The overview tells users to edit templates/scenarios/default.yaml from the file
    # browser; given only a notebook path, JupyterLab serves that notebook's folder.
    root = Path(__file__).resolve().parents[1]
    cmd = subprocess.run(
        ["make", "-n", "-C", str(root), "lab"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    lab = shlex.split(next(line for line in cmd if "jupyter lab" in line))
    served = Path(next(a.split("=", 1)[1] for a in lab if a.startswith("--ServerApp.root_dir=")))
    assert served.resolve() == root
    assert (served / lab[-1]).is_file() and (served / "templates/scenarios/default.yaml").is_file()


# -- start-up: --help answers without pandas ----------------------------------------------

_HEAVY = ("pandas", "numpy", "altair", "ipywidgets")


@pytest.mark.parametrize(
    "argv", [["--help"], ["plan", "--help"], ["size", "--help"], ["--help", "--lang", "zh"]]
)
def test_help_loads_no_pandas(argv):
    # A fresh interpreter: the test process has pandas loaded already. Before the lazy
    # imports, `import hubplan` alone loaded pandas and every stage (~1.5 s).
    code = (
        "import sys\n"
        "from hubplan.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n    assert exc.code == 0\n"
        f"print('LOADED', [m for m in {_HEAVY!r} if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True
    ).stdout
    assert "LOADED []" in out, out.splitlines()[-1]
    assert "usage" in out or "用法" in out


def test_import_hubplan_is_lazy_and_complete():
    code = (
        "import sys, hubplan\n"
        "assert 'pandas' not in sys.modules\n"
        "missing = [n for n in hubplan.__all__ if getattr(hubplan, n, None) is None]\n"
        "print(missing, callable(hubplan.build_plan), hubplan.scenario.__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["[]", "True", "hubplan.scenario"]


def test_the_full_parser_is_built_for_the_command_named():
    from hubplan.cli.main import _wanted

    assert _wanted(["size", "training", "--days", "30"]) == ("size", "training")
    assert _wanted(["plan", "my.yaml", "--json"]) == ("plan",)
    assert _wanted(["--help"]) == ()
    assert _wanted(["sise"]) == ()  # argparse names the unknown command


# -- what-ifs without editing YAML: --set ---------------------------------------------------


def test_plan_set_changes_the_plan(capsys):
    data = json.loads(run(capsys, "plan", "--set", "workload.training.0.days=30", "--json"))
    # 1 516.26 GPU-days (tests/test_workload.py) in 30 / 1.3 = 23.08 days → 65.7 → 66 GPUs
    # → 9 DGX H100 of 8 = 72 GPUs; + 1 spare server = 80 in the training pool.
    assert data["training"][0]["gpus"] == 72
    pools = {r["pool"]: r["total_gpus"] for r in data["pools"] if r["level"] == "pool"}
    assert pools == {"training": 80, "inference": 16, "development": 8}


def test_set_is_repeatable_and_takes_suffixes_and_null(capsys):
    out = run(
        capsys,
        "size",
        "training",
        "--set",
        "workload.training.0.tokens=1T",
        "--set",
        "workload.training.0.data_bytes=null",
        "--json",
    )
    r = json.loads(out)["results"]
    assert r["tokens"] == 1e12
    assert r["flops"] == pytest.approx(6 * 70e9 * 1e12)  # 6·N·D, N = 70e9 (Llama-2-70B)
    # A plain number field takes the suffixes its flag takes (--qps 2k): 2 000 requests/s.
    out = run(capsys, "size", "inference", "--set", "workload.inference.0.peak_qps=2k", "--json")
    assert json.loads(out)["inputs"]["peak_qps"] == 2000


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (
            "workload.training.0.dayz=30",
            "--set workload.training.0.dayz=30: unknown key; did you mean 'days'?",
        ),
        (
            "workload.training.0.days=abc",
            "--set workload.training.0.days=abc: Input should be a valid number",
        ),
        ("workload.training.0.days=0", "(allowed: days >= 0.1 and <= 3650)"),
        ("workload.training.7.days=3", "--set workload.training.7.days=3: no such field"),
        ("days", "'days': write PATH=VALUE"),
        (
            "workload.training.0.params=70GB",
            "--set workload.training.0.params=70GB: is a count, not bytes",
        ),
        (
            "workload.overlap.policy=pooled",
            "--set workload.overlap.policy=pooled: Input should be 'dedicated' or 'shared'",
        ),
    ],
)
def test_bad_set_is_one_line_with_status_2(capsys, value, match):
    for command in (["plan"], ["size", "training"]):
        code, _, err = fail(capsys, *command, "--set", value)
        assert code == 2
        assert match in err and err.count("\n") == 1, err


# -- scenarios side by side -----------------------------------------------------------------


def _figures(data):
    return {f["figure"]: f["values"] for f in data["figures"]}


def test_compare_one_file_before_and_after_set(capsys, tmp_path):
    path = hubplan.default_scenario().save(tmp_path / "client.yaml")
    out = run(capsys, "compare", str(path), "--set", "workload.training.0.days=30", "--json")
    data = json.loads(out)
    fig = _figures(data)
    # 144 + 16 + 8 GPUs today; 30 days: 80 + 16 + 8 (test_plan_set_changes_the_plan).
    # Servers: 18 + 2 + 1 = 21 against 10 + 2 + 1 = 13.
    assert fig["gpus"] == [168, 104] and fig["servers"] == [21, 13]
    assert fig["errors"] == [0, 0]
    # Both bills complete (data/prices.csv prices every line). The default capex is
    # 11 400 226.9 USD (worked line by line in test_cost_prices.py); 30 days buys 8 fewer
    # DGX H100: −8 × 270 000 = −2 160 000; per server 8 compute SR4 400G modules and 8
    # cables (−64 × 750, −64 × 100), 3 storage 400G modules and 2 cables (−24 × 750,
    # −16 × 100), 4 in-band 100G modules and 2 cables (−32 × 310, −16 × 35), 1 BMC RJ45
    # (−8 × 50): hardware −2 244 880; installation 10 % −224 488; spares 5 % of the
    # optics' −84 880 = −4 244; fit-out −8 × 10.2 kW × 11 700 = −954 720 → −3 428 332,
    # 7 971 894.9 USD (the leaves and spines of the rail-optimised unit stay).
    assert fig["capex_unpriced_lines"] == [0, 0]
    assert fig["capex_usd"] == pytest.approx([11_400_226.9, 7_971_894.9], abs=1)
    assert data["scenarios"][1]["set"] == {"workload.training.0.days": "30"}
    assert data["scenarios"][0]["name"] != data["scenarios"][1]["name"]


def test_compare_files_side_by_side_text_and_chinese(capsys, tmp_path):
    s = hubplan.default_scenario()
    a = s.save(tmp_path / "a.yaml")
    b = s.with_changes({"workload.training.0.days": 30}).save(tmp_path / "b.yaml")
    out = run(capsys, "compare", str(a), str(b))
    lines = out.splitlines()
    assert f"({a})" in lines[0] and f"({b})" in lines[0]  # one scenario name, two files
    gpus = next(line for line in lines if line.startswith("Total GPUs")).split()
    assert gpus[-2:] == ["168", "104"]
    assert any(line.startswith("Capex (all priced lines)") for line in lines)
    zh = run(capsys, "compare", str(a), str(b), "--lang", "zh")
    assert zh.startswith("指标") and "GPU 合计" in zh and "错误项" in zh


def test_compare_modes_do_not_mix(capsys, tmp_path):
    path = hubplan.default_scenario().save(tmp_path / "a.yaml")
    code, _, err = fail(capsys, "compare", str(path))
    assert code == 2 and "two or more SCENARIO files" in err
    code, _, err = fail(capsys, "compare", str(path), str(path), "--candidates", "H100")
    assert code == 2 and "--candidates: compares accelerators within one scenario" in err
    code, _, err = fail(capsys, "compare", str(path), "--scenario", str(path))
    assert code == 2 and err.count("\n") == 1
    code, out, _ = fail(capsys, "compare", "--help")
    assert code == 0 and "--candidates H100,B200" in out and "a.yaml b.yaml" in out


def test_compare_exits_1_naming_the_scenario_with_errors(capsys, tmp_path):
    ok = hubplan.default_scenario().save(tmp_path / "ok.yaml")
    s = hubplan.default_scenario().with_changes(
        {"name": "long prompts", "workload.inference.0.prompt_tokens": 10_000}
    )
    bad = s.save(tmp_path / "bad.yaml")  # Llama-2-70B: 10 256 tokens > its 4 096
    code, out, err = fail(capsys, "compare", str(ok), str(bad))
    assert code == 1 and err.startswith("hubplan: long prompts: the plan has")
    assert "Total GPUs" in out


# -- capex lines in the plan ------------------------------------------------------------------


def test_plan_prints_capex_lines_and_marks_unpriced(capsys):
    out = run(capsys, "plan")
    lines = out.splitlines()
    start = lines.index("Capex lines")
    table = lines[start + 1 : start + 33]
    assert "Unit price [USD]" in table[0] and "Line total [USD]" in table[0]
    # 18 DGX H100 (17 + 1 spare) × 270 000 USD (data/servers.csv) = 4 860 000 USD
    dgx = next(line for line in table if "training: DGX H100" in line).split()
    # line_quantity is "#,##0.##" (optional decimals): 18 servers read "18"
    assert dgx[-4:] == ["18", "server", "270,000.00", "4,860,000"]
    spine = next(line for line in table if "compute spine QM9700" in line).split()
    # 4 spines × 36 000 USD (data/prices.csv: FS.com, Aug 2024) = 144 000 USD
    assert spine[-2:] == ["36,000.00", "144,000"]
    # 2 UFM appliances × 34 000 USD (data/prices.csv estimate: the $17 000 1U server × 2)
    ufm = next(line for line in table if "compute ufm UFM" in line).split()
    assert ufm[-2:] == ["34,000.00", "68,000"]
    # every line priced: 11 400 226.9 USD (worked line by line in test_cost_prices.py)
    assert not any("unpriced" in line for line in table)
    # a complete bill says so, with its range: low 8 240 750.9, high 14 422 178.6
    # (test_cost_prices.py, line by line at the prices' low and high ends)
    assert (
        "Capex: 11,400,227 USD, every line priced (8,240,751 to 14,422,179 USD over the "
        "price ranges)"
    ) in out and "0 line(s) unpriced" not in out
    # a management server no source prices: its line and installation (a share of an
    # unknown) are marked unpriced, never 0, and left out of the total: 11 400 226.9
    # − 3 × 17 000 − 757 144 (10 % installation) = 10 592 082.9
    out = run(capsys, "plan", "--set", "facility.management_server_model=Acme 2U controller")
    mgmt = next(line for line in out.splitlines() if "management: Acme 2U controller" in line)
    assert mgmt.split()[-2:] == ["unpriced", "unpriced"]
    assert (
        "Capex of the priced lines: 10,592,083 USD; 2 line(s) unpriced, left out of the total"
    ) in out
    zh = run(
        capsys,
        "plan",
        "--lang",
        "zh",
        "--set",
        "facility.management_server_model=Acme 2U controller",
    )
    assert "资本支出明细" in zh and "未定价" in zh
