"""`callsieve batch` and `callsieve.batch`: bad records, order, workers, Parquet (real pyarrow)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import docs
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from callsieve import Sieve, TextEvent, json_text, parse
from callsieve.batch import (
    IN_FLIGHT_PER_WORKER,
    ParseBatch,
    RecordParser,
    _ordered,
    _work_lines,
    call_ids,
    run,
)
from callsieve.errors import OptionsError

FIELD = "choices.0.message.content"
TOOLS = [
    {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}},
]


def cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "callsieve", "batch", *args], input=stdin, capture_output=True, timeout=300
    )


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_bad_records_get_an_error_and_the_run_goes_on(tmp_path: Path) -> None:
    good = '{"id": 1, "content": "hi <tool_calls><invoke name=\\"ls\\"></invoke></tool_calls> bye"}'
    lines = [
        good,
        "not json at all",
        "",  # blank lines are skipped, not records
        "[1, 2]",
        '{"id": 4}',
        '{"id": 5, "content": null}',
        '{"id": 6, "content": 7}',
        '{"id": 7, "content": {"text": "x"}}',
        "   ",
        "\udcff",  # written as the byte 0xff: not UTF-8
        '{"id": 9, "content": "plain"}',
    ]
    src = tmp_path / "in.jsonl"
    src.write_bytes("".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape"))
    p = cli(str(src), "-o", str(tmp_path / "out.jsonl"), "--workers", "2")
    assert p.returncode == 1, p.stderr
    out = read_jsonl(tmp_path / "out.jsonl")
    assert [r["error"] for r in out] == [
        None,
        "line 2: not JSON (Expecting value)",
        "line 4: not a JSON object (an array)",
        "no field 'content'",
        "field 'content' is null, not a string",
        "field 'content' is a number, not a string",
        "field 'content' is an object, not a string",
        "line 10: not UTF-8",
        None,
    ]
    assert out[0]["tool_calls"][0]["function"] == {"name": "ls", "arguments": "{}"}
    assert out[0]["content"] == "hi  bye" and out[0]["id"] == 1 and out[0]["sawToolCallSyntax"] is True
    assert out[-1] == {
        "id": 9,
        "content": "plain",
        "tool_calls": [],
        "reasoning_content": "",
        "sawToolCallSyntax": False,
        "error": None,
    }
    for r in out[1:-1]:
        assert r["tool_calls"] is None and r["content"] is None and r["sawToolCallSyntax"] is None
    assert out[3]["id"] == 4 and out[4]["id"] == 5  # the input record is kept
    assert "9 records, 7 bad, 1 tool calls" in p.stderr.decode()


def test_output_lines_are_json_whatever_numbers_the_input_holds() -> None:
    """Issue 41 F5: Python's json module reads NaN and Infinity, and 1e400 as inf, which it would
    write back as Infinity: JSON.parse and jq reject that line. Such a record is an error record;
    an array record's error has its line number too."""
    lines = [
        b'{"id": 1, "n": 1e400, "content": "x"}',
        b'{"id": 2, "n": -1e400, "content": "x"}',
        b'{"id": 3, "n": NaN, "content": "x"}',
        b'{"id": 4, "n": [Infinity], "content": "x"}',
        b'{"id": 5, "n": -Infinity}',
        b"[1e400]",
        b'{"id": 7, "n": 1.5e308, "big": 123456789012345678901234567890, "content": "x"}',
    ]
    data, n, bad, calls = RecordParser("content").lines(1, lines)
    out = [
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} written")) for line in data.splitlines()
    ]
    beyond = "a number beyond a double's range (such as 1e400), not writable as JSON"
    assert [r["error"] for r in out] == [
        f"line 1: {beyond}",
        f"line 2: {beyond}",
        "line 3: not JSON (NaN is not JSON)",
        "line 4: not JSON (Infinity is not JSON)",
        "line 5: not JSON (-Infinity is not JSON)",
        "line 6: not a JSON object (an array)",
        None,
    ]
    assert (n, bad, calls) == (7, 6, 0)
    assert out[-1]["n"] == 1.5e308 and out[-1]["big"] == 123456789012345678901234567890
    assert all(r["content"] is None and r["tool_calls"] is None for r in out[:-1])


def test_output_keeps_input_order_and_is_the_same_for_any_number_of_workers(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", list(docs.completions(1500, seed=3, bad=0.02)))
    outs = []
    for w in ("1", "2", "3"):
        out = tmp_path / f"out{w}.jsonl"
        p = cli(str(src), "-o", str(out), "--field", FIELD, "--workers", w)
        assert p.returncode == 1, p.stderr  # the corpus has bad records
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == outs[2]
    records = read_jsonl(tmp_path / "out2.jsonl")
    ids = [r.get("id") for r in records]
    want = [_id_of(line) for line in src.read_text().splitlines()]
    assert len(records) == 1500 and ids == want


def _id_of(line: str) -> Any:
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec.get("id") if isinstance(rec, dict) else None


def test_results_are_those_of_the_sieve(tmp_path: Path) -> None:
    lines = list(docs.completions(300, seed=4))
    src = write_lines(tmp_path / "in.jsonl", lines)
    p = cli(str(src), "-o", str(tmp_path / "out.jsonl"), "--field", FIELD, "--workers", "2", "-q")
    assert p.returncode == 0 and p.stderr == b""
    calls = 0
    for line, r in zip(lines, read_jsonl(tmp_path / "out.jsonl"), strict=True):
        rec = json.loads(line)
        text = rec["choices"][0]["message"]["content"]
        want = parse(text)
        sieve = Sieve()
        events = sieve.feed(text) + sieve.flush()
        assert r["content"] == "".join(e.text for e in events if isinstance(e, TextEvent))
        assert [c["function"]["name"] for c in r["tool_calls"]] == [c.name for c in want.calls]
        assert [c["function"]["arguments"] for c in r["tool_calls"]] == [
            json_text(c.input) for c in want.calls
        ]
        assert r["sawToolCallSyntax"] == want.saw_tool_call_syntax
        assert {
            k: v
            for k, v in r.items()
            if k not in ("tool_calls", "content", "reasoning_content", "sawToolCallSyntax", "error")
        } == rec
        calls += len(want.calls)
    assert calls > 50  # the corpus has calls in it


def test_call_ids_are_a_function_of_the_text() -> None:
    parser = RecordParser()
    text = '<tool_calls><invoke name="a"></invoke><invoke name="b"></invoke></tool_calls>'
    r1 = parser.result(text)
    r2 = parser.result(text)
    ids = [c["id"] for c in r1["tool_calls"]]
    assert ids == [c["id"] for c in r2["tool_calls"]]
    assert ids[0][:25] == ids[1][:25] and ids[0].startswith("call_") and len(ids[0]) == 29
    assert ids[0].endswith("0000") and ids[1].endswith("0001")
    assert parser.result(text + " ")["tool_calls"][0]["id"] != ids[0]
    ids_of = call_ids(text)
    assert [ids_of(), ids_of()] == ids


def test_options_pass_through_to_the_sieve(tmp_path: Path) -> None:
    text = (
        'a <tool_calls><invoke name="Read-File"><parameter name="path">x</parameter></invoke>'
        '<invoke name="rm"></invoke></tool_calls> <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search'
        '<｜tool▁sep｜>{"q": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    src = write_lines(tmp_path / "in.jsonl", [json.dumps({"content": text})])
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    p = cli(str(src), "--tools-file", str(tools), "--unknown-tools", "reject")
    assert p.returncode == 0, p.stderr
    (r,) = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert [c["function"]["name"] for c in r["tool_calls"]] == ["read_file", "search"]
    p = cli(str(src), "--formats", "dsml")
    (r,) = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert [c["function"]["name"] for c in r["tool_calls"]] == ["Read-File", "rm"]
    assert "<｜tool▁calls▁begin｜>" in r["content"]


def test_stdin_to_stdout_in_a_pipe_has_no_progress(tmp_path: Path) -> None:
    data = "".join(line + "\n" for line in docs.completions(50, seed=5, shape="flat")).encode()
    p = cli("-", stdin=data)
    assert p.returncode == 0
    assert len(p.stdout.decode().splitlines()) == 50
    assert (
        p.stderr.decode().startswith("callsieve batch: 50 records, 0 bad") and "\r" not in p.stderr.decode()
    )


def test_progress_on_a_terminal(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", list(docs.completions(300, seed=6, shape="flat")))
    main, sub = pty.openpty()
    try:
        p = subprocess.run(
            [sys.executable, "-m", "callsieve", "batch", str(src), "-o", str(tmp_path / "o.jsonl")],
            stderr=sub,
            stdout=subprocess.DEVNULL,
            timeout=120,
            check=False,
        )
        os.close(sub)
        seen = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(main)
    assert p.returncode == 0
    text = seen.decode()
    assert "\r300 records" in text and "/s" in text and "100%" in text
    assert "callsieve batch: 300 records" in text


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", ['{"content": "x"}'])
    for args in (
        ["--workers", "0"],
        ["--field", "a..b"],
        ["-o", str(tmp_path / "out.parquet")],
        ["--formats", "nope"],
        ["--unknown-tools", "drop"],
    ):
        p = cli(str(src), *args)
        assert p.returncode == 2, (args, p.stderr)
        assert b"Traceback" not in p.stderr
    p = cli(str(tmp_path / "missing.jsonl"))
    assert p.returncode == 2 and b"cannot read" in p.stderr
    p = cli(str(src), "-o", str(src))
    assert p.returncode == 2 and b"overwrite the input" in p.stderr
    assert src.read_text() == '{"content": "x"}\n'
    lists = write_lines(tmp_path / "lists.jsonl", ['{"choices": ["a", "b", "c"]}'])
    p = cli(str(lists), "--field", "choices.²")  # not an index: no such field
    assert p.returncode == 1 and json.loads(p.stdout)["error"] == "no field 'choices.²'"
    with pytest.raises(OptionsError):
        RecordParser("content", formats=["nope"])
    with pytest.raises(OptionsError):
        RecordParser("")


def test_memory_stays_bounded_tasks_in_flight() -> None:
    pulled = 0

    def tasks() -> Any:
        nonlocal pulled
        for i in range(1000):
            pulled += 1
            yield (i, [b'{"content": "x"}'])

    results = _ordered(tasks(), _work_lines, "content", {}, 2)
    first = next(results)
    assert first[1] == 1
    assert pulled <= 2 * IN_FLIGHT_PER_WORKER + 1  # the rest of the input is not read ahead
    assert sum(r[1] for r in results) == 999


def _parquet_input(path: Path, n: int, seed: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in docs.completions(n, seed=seed, bad=0.03, arrow=True)]
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=300)
    return rows


def test_parquet_in_and_out(tmp_path: Path) -> None:
    rows = _parquet_input(tmp_path / "in.parquet", 1000, 7)
    p = cli(
        str(tmp_path / "in.parquet"), "-o", str(tmp_path / "out.parquet"), "--field", FIELD, "--workers", "2"
    )
    assert p.returncode == 1, p.stderr
    out = pq.read_table(tmp_path / "out.parquet")
    assert out.column_names[-5:] == [
        "tool_calls",
        "content",
        "reasoning_content",
        "sawToolCallSyntax",
        "error",
    ]
    got = out.to_pylist()
    # the same as the JSONL path on the same records (Arrow turns missing keys into nulls)
    src = write_lines(tmp_path / "in.jsonl", [json.dumps(r) for r in pa.Table.from_pylist(rows).to_pylist()])
    cli(str(src), "-o", str(tmp_path / "out.jsonl"), "--field", FIELD)
    assert got == read_jsonl(tmp_path / "out.jsonl")
    errors = [r["error"] for r in got if r["error"]]
    assert len(errors) > 10 and set(errors) == {
        f"field '{FIELD}' is null, not a string",
        f"no field '{FIELD}'",
    }
    assert [r["id"] for r in got] == [r["id"] for r in rows]


def test_parquet_with_no_rows_and_a_missing_column(tmp_path: Path) -> None:
    pq.write_table(pa.table({"text": pa.array([], pa.string())}), tmp_path / "empty.parquet")
    assert run(str(tmp_path / "empty.parquet"), str(tmp_path / "o.parquet"), field="text") == (0, 0, 0)
    assert pq.read_table(tmp_path / "o.parquet").column_names == ["text", *RESULT_COLUMNS]
    pq.write_table(pa.table({"text": ["a", "b"]}), tmp_path / "t.parquet")
    assert run(str(tmp_path / "t.parquet"), str(tmp_path / "o.parquet"), field="content", workers=1) == (
        2,
        2,
        0,
    )
    assert pq.read_table(tmp_path / "o.parquet").column("error").to_pylist() == ["no field 'content'"] * 2


RESULT_COLUMNS = ["tool_calls", "content", "reasoning_content", "sawToolCallSyntax", "error"]


def test_parse_batch_on_tables_and_record_batches() -> None:
    table = pa.table(
        {"content": ['x <tool_calls><invoke name="ls"></invoke></tool_calls>', None], "n": [1, 2]}
    )
    out = ParseBatch(field="content")(table)
    assert out.column_names == ["n", *RESULT_COLUMNS]  # the input content is replaced
    assert out.column("content").to_pylist() == ["x ", None]
    assert out.column("tool_calls").to_pylist()[0][0]["function"] == {"name": "ls", "arguments": "{}"}
    assert ParseBatch()(table.to_batches()[0]).equals(out)
    with pytest.raises(TypeError):
        ParseBatch()({"content": ["x"]})


def test_missing_pyarrow_is_a_clear_error(tmp_path: Path) -> None:
    pq.write_table(pa.table({"content": ["x"]}), tmp_path / "in.parquet")
    code = (
        "import sys; sys.modules['pyarrow'] = None; sys.modules['pyarrow.parquet'] = None\n"
        "from callsieve.cli import main\n"
        f"sys.exit(main(['batch', {str(tmp_path / 'in.parquet')!r}, '-o', {str(tmp_path / 'o.parquet')!r}]))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, check=False)
    assert p.returncode == 2
    assert b"pip install 'callsieve[batch]'" in p.stderr and b"Traceback" not in p.stderr


def test_a_reader_that_stops_early_is_no_error(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", list(docs.completions(2000, seed=8, shape="flat")))
    proc = subprocess.Popen(
        [sys.executable, "-m", "callsieve", "batch", str(src), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(100)
    proc.stdout.close()  # like `| head -c 100`
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert b"Traceback" not in err and b"Exception ignored" not in err


def test_reasoning_option(tmp_path: Path) -> None:
    text = (
        '<think>plan <tool_calls><invoke name="a"></invoke></tool_calls></think>'
        'answer <tool_calls><invoke name="b"></invoke></tool_calls>'
    )
    src = write_lines(tmp_path / "in.jsonl", [json.dumps({"content": text})])
    got = {}
    for mode in ("auto", "off"):
        p = cli(str(src), "--reasoning", mode, "-q")
        assert p.returncode == 0, p.stderr
        got[mode] = json.loads(p.stdout)
    auto, off = got["auto"], got["off"]
    assert auto["reasoning_content"] == 'plan <tool_calls><invoke name="a"></invoke></tool_calls>'
    assert auto["content"] == "answer " and [c["function"]["name"] for c in auto["tool_calls"]] == ["b"]
    assert off["reasoning_content"] == "" and [c["function"]["name"] for c in off["tool_calls"]] == ["a", "b"]
    table = pa.table({"content": [text]})
    assert ParseBatch(reasoning="off")(table).column("reasoning_content").to_pylist() == [""]
    assert ParseBatch()(table).column("reasoning_content").to_pylist() == [auto["reasoning_content"]]
    assert cli(str(src), "--reasoning", "sometimes").returncode == 2
