"""The shipped catalogues: provenance, physical sanity, lookups, user overrides."""

import math

import pytest

import hubplan
from hubplan.core.catalog import peak_tflops

PRECISIONS = [("tf32", "tflops"), ("bf16", "tflops"), ("fp8", "tflops"), ("int8", "tops"),
              ("fp4", "tflops")]  # fmt: skip

REQUIRED = ["H100 SXM5 80GB", "H100 PCIe 80GB", "H100 NVL 94GB", "H200 SXM 141GB",
            "H800 SXM5 80GB", "H20 96GB", "A100 SXM4 80GB", "A100 PCIe 40GB", "A800 SXM4 80GB",
            "L40S 48GB", "L20 48GB", "L4 24GB", "B200 180GB", "B300 288GB", "GB200 186GB",
            "MI300X 192GB", "MI325X 256GB", "MI355X 288GB", "Gaudi 3 128GB",
            "Ascend 910B 64GB", "Ascend 910C 128GB"]  # fmt: skip


def test_required_accelerators_present(catalog):
    assert set(REQUIRED) <= set(catalog.accelerators["name"])


def test_every_row_has_provenance(catalog):
    for df in (catalog.accelerators, catalog.models):
        assert (df["source"].str.len() > 10).all()
        assert df["as_of"].str.match(r"^\d{4}(-\d{2}){0,2}$").all()
        assert df["confidence"].isin(["high", "medium", "low"]).all()


@pytest.mark.parametrize(("precision", "unit"), PRECISIONS)
def test_dense_never_exceeds_sparse(catalog, precision, unit):
    acc = catalog.accelerators
    dense, sparse = acc[f"{precision}_dense_{unit}"], acc[f"{precision}_sparse_{unit}"]
    both = dense.notna() & sparse.notna()
    assert both.any()
    assert (dense[both] <= sparse[both]).all()


def test_lower_precision_is_not_slower(catalog):
    acc = catalog.accelerators
    for hi, lo in (("tf32_dense_tflops", "bf16_dense_tflops"),
                   ("bf16_dense_tflops", "fp8_dense_tflops")):  # fmt: skip
        both = acc[hi].notna() & acc[lo].notna()
        assert (acc.loc[both, lo] >= acc.loc[both, hi]).all(), (hi, lo)


def test_physical_ranges(catalog):
    acc = catalog.accelerators
    assert (acc["vram_gb"] > 0).all()
    assert acc["mem_bw_tb_s"].dropna().between(0.1, 20).all()
    assert acc["tdp_w"].dropna().between(50, 3000).all()
    assert acc["bf16_dense_tflops"].dropna().between(50, 5000).all()
    assert acc["scaleup_domain_gpus"].dropna().ge(1).all()


def test_published_h100_figures(catalog):
    # NVIDIA H100 SXM datasheet: BF16 1 979 TFLOPS "with sparsity"; dense is half, 989.5.
    h100 = catalog.accelerator("H100 SXM5 80GB")
    assert peak_tflops(h100, "bf16") == 989.5
    assert peak_tflops(h100, "bf16", sparse=True) == 1979
    assert peak_tflops(h100, "fp16") == 989.5  # FP16 and BF16 share the tensor peak
    assert peak_tflops(h100, "int8", sparse=True) == 3958  # the "TOPS" marketing figure
    assert h100["vram_gb"] == 80 and h100["mem_bw_tb_s"] == 3.35 and h100["tdp_w"] == 700


def test_models_match_published_configs(catalog):
    m = catalog.models.set_index("name")
    # Llama-2-70B config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads, vocab 32000
    assert tuple(m.loc["Llama-2-70B", ["layers", "hidden_size", "attention_heads", "kv_heads",
                                       "vocab_size"]]) == (80, 8192, 64, 8, 32000)  # fmt: skip
    # DeepSeek-V3 report: 671 B total, 37 B activated; MLA kv_lora_rank 512
    assert m.loc["DeepSeek-V3", "total_params"] == 671e9
    assert m.loc["DeepSeek-V3", "active_params"] == 37e9
    assert m.loc["DeepSeek-V3", "kv_lora_rank"] == 512


def test_model_params_agree_with_architecture(catalog):
    # Dense Llama-style count from the shape (untied embeddings, bias-free): within 3 %.
    for _, r in catalog.models[catalog.models["architecture"] == "dense"].iterrows():
        h, layers, ffn = r["hidden_size"], r["layers"], r["ffn_hidden_size"]
        kv = r["kv_heads"] * r["head_dim"]
        q = r["attention_heads"] * r["head_dim"]
        est = layers * (h * q * 2 + h * kv * 2 + 3 * h * ffn) + 2 * r["vocab_size"] * h
        assert est == pytest.approx(r["total_params"], rel=0.03), r["name"]


def test_lookup_by_alias_and_case(catalog):
    assert catalog.accelerator("h100")["name"] == "H100 SXM5 80GB"
    assert catalog.model("llama-2-70b")["name"] == "Llama-2-70B"


def test_unknown_name_lists_closest(catalog):
    with pytest.raises(hubplan.CatalogError, match=r"'H10'.*closest: H100 SXM5 80GB"):
        catalog.accelerator("H10")
    with pytest.raises(hubplan.CatalogError, match="Llama-2-70B"):
        catalog.model("llama2 70b")


HEADER = ("name,aliases,vendor,segment,vram_gb,bf16_dense_tflops,mem_bw_tb_s,source,as_of,"
          "confidence")  # fmt: skip


def test_user_rows_add_and_override(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(
        HEADER + "\n"
        "H100 SXM5 80GB,,NVIDIA,datacenter-training,80,900,3.35,my bench,2026-11-01,high\n"
        "X1 64GB,x1,Acme,datacenter-training,64,500,2.0,Acme sheet,2026-10,medium\n",
        encoding="utf-8",
    )
    cat = hubplan.load_catalog(accelerators=path)
    assert peak_tflops(cat.accelerator("H100 SXM5 80GB"), "bf16") == 900
    assert cat.accelerator("x1")["vram_gb"] == 64
    assert len(cat.accelerators) == len(hubplan.load_catalog().accelerators) + 1
    # the shipped catalogue is untouched
    assert peak_tflops(hubplan.load_catalog().accelerator("H100 SXM5 80GB"), "bf16") == 989.5


@pytest.mark.parametrize(
    ("row", "match"),
    [
        (
            "X,,A,datacenter-training,lots,1,1,s,2026,high",
            r"mine\.csv, line 2, column vram_gb: 'lots'",
        ),
        ("X,,A,datacenter-training,,1,1,s,2026,high", r"line 2, column vram_gb: required"),
        ("X,,A,gaming,8,1,1,s,2026,high", r"line 2, column segment: 'gaming' is not one of"),
        ("X,,A,datacenter-training,-8,1,1,s,2026,high", r"column vram_gb: '-8' must be >= 0"),
        ("X,,A,datacenter-training,8,1,1,s,2026,sure", r"column confidence: 'sure'"),
    ],
)
def test_bad_user_csv_names_file_line_column(tmp_path, row, match):
    path = tmp_path / "mine.csv"
    path.write_text(HEADER + "\n" + row + "\n", encoding="utf-8")
    with pytest.raises(hubplan.CatalogError, match=match):
        hubplan.load_catalog(accelerators=path)


def test_bad_user_csv_unknown_column(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(
        HEADER.replace("vram_gb", "vram") + "\nX,,A,datacenter-training,8,1,1,s,2026,high\n"
    )
    with pytest.raises(
        hubplan.CatalogError, match=r"unknown column\(s\) 'vram' \(did you mean 'vram_gb'\?\)"
    ):
        hubplan.load_catalog(accelerators=path)


def test_missing_figure_is_never_guessed(catalog):
    # H800: only dense BF16 is sourced (DeepSeek FlashMLA notes); sparse is empty.
    h800 = catalog.accelerator("H800 SXM5 80GB")
    assert math.isnan(h800["bf16_sparse_tflops"])
    with pytest.raises(hubplan.CatalogError, match="no sourced sparse bf16 figure"):
        peak_tflops(h800, "bf16", sparse=True)
