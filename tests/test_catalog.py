"""The shipped catalogues: provenance, physical sanity, lookups, user overrides."""

import math
import re

import pytest

import hubplan
from hubplan.core.catalog import peak_tflops

PRECISIONS = [
    ("tf32", "tflops"),
    ("bf16", "tflops"),
    ("fp16", "tflops"),
    ("fp8", "tflops"),
    ("int8", "tops"),
    ("fp4", "tflops"),
]

REQUIRED = [
    "H100 SXM5 80GB",
    "H100 PCIe 80GB",
    "H100 NVL 94GB",
    "H200 SXM 141GB",
    "H800 SXM5 80GB",
    "H20 96GB",
    "A100 SXM4 80GB",
    "A100 PCIe 40GB",
    "A800 SXM4 80GB",
    "L40S 48GB",
    "L20 48GB",
    "L4 24GB",
    "B200 180GB",
    "B300 288GB",
    "GB200 186GB",
    "MI300X 192GB",
    "MI325X 256GB",
    "MI355X 288GB",
    "Gaudi 3 128GB",
    "Ascend 910B 64GB",
    "Ascend 910C 128GB",
]


def test_required_accelerators_present(catalog):
    assert set(REQUIRED) <= set(catalog.accelerators["name"])


def test_every_row_has_provenance(catalog):
    for df in (
        catalog.accelerators,
        catalog.models,
        catalog.servers,
        catalog.switches,
        catalog.storage,
    ):
        assert (df["source"].str.len() > 10).all()
        assert df["as_of"].str.match(r"^\d{4}(-\d{2}){0,2}$").all()
        assert df["confidence"].isin(["high", "medium", "low"]).all()


#: Citations a reader cannot follow: no document, only a pointer into someone's tooling.
UNFOLLOWABLE = re.compile(
    r"recalled|spreadsheet|look-?up id|index id|file id|search-index|internal|digest"
    r"|planning note|public note|research note|secondary listing|unnamed|a public github file",
    re.IGNORECASE,
)


@pytest.mark.parametrize("table", ["accelerators", "models", "servers", "switches", "storage"])
def test_every_source_is_followable(catalog, table):
    df = getattr(catalog, table)
    cols = [c for c in ("source", "price_source", "params_source") if c in df]
    for _, row in df.iterrows():
        assert row["source"].strip(), row["name"]
        for col in cols:
            hit = UNFOLLOWABLE.search(row[col])
            assert hit is None, f"{table} {row['name']!r} {col}: {hit.group(0)!r}"
        # a price needs its own source
        if "price_usd" in df and not math.isnan(row["price_usd"]):
            assert len(row["price_source"]) > 10, row["name"]


def test_unfollowable_source_is_caught():
    assert UNFOLLOWABLE.search("HF config via search-index file id 77689")
    assert UNFOLLOWABLE.search("quote in a public GPU-cluster cost spreadsheet")
    assert not UNFOLLOWABLE.search("NVIDIA DGX B200 User Guide (https://docs.nvidia.com/dgx/)")


@pytest.mark.parametrize(("precision", "unit"), PRECISIONS)
def test_dense_never_exceeds_sparse(catalog, precision, unit):
    acc = catalog.accelerators
    dense, sparse = acc[f"{precision}_dense_{unit}"], acc[f"{precision}_sparse_{unit}"]
    both = dense.notna() & sparse.notna()
    assert both.any()
    assert (dense[both] <= sparse[both]).all()


def test_lower_precision_is_not_slower(catalog):
    acc = catalog.accelerators
    for hi, lo in (
        ("tf32_dense_tflops", "bf16_dense_tflops"),
        ("bf16_dense_tflops", "fp8_dense_tflops"),
    ):
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
    assert peak_tflops(h100, "fp16") == 989.5  # NVIDIA lists FP16 = BF16 (own column)
    assert peak_tflops(h100, "int8", sparse=True) == 3958  # the "TOPS" marketing figure
    assert h100["vram_gb"] == 80 and h100["mem_bw_tb_s"] == 3.35 and h100["tdp_w"] == 700


def test_models_match_published_configs(catalog):
    m = catalog.models.set_index("name")
    # Llama-2-70B config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads, vocab 32000
    assert tuple(
        m.loc["Llama-2-70B", ["layers", "hidden_size", "attention_heads", "kv_heads", "vocab_size"]]
    ) == (80, 8192, 64, 8, 32000)
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


HEADER = "name,aliases,vendor,segment,vram_gb,bf16_dense_tflops,mem_bw_tb_s,source,as_of,confidence"


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


# ---- Corrections from the catalogue review (issue 8), each pinned with its source ----


def test_fp16_is_never_read_from_bf16(catalog):
    # ml-engineering TFLOPS table (compute/accelerator/README.md): Gaudi 3 fp16 459, bf16 1677.
    gaudi = catalog.accelerator("Gaudi 3 128GB")
    assert peak_tflops(gaudi, "fp16") == 459
    assert peak_tflops(gaudi, "bf16") == 1677  # 1600 MHz x 256x256 x 2 x 8 MMEs; not 1835
    assert peak_tflops(gaudi, "fp8") == 1677
    # Intel Gaudi network configuration docs: 21 scale-up ports x 200 Gb/s = 525 GB/s a way
    assert gaudi["scaleup_bw_gb_s"] == 21 * 200 / 8 * 2
    # a row with BF16 but no FP16 figure stops and says so, rather than substituting
    br100 = catalog.accelerator("BR100")
    assert peak_tflops(br100, "bf16") == 1024
    with pytest.raises(hubplan.CatalogError, match=r"no sourced dense fp16 figure.*not used"):
        peak_tflops(br100, "fp16")


def test_user_csv_without_fp16_column_does_not_fall_back(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(
        HEADER + "\nX1 64GB,x1,Acme,datacenter-training,64,500,2.0,Acme sheet,2026-10,medium\n"
    )
    x1 = hubplan.load_catalog(accelerators=path).accelerator("x1")
    with pytest.raises(hubplan.CatalogError, match="fp16_dense_tflops"):
        peak_tflops(x1, "fp16")


@pytest.mark.parametrize(
    ("name", "fp16", "bf16", "int8"),
    [  # Huawei Ascend/msmodeling tensor_cast/device.py, ATLAS_800 profiles
        ("Ascend 910B 376T 64GB", 376, 353.9, 752),  # ATLAS_800_A2_376T_64G
        ("Ascend 910B 64GB", 313, 294.9, 626),  # ATLAS_800_A2_313T_64G (named default)
        ("Ascend 910B 280T 64GB", 280, 245.8, 560),  # ATLAS_800_A2_280T_64G
        ("Ascend 910C 128GB", 752, 707.8, 1504),  # 2 x ATLAS_800_A3_752T_128G_DIE
    ],
)
def test_ascend_figures_follow_huawei_profiles(catalog, name, fp16, bf16, int8):
    acc = catalog.accelerator(name)
    assert peak_tflops(acc, "fp16") == fp16
    assert peak_tflops(acc, "bf16") == bf16
    assert peak_tflops(acc, "int8") == int8
    assert acc["mem_bw_tb_s"] > 0  # 1.6 TB/s per die: 910B inference plans no longer stop
    assert catalog.accelerator("910B")["name"] == "Ascend 910B 64GB"


def test_export_market_fp8(catalog):
    # Hopper FP8 = 2 x BF16 dense: H800 1979 (DeepGEMM measures > 1550 on H800), H20 296
    assert peak_tflops(catalog.accelerator("H800"), "fp8") == 1979
    assert peak_tflops(catalog.accelerator("H20"), "fp8") == 296
    assert catalog.accelerator("A800 PCIe 40GB")["memory_type"] == "HBM2"
    assert catalog.accelerator("B200")["mem_bw_tb_s"] == 8.0  # DGX B200: 64 TB/s / 8


def test_server_corrections(catalog):
    # NVIDIA DPS device specifications: DGX_GB200 compute tray maxLoadWatts 6667
    assert catalog.server("DGX GB200 compute tray")["max_power_kw"] == 6.667
    rack = catalog.server("GB200 NVL72 rack")["max_power_kw"]
    assert 18 * 6.667 < rack <= 132  # trays alone are 120 kW; plus switch trays and losses
    # heise/Intel launch table: Xeon 6776P is 64 cores, 2.3 GHz base; two per DGX B300
    b300 = catalog.server("DGX B300")
    assert (b300["cpu_cores_total"], b300["cpu_base_ghz"]) == (128, 2.3)
    # 2 dual-port storage cards, each on PCIe Gen5 x16 (~504 Gb/s a way): not 4 x 400
    dgx = catalog.server("DGX H100")
    assert dgx["storage_usable_gbps"] < dgx["storage_nics"] * dgx["storage_nic_gbps"]
    assert 800 <= dgx["storage_usable_gbps"] <= 1008


def test_unpriced_rows_load_with_nan_price(catalog):
    for name in ("Ascend 910B 64GB", "MLU370-X8", "MTT S4000", "MetaX C500", "MI325X"):
        assert math.isnan(catalog.accelerator(name)["price_usd"]), name


def _mla_moe(h, layers, heads, vocab, experts, top_k, moe_ffn, dense_ffn, dense_layers):
    """Total and active parameters of a DeepSeek-V3-style MLA MoE from its config.json.

    Constants shared by DeepSeek-V3/R1 and Kimi-K2 configs: q_lora_rank 1536,
    kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head 128, one shared expert, untied
    embeddings, a biased router.
    """
    attn = (
        h * 1536
        + 1536
        + 1536 * heads * 192
        + h * 576
        + 512
        + 512 * heads * 256
        + heads * 128 * h
        + 2 * h
    )
    full = (experts + 1) * 3 * h * moe_ffn + experts * (h + 1)
    act = (top_k + 1) * 3 * h * moe_ffn + experts * (h + 1)
    common = layers * attn + dense_layers * 3 * h * dense_ffn + 2 * vocab * h + h
    moe_layers = layers - dense_layers
    return common + moe_layers * full, common + moe_layers * act


def _gqa_moe(r, dense_ffn=0, dense_layers=0, shared=0, qkv_bias=False, qk_norm=True):
    h, hd = r["hidden_size"], r["head_dim"]
    q, kv = r["attention_heads"] * hd, r["kv_heads"] * hd
    attn = 2 * h * q + 2 * h * kv + (q + 2 * kv) * qkv_bias + 2 * hd * qk_norm + 2 * h
    e, k, m = r["moe_experts"], r["moe_active_experts"], r["ffn_hidden_size"]
    full = (e + shared) * 3 * h * m + e * h
    act = (k + shared) * 3 * h * m + e * h
    common = r["layers"] * attn + dense_layers * 3 * h * dense_ffn + 2 * r["vocab_size"] * h + h
    moe_layers = r["layers"] - dense_layers
    return common + moe_layers * full, common + moe_layers * act


def test_new_models_match_their_configs(catalog):
    m = catalog.models.set_index("name")
    # DeepSeek-V3 config (and R1, same shapes): 671,026,419,200 total, 37.55 B active
    assert _mla_moe(7168, 61, 128, 129280, 256, 8, 2048, 18432, 3)[0] == 671_026_419_200
    assert tuple(m.loc["DeepSeek-R1", ["layers", "kv_lora_rank", "moe_experts"]]) == (61, 512, 256)
    # Kimi-K2 config: 64 heads, 384 experts top-8, 1 dense layer, vocab 163840
    k2 = m.loc["Kimi-K2"]
    total, active = _mla_moe(7168, 61, 64, 163840, 384, 8, 2048, 18432, 1)
    assert (k2["total_params"], k2["active_params"]) == (total, active)
    assert total == pytest.approx(1.04e12, rel=0.02)  # Kimi K2 report: 1.04 T total
    assert active == pytest.approx(32.6e9, rel=0.02)  # 32.6 B activated
    # GLM-4.5 config: 160 experts + 1 shared, 3 dense layers, QKV bias; card 355 B / 32 B
    glm = m.loc["GLM-4.5"]
    total, active = _gqa_moe(glm, 12288, 3, shared=1, qkv_bias=True, qk_norm=False)
    assert (glm["total_params"], glm["active_params"]) == (total, active)
    assert total == pytest.approx(355e9, rel=0.02)
    assert active - 2 * 151552 * 5120 == pytest.approx(32e9, rel=0.02)  # card excludes embeddings
    # Qwen3 MoE configs: no shared expert, QK-norm
    for name, published in (("Qwen3-30B-A3B", (30.5e9, 3.3e9)), ("Qwen3-235B-A22B", (235e9, 22e9))):
        total, active = _gqa_moe(m.loc[name])
        assert (m.loc[name, "total_params"], m.loc[name, "active_params"]) == (total, active)
        assert (total, active) == pytest.approx(published, rel=0.02), name
    # Qwen3 dense (QK-norm, untied): 8.19 B, 14.77 B, 32.76 B
    for name, published in (("Qwen3-8B", 8.2e9), ("Qwen3-14B", 14.8e9), ("Qwen3-32B", 32.8e9)):
        assert m.loc[name, "total_params"] == pytest.approx(published, rel=0.01), name


# ---- Switches and storage building blocks: part of the Catalog (issues 9 and 10) ----


def test_switch_power_and_height_from_vendor_specifications(catalog):
    # QM97x0 hardware user manual, "Specifications": QM9700 1.72 kW maximum with active
    # cables, 0.747 kW typical with passive cables, 1U (read through RackulaLives/Rackula
    # docs/research/3287-external.md, commit 6867e831).
    qm = catalog.switch("MQM9700-NS2F")
    assert (qm["rack_units"], qm["max_power_kw"], qm["typical_power_kw"]) == (1, 1.72, 0.747)
    # 64 OSFP112 Class 8 modules alone are 32 cages x 17 W = 0.544 kW (Interfaces page):
    # the 1.72 kW maximum with active cables must cover them on top of the typical draw.
    assert qm["max_power_kw"] - qm["typical_power_kw"] >= 32 * 17 / 1000
    # SN5000 hardware user manual, "Specifications": SN5600 2U, 0.94 kW typical (passive)
    sn56 = catalog.switch("SN5600")
    assert (sn56["rack_units"], sn56["typical_power_kw"]) == (2, 0.94)
    # SN4000 hardware user manual / SN4000 datasheet: SN4600C 2U, 0.466 kW typical
    assert tuple(catalog.switch("SN4600C")[["rack_units", "typical_power_kw"]]) == (2, 0.466)
    # SN2201 user manual, "Specifications": 1U, 0.098 kW typical
    assert tuple(catalog.switch("SN2201")[["rack_units", "typical_power_kw"]]) == (1, 0.098)


def test_unpublished_switch_figures_stay_empty(catalog):
    # The Spectrum specification pages publish only a typical figure: no maximum is guessed.
    for name in ("SN5600", "SN4600C", "SN2201"):
        assert math.isnan(catalog.switch(name)["max_power_kw"]), name
    # No list price or published quote for any switch or storage block: empty, and said so.
    for df in (catalog.switches, catalog.storage):
        assert df["price_usd"].isna().all()
        assert df["notes"].str.contains("price", case=False).all()
    # Q3400: 4U from the NetBox device type Q3400-RA.yaml (commit edd51b57, which cites the
    # Quantum-X800 user manual); its 8 x 875 W are PSU ratings, so no power is read from them.
    q3400 = catalog.switch("Q3400")
    assert q3400["rack_units"] == 4
    assert math.isnan(q3400["max_power_kw"]) and math.isnan(q3400["typical_power_kw"])


def test_switch_and_storage_lookups(catalog):
    assert catalog.switch("spectrum-4 sn5600")["name"] == "SN5600"
    assert catalog.storage_block("ai400x2t")["name"] == "DDN AI400X2T"
    with pytest.raises(
        hubplan.CatalogError,
        match=r"network.compute_switch = 'QM970': not in data/switches.csv; "
        r"closest: QM9700",
    ):
        catalog.switch("QM970", "network.compute_switch")
    with pytest.raises(hubplan.CatalogError, match=r"^storage = 'DDN'.*data/storage.csv"):
        catalog.storage_block("DDN")


SWITCH_HEADER = (
    "name,vendor,technology,ports,port_gbps,rack_units,typical_power_kw,source,as_of,confidence"
)
STORAGE_HEADER = "name,vendor,form,role,tiers,read_gb_s,raw_tb,source,as_of,confidence"


def test_user_switch_and_storage_rows_override(tmp_path):
    sw, st = tmp_path / "sw.csv", tmp_path / "st.csv"
    sw.write_text(
        SWITCH_HEADER + "\nQM9700,NVIDIA,infiniband,64,400,1,0.8,my meter,2026-12,high\n"
        "X64,Acme,ethernet,64,400,2,1.1,Acme sheet,2026-11,medium\n"
    )
    st.write_text(
        STORAGE_HEADER + "\nDDN AI400X2T,DDN,appliance,appliance,hot,90,369.4,"
        "DDN quote,2026-12,medium\n"
    )
    base = hubplan.load_catalog()
    mine = hubplan.load_catalog(switches=sw, storage=st)
    assert mine.switch("QM9700")["typical_power_kw"] == 0.8
    assert mine.switch("x64")["ports"] == 64
    assert len(mine.switches) == len(base.switches) + 1
    assert mine.storage_block("DDN AI400X2T")["read_gb_s"] == 90
    assert base.switch("QM9700")["typical_power_kw"] == 0.747  # shipped rows untouched
    assert mine.fingerprint != base.fingerprint
    # the stage cache keys on the fingerprint: the network and storage stages rerun
    default = hubplan.default_scenario()
    hubplan.build_plan(default, base)
    plan = hubplan.build_plan(default, mine)
    assert {"storage", "network"} <= set(plan.stages_run)
    leaf = plan["switches"].query("plane == 'compute' and role == 'leaf'")
    assert (leaf["typical_power_kw"] == 0.8).all()


@pytest.mark.parametrize(
    ("which", "text", "match"),
    [
        (
            "switches",
            SWITCH_HEADER + "\nX,A,omnipath,48,100,1,1,s,2026,high",
            r"sw\.csv, line 2, column technology: 'omnipath' is not one of ethernet, infiniband",
        ),
        (
            "switches",
            SWITCH_HEADER + "\nX,A,ethernet,many,100,1,1,s,2026,high",
            r"line 2, column ports: 'many' is not a number",
        ),
        (
            "storage",
            STORAGE_HEADER + "\nX,A,server,oss,hot;lukewarm,1,1,s,2026,high",
            r"st\.csv, line 2, column tiers: \['lukewarm'\] not in hot, warm, cold",
        ),
        (
            "storage",
            STORAGE_HEADER + "\nX,A,server,cache,hot,1,1,s,2026,high",
            r"line 2, column role: 'cache' is not one of appliance, capacity, mds, object, oss",
        ),
    ],
)
def test_bad_switch_or_storage_csv_names_file_line_column(tmp_path, which, text, match):
    path = tmp_path / ("sw.csv" if which == "switches" else "st.csv")
    path.write_text(text + "\n")
    with pytest.raises(hubplan.CatalogError, match=match):
        hubplan.load_catalog(**{which: path})


# -- grid emission factors (data/grid_carbon.csv) ---------------------------------------


def test_grid_factors_are_the_published_ones():
    cat = hubplan.load_catalog()
    # MEE/NBS release (Dec 2024): China 2022 national 0.5366, Yunnan 0.1073, Hebei 0.7252
    assert cat.grid_factor("china_2022") == 0.5366
    assert cat.grid_factor("china_yunnan_2022") == 0.1073
    assert cat.grid_factor("china_hebei_2022") == 0.7252
    # US EIA: 0.86 lb/kWh × 0.45359 kg/lb = 0.3901 kg/kWh, stored to three places
    assert cat.grid_factor("us_2022") == pytest.approx(0.86 * 0.45359, abs=5e-4)
    with pytest.raises(
        hubplan.HubplanError,
        match=r"grid region 'mars' is not in "
        r"data/grid_carbon.csv \(known: china_2022, ",
    ):
        cat.grid_factor("mars")


def test_every_grid_region_a_scenario_may_name_has_a_factor():
    from typing import get_args

    from hubplan.cost.section import Cost

    allowed = set(get_args(Cost.model_fields["grid_region"].annotation))
    assert allowed == set(hubplan.load_catalog().grid_carbon["name"])


def test_the_plan_emits_its_energy_times_the_catalogue_factor():
    plan = hubplan.build_plan(hubplan.default_scenario(), until="cost")
    s = plan["cost_summary"].iloc[0]
    # 2 161.5927 MWh a year (tests/test_cost.py) × 0.5366 t/MWh (China 2022) = 1 159.91 t
    assert s["co2_t_per_year"] == pytest.approx(1159.91, abs=0.01)


def test_a_grid_factor_out_of_range_is_refused(tmp_path):
    from hubplan.core.catalog import GRID_CARBON_SCHEMA, _check_grid_carbon, read_table

    path = tmp_path / "grid.csv"
    path.write_text(
        "name,kg_co2_per_kwh,year,source,as_of,confidence\nx,537,2022,MEE,2024-12,high\n"
    )  # g/kWh typed where kg/kWh belongs
    with pytest.raises(hubplan.HubplanError, match=r"line 2, column kg_co2_per_kwh: 537"):
        _check_grid_carbon(read_table(path, GRID_CARBON_SCHEMA), path)


# -- acceptance figures measured on real systems, driver branches, device plugins ----------


def test_measured_acceptance_figures_are_the_published_ones():
    cat = hubplan.load_catalog()
    # nccl-tests issue #212: ~480 GB/s all_reduce bus bandwidth on 8 × H100 with NVLS;
    # issue #272: 475 GB/s on 8 × H200
    assert cat.measured("nvlink_all_reduce", "H100 SXM5 80GB") == (480.0, "nccl_tests_212")
    assert cat.measured("nvlink_all_reduce", "H200 SXM 141GB") == (475.0, "nccl_tests_272")
    # MLPerf Inference v3.1, DGX H100: ~49 GB/s per GPU-NIC pair = 392 Gb/s on a 400G port
    assert cat.measured("rdma_write_bw", "400") == (392.0, "nvidia_dgx_h100_gdr")
    # nothing published for B200's NVLink or an 800G port: the acceptance plan derives them
    assert cat.measured("nvlink_all_reduce", "B200 180GB") is None
    assert cat.measured("rdma_write_bw", "800") is None


def test_the_acceptance_plan_uses_the_measured_figure_where_there_is_one():
    plan = hubplan.build_plan(hubplan.default_scenario(), until="delivery")
    acc = plan["acceptance"]
    nvlink = acc[(acc["test"] == "nvlink_all_reduce") & (acc["pool"] == "training")].iloc[0]
    assert (nvlink["expected"], nvlink["figure_basis"]) == (480.0, "measured")
    assert nvlink["figure_source"] == "nccl_tests_212"


def test_a_measured_figure_in_the_wrong_unit_is_refused(tmp_path):
    from hubplan.core.catalog import (
        ACCEPTANCE_MEASURED_SCHEMA,
        _check_acceptance_measured,
        read_table,
    )

    path = tmp_path / "measured.csv"
    path.write_text(
        "name,test,subject,value,figure_unit,figure_source,source,as_of,confidence\n"
        "x,rdma_write_bw,400,49,GB/s,s,a paper,2026-12,low\n"
    )  # 49 GB/s per port is 392 Gb/s: the table holds Gb/s
    with pytest.raises(hubplan.HubplanError, match=r"line 2, column figure_unit: 'GB/s'"):
        _check_acceptance_measured(read_table(path, ACCEPTANCE_MEASURED_SCHEMA), path)


def test_driver_branches_refuse_a_date_that_is_not_one(tmp_path):
    from hubplan.core.catalog import DRIVER_BRANCH_SCHEMA, _check_driver_branches, read_table

    path = tmp_path / "branches.csv"
    path.write_text(
        "name,branch_kind,end_of_life,source,as_of,confidence\n580,ltsb,June 2028,NVIDIA,2026-12,high\n"
    )
    with pytest.raises(hubplan.HubplanError, match=r"line 2, column end_of_life: 'June 2028'"):
        _check_driver_branches(read_table(path, DRIVER_BRANCH_SCHEMA), path)


def test_every_family_names_its_device_plugin_resource():
    fam = hubplan.load_catalog().families.set_index("name")["k8s_device_resource"]
    # each vendor's Kubernetes device plugin README (data/families.csv, source)
    assert fam["NVIDIA"] == "nvidia.com/gpu"
    assert fam["AMD"] == "amd.com/gpu"
    assert fam["Huawei"] == "huawei.com/Ascend910"
    assert fam["Cambricon"] == "cambricon.com/mlu"
    assert (fam != "").all()
