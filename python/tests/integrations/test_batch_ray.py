"""The Ray Data path (`callsieve.batch.ParseBatch` in `map_batches`) on a local Ray instance: the
same output as `callsieve batch` on the same input, record for record, in JSONL and Parquet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docs
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from callsieve.batch import ParseBatch

FIELD = "choices.0.message.content"
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("read_file", "Bash", "search", "noop")
]
N = 2000
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray's own, about its own settings


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # no usage reports leave the machine
    import ray
    import ray.data

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("corpus")
    lines = list(docs.completions(N, seed=11, bad=0.03, arrow=True))
    (d / "in.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    pq.write_table(
        pa.Table.from_pylist([json.loads(line) for line in lines]), d / "in.parquet", row_group_size=500
    )
    (d / "tools.json").write_text(json.dumps(TOOLS))
    return d


def cli(*args: str) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "callsieve", "batch", *args, "--field", FIELD, "--workers", "2", "-q"],
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert p.returncode == 1, p.stderr  # the corpus has bad records (null texts, no choices)


def by_id(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {r["id"]: r for r in records}
    assert len(out) == len(records) == N
    return out


def test_jsonl_through_ray_data_equals_the_cli(ray: Any, corpus: Path, tmp_path: Path) -> None:
    cli(
        str(corpus / "in.jsonl"),
        "-o",
        str(tmp_path / "cli.jsonl"),
        "--tools-file",
        str(corpus / "tools.json"),
    )
    want = [json.loads(line) for line in (tmp_path / "cli.jsonl").read_text(encoding="utf-8").splitlines()]

    ds = ray.data.read_json(str(corpus / "in.jsonl"))
    step = ParseBatch(field=FIELD, tools=TOOLS, unknown_tools="keep")
    ds.map_batches(step, batch_format="pyarrow").write_json(str(tmp_path / "ray"))
    got = [
        json.loads(line)
        for f in sorted((tmp_path / "ray").iterdir())
        for line in f.read_text(encoding="utf-8").splitlines()
    ]
    assert by_id(got) == by_id(want)
    assert sum(len(r["tool_calls"] or []) for r in want) > 300
    assert sum(r["error"] is not None for r in want) > 20


def test_parquet_through_ray_data_equals_the_cli(ray: Any, corpus: Path, tmp_path: Path) -> None:
    cli(str(corpus / "in.parquet"), "-o", str(tmp_path / "cli.parquet"))
    want = pq.read_table(tmp_path / "cli.parquet")

    ds = ray.data.read_parquet(str(corpus / "in.parquet"))
    ds.map_batches(ParseBatch(field=FIELD), batch_format="pyarrow").write_parquet(str(tmp_path / "ray"))
    got = pq.read_table(tmp_path / "ray")
    assert got.schema.equals(want.schema)
    assert by_id(got.to_pylist()) == by_id(want.to_pylist())


def test_parse_batch_as_an_actor_class(ray: Any, corpus: Path) -> None:
    ds = ray.data.read_parquet(str(corpus / "in.parquet")).limit(300)
    out = ds.map_batches(
        ParseBatch,
        fn_constructor_kwargs={"field": FIELD, "formats": ["dsml"]},
        concurrency=1,  # one actor: the other CPU reads
        batch_format="pyarrow",
    ).take_all()
    direct = ParseBatch(field=FIELD, formats=["dsml"])(pq.read_table(corpus / "in.parquet").slice(0, 300))
    assert sorted(out, key=lambda r: r["id"]) == sorted(direct.to_pylist(), key=lambda r: r["id"])
