"""The command line: numbers, --json, catalogues, one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

from hubplan.cli import main


def run(capsys, *args):
    """Run the CLI in-process; it must succeed. Returns standard output."""
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_size_training_rule_from_issue(capsys, tmp_path):
    # A catalogue row at exactly 989 TFLOPS reproduces the sizing rule: 365 GPUs.
    csv = tmp_path / "acc.csv"
    csv.write_text("name,vendor,segment,vram_gb,bf16_dense_tflops,source,as_of,confidence\n"
                   "Rule-989,Example,datacenter-training,80,989,planning rule,2026,high\n")  # fmt: skip
    out = run(capsys, "size", "training", "--params", "70e9", "--tokens", "2000B",
                       "--accelerator", "Rule-989", "--accelerators-csv", str(csv),
                       "--mfu", "0.45", "--goodput", "1", "--time-margin", "0",
                       "--days", "60", "--gpus-per-server", "1", "--json")  # fmt: skip
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
    out = run(capsys, "size", "training", "--model", "Llama-3.1-8B", "--tokens", "1T",
                       "--json")  # fmt: skip
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
    out = run(capsys, "size", "inference", "--params", "8e9", "--layers", "32",
                       "--hidden-size", "4096", "--attention-heads", "32", "--kv-heads", "8",
                       "--qps", "20", "--latency-s", "4", "--concurrency", "32",
                       "--context-tokens", "2048", "--json")  # fmt: skip
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
    assert "GPU 数" in out and "算力是约束" in out


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
    out = subprocess.run([sys.executable, "-m", "hubplan.cli", "plan"], capture_output=True,
                         text=True, check=True)  # fmt: skip
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
