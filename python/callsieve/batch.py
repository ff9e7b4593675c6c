"""Batch mode: sieve the tool calls out of many logged completions at once.

    callsieve batch completions.jsonl -o parsed.jsonl --field choices.0.message.content

    import ray, callsieve.batch
    ds = ray.data.read_parquet("s3://bucket/completions/")
    ds.map_batches(callsieve.batch.ParseBatch(field="content"), batch_format="pyarrow")
      .write_parquet("s3://bucket/parsed/")

Each output record is the input record with five fields added (replacing input fields of the same
name, so `--field content` rewrites `content` as the gateway would). Key style, as everywhere in
callsieve's JSON: the fields of an OpenAI message keep OpenAI's names (`tool_calls`, `content`,
`reasoning_content`), callsieve's own are camelCase as in `parse()` and the driver protocol
(`sawToolCallSyntax`, `error`):

- `tool_calls`: the calls in OpenAI shape (`{"id", "type": "function", "function": {"name",
  "arguments"}}`), `[]` when there are none;
- `content`: the text outside the calls (the sieve's text events, joined);
- `reasoning_content`: the reasoning text (`<think>…</think>`, per the `reasoning` option; "" when
  none);
- `sawToolCallSyntax`: as in `parse()`;
- `error`: null, or why the record could not be read (a line that is not JSON, not a JSON object,
  no such field, a field that is not a string, a number that JSON cannot hold); the other four are
  then null.

Output lines are JSON (RFC 8259), whatever the input: `NaN`, `Infinity` and `-Infinity`, which
Python's json module reads, are not JSON, and a number beyond the range of a double (`1e400`)
would be written back as `Infinity`; such a line is an error record (`line N: …`), like any line
that is not JSON, rather than a record with a value silently changed (to null or a string).

The field is a dotted path: `content`, `choices.0.message.content` (a list step is its index).
Arrow input (Parquet, Ray Data) has no missing keys: a key absent from a record reads as null.

Call ids are `call_` + 20 hex digits of the SHA-256 of the record's text + the call's position in
it as 4 hex digits: a function of the text alone, so the CLI with any number of workers and Ray
Data give the same ids (calls in equal texts get equal ids).

The core package has no dependencies: pyarrow (Parquet, `ParseBatch`) is imported only where it is
needed (`pip install 'callsieve[batch]'`), and Ray is never imported here (`callsieve[ray]`).
"""

from __future__ import annotations

import collections
import hashlib
import importlib
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, BinaryIO, Final

from .errors import CallsieveError, MissingDependencyError, OptionsError
from .events import ReasoningEvent, TextEvent, ToolCall, ToolCallsEvent
from .jsontext import dumps
from .openai import to_openai_tool_calls
from .sieve import Sieve

RESULT_FIELDS: Final = ("tool_calls", "content", "reasoning_content", "sawToolCallSyntax", "error")
CHUNK_RECORDS: Final = 256  # records per task sent to a worker
IN_FLIGHT_PER_WORKER: Final = 3  # tasks queued per worker: enough to keep it busy, memory bounded


def split_field(field: str) -> tuple[str, ...]:
    """The steps of a dotted field path (`choices.0.message.content`)."""
    if not isinstance(field, str) or not field or any(not s for s in field.split(".")):
        raise OptionsError(
            f"field must be a dotted path such as content or choices.0.message.content: {field!r}"
        )
    return tuple(field.split("."))


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list | tuple):
        return "an array"
    return f"a {type(v).__name__}"


class RecordError(Exception):
    """A record that cannot be sieved; its message becomes the record's `error`."""


def field_text(record: Any, path: tuple[str, ...], name: str) -> str:
    """The string at `path` in a decoded record, or RecordError."""
    v = record
    for step in path:
        if isinstance(v, dict):
            if step not in v:
                raise RecordError(f"no field {name!r}")
            v = v[step]
        elif isinstance(v, list | tuple) and step.isascii() and step.isdigit() and int(step) < len(v):
            v = v[int(step)]
        else:
            raise RecordError(f"no field {name!r}")
    if not isinstance(v, str):
        raise RecordError(f"field {name!r} is {_kind(v)}, not a string")
    return v


def call_ids(text: str) -> Callable[[], str]:
    """Ids for the calls of one text, in order (see the module docstring)."""
    head = "call_" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    n = itertools.count()
    return lambda: f"{head}{next(n):04x}"


_BEYOND: Final = "a number beyond a double's range (such as 1e400), not writable as JSON"


class _NotJSON(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NotJSON(f"{name} is not JSON")


def _dumps(v: Any) -> str:
    """`dumps`, but a non-finite number is a ValueError rather than `Infinity` or `NaN`."""
    text = json.dumps(v, ensure_ascii=False, allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(v, ensure_ascii=True, allow_nan=False)
    return text


def _failed(message: str) -> dict[str, Any]:
    return {
        "tool_calls": None,
        "content": None,
        "reasoning_content": None,
        "sawToolCallSyntax": None,
        "error": message,
    }


class RecordParser:
    """What one process needs to sieve records: the field path and the Sieve options (`tools`,
    `tool_names`, `unknown_tools`, `json_tool_calls`, `formats`, `reasoning`, … as `Sieve` takes
    them, passed through unchanged). The options are checked here, once."""

    def __init__(self, field: str = "content", **sieve_options: Any) -> None:
        self.field = field
        self.path = split_field(field)
        self.sieve_options = sieve_options
        Sieve(**sieve_options)  # raises OptionsError / InputTypeError now rather than per record

    def result(self, text: str) -> dict[str, Any]:
        """The five result fields for one text."""
        sieve = Sieve(**self.sieve_options)
        events = sieve.feed(text) + sieve.flush()
        calls: list[ToolCall] = []
        content: list[str] = []
        reasoning: list[str] = []
        for e in events:
            if isinstance(e, ToolCallsEvent):
                calls.extend(e.calls)
            elif isinstance(e, TextEvent):
                content.append(e.text)
            elif isinstance(e, ReasoningEvent):
                reasoning.append(e.text)
        return {
            "tool_calls": to_openai_tool_calls(calls, id_factory=call_ids(text)),
            "content": "".join(content),
            "reasoning_content": "".join(reasoning),
            "sawToolCallSyntax": sieve.saw_tool_call_syntax,
            "error": None,
        }

    def value_result(self, value: Any, path: tuple[str, ...] | None = None) -> dict[str, Any]:
        """The result fields for a decoded value (`path` defaults to the whole field path)."""
        try:
            text = field_text(value, self.path if path is None else path, self.field)
        except RecordError as exc:
            return _failed(str(exc))
        try:
            return self.result(text)
        except RecursionError:
            return _failed("too deeply nested to sieve")

    def record(self, record: Any) -> dict[str, Any]:
        """The output record for one decoded JSON value."""
        if not isinstance(record, dict):
            return _failed(f"not a JSON object ({_kind(record)})")
        out = {k: v for k, v in record.items() if k not in RESULT_FIELDS}
        out.update(self.value_result(record))
        return out

    def line(self, line: bytes, number: int) -> dict[str, Any]:
        """The output record for one JSONL line (`number` counts from 1, for the error)."""
        try:
            record = json.loads(line, parse_constant=_reject_constant)
        except UnicodeDecodeError:
            return _failed(f"line {number}: not UTF-8")
        except _NotJSON as exc:  # NaN, Infinity, -Infinity
            return _failed(f"line {number}: not JSON ({exc})")
        except (ValueError, RecursionError) as exc:
            detail = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
            return _failed(f"line {number}: not JSON ({detail})")
        if not isinstance(record, dict):
            return _failed(f"line {number}: not a JSON object ({_kind(record)})")
        return self.record(record)

    def lines(self, first: int, lines: list[bytes]) -> tuple[bytes, int, int, int]:
        """JSONL lines (`first` is the number of the first) in, JSONL out; also the counts of
        records, bad records and calls."""
        out: list[str] = []
        bad = calls = 0
        for i, line in enumerate(lines):
            if not line.strip():  # blank lines are no records
                continue
            r = self.line(line, first + i)
            try:
                text = _dumps(r)
            except ValueError:  # a number beyond a double's range (1e400) read as inf
                r = _failed(f"line {first + i}: {_BEYOND}")
                text = dumps(r)
            if r["error"] is not None:
                bad += 1
            else:
                calls += len(r["tool_calls"])
            out.append(text)
        n = len(out)
        out.append("")
        return "\n".join(out).encode("utf-8"), n, bad, calls

    def table(self, table: Any) -> Any:
        """A pyarrow Table (or RecordBatch) with the five result columns added (replacing columns
        of the same name)."""
        pa = _pyarrow()
        if isinstance(table, pa.RecordBatch):
            table = pa.Table.from_batches([table])
        if not isinstance(table, pa.Table):
            raise TypeError(
                f"ParseBatch takes pyarrow Tables (map_batches(..., batch_format='pyarrow')), "
                f"got {type(table).__name__}"
            )
        top, rest = self.path[0], self.path[1:]
        if top in table.column_names:
            results = [self.value_result(v, rest) for v in table.column(top).to_pylist()]
        else:
            results = [_failed(f"no field {self.field!r}")] * table.num_rows
        table = table.drop_columns([c for c in RESULT_FIELDS if c in table.column_names])
        for name, type_ in _result_types(pa):
            table = table.append_column(pa.field(name, type_), pa.array([r[name] for r in results], type_))
        return table


def _result_types(pa: Any) -> list[tuple[str, Any]]:
    function = pa.struct([("name", pa.string()), ("arguments", pa.string())])
    call = pa.struct([("id", pa.string()), ("type", pa.string()), ("function", function)])
    return [
        ("tool_calls", pa.list_(call)),
        ("content", pa.string()),
        ("reasoning_content", pa.string()),
        ("sawToolCallSyntax", pa.bool_()),
        ("error", pa.string()),
    ]


def _pyarrow(module: str = "pyarrow") -> Any:
    try:
        return importlib.import_module(module)  # untyped: an Any, not a mypy error
    except ImportError as exc:
        raise MissingDependencyError(
            f"Parquet and Arrow batches need pyarrow: pip install 'callsieve[batch]' ({exc})"
        ) from None


class ParseBatch:
    """`callsieve batch` as a Ray Data step (or for any pyarrow Table):

        ds.map_batches(ParseBatch(field="content", tools=tools), batch_format="pyarrow")

    Takes the options of `Sieve` (`tools`, `tool_names`, `unknown_tools`, `json_tool_calls`,
    `formats`, `reasoning`, …); the output columns are those of `callsieve batch` (module
    docstring). Also usable as a class (`map_batches(ParseBatch, fn_constructor_kwargs={...})`)
    for actor pools."""

    def __init__(self, field: str = "content", **sieve_options: Any) -> None:
        self.parser = RecordParser(field, **sieve_options)

    def __call__(self, batch: Any) -> Any:
        return self.parser.table(batch)


# --- the command line: `callsieve batch` -------------------------------------------------------

_worker: RecordParser | None = None


def _init_worker(field: str, sieve_options: dict[str, Any]) -> None:
    global _worker
    _worker = RecordParser(field, **sieve_options)


def _work_lines(first: int, lines: list[bytes]) -> tuple[bytes, int, int, int]:
    assert _worker is not None
    return _worker.lines(first, lines)


def _work_table(batch: Any) -> tuple[Any, int, int, int]:
    assert _worker is not None
    table = _worker.table(batch)
    pc = _pyarrow().compute
    bad = table.num_rows - table.column("error").null_count
    calls = pc.sum(pc.list_value_length(table.column("tool_calls"))).as_py() or 0
    return table, table.num_rows, bad, calls


def _ordered(
    tasks: Iterable[tuple[Any, ...]],
    fn: Callable[..., Any],
    field: str,
    sieve_options: dict[str, Any],
    workers: int,
) -> Iterator[Any]:
    """`fn(*task)` for each task, in order: in this process for one worker, else in a process pool
    with a bounded number of tasks in flight (so memory does not grow with the input)."""
    if workers == 1:
        _init_worker(field, sieve_options)
        for t in tasks:
            yield fn(*t)
        return
    import concurrent.futures
    import multiprocessing

    # fork (Linux) starts the workers at once and needs no importable __main__
    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=ctx, initializer=_init_worker, initargs=(field, sieve_options)
    ) as pool:
        pending: collections.deque[concurrent.futures.Future[Any]] = collections.deque()
        try:
            for t in tasks:
                pending.append(pool.submit(fn, *t))
                if len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for f in pending:
                f.cancel()


def _line_chunks(stream: BinaryIO, done: list[int]) -> Iterator[tuple[int, list[bytes]]]:
    """Lines in chunks of CHUNK_RECORDS, with the number of the first (from 1); `done[0]` counts
    the bytes read so far (for the progress bar)."""
    chunk: list[bytes] = []
    first = 1
    for line in stream:
        done[0] += len(line)
        chunk.append(line)
        if len(chunk) >= CHUNK_RECORDS:
            yield first, chunk
            first += len(chunk)
            chunk = []
    if chunk:
        yield first, chunk


class Progress:
    """A one-line progress display on a terminal: records, records/s and, when the total is
    known, percent and ETA. Redrawn at most 5 times a second."""

    def __init__(self, out: IO[str] | None, total: int | None, unit_total: Callable[[], int]) -> None:
        self.out = out
        self.total = total
        self.unit_total = unit_total  # how much of `total` is done
        self.start = time.monotonic()
        self.shown = 0.0

    def update(self, records: int, final: bool = False) -> None:
        if self.out is None:
            return
        now = time.monotonic()
        if not final and now - self.shown < 0.2:
            return
        self.shown = now
        elapsed = max(now - self.start, 1e-9)
        line = f"{records:,} records  {records / elapsed:,.0f}/s"
        if self.total:
            frac = min(self.unit_total() / self.total, 1.0)
            line += f"  {frac:4.0%}"
            if 0 < frac < 1:
                eta = int(elapsed * (1 - frac) / frac)
                line += f"  ETA {eta // 3600}:{eta // 60 % 60:02d}:{eta % 60:02d}"
        self.out.write("\r" + line + "\033[K")
        self.out.flush()

    def close(self) -> None:
        if self.out is not None:
            self.out.write("\r\033[K")
            self.out.flush()


def is_parquet(path: str) -> bool:
    return path.lower().endswith((".parquet", ".pq"))


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run(
    input_path: str,
    output_path: str,
    *,
    field: str = "content",
    workers: int | None = None,
    progress: bool | None = None,
    sieve_options: dict[str, Any] | None = None,
) -> tuple[int, int, int]:
    """Sieve a JSONL or Parquet file (`-`: standard input / output, JSONL only) into another of
    the same format; returns the counts of records, bad records and tool calls. `progress=None`
    shows it when standard error is a terminal."""
    opts = dict(sieve_options or {})
    RecordParser(field, **opts)  # options checked before any file is opened
    workers = workers or default_workers()
    if progress is None:
        progress = sys.stderr.isatty()
    if is_parquet(input_path) != is_parquet(output_path) or (
        is_parquet(input_path) and "-" in (input_path, output_path)
    ):
        raise ValueError(
            "input and output must both be JSONL or both be Parquet (.parquet) files;"
            " Parquet needs file names, not -"
        )
    if "-" not in (input_path, output_path) and os.path.abspath(input_path) == os.path.abspath(output_path):
        raise ValueError(f"the output would overwrite the input: {output_path}")
    if is_parquet(input_path):
        return _run_parquet(input_path, output_path, field, opts, workers, progress)
    inp = sys.stdin.buffer if input_path == "-" else open(input_path, "rb")  # noqa: SIM115
    try:
        out = sys.stdout.buffer if output_path == "-" else open(output_path, "wb")  # noqa: SIM115
        try:
            total = None if input_path == "-" else os.fstat(inp.fileno()).st_size
            done = [0]
            bar = Progress(sys.stderr if progress else None, total, lambda: done[0])
            records = bad = calls = 0
            for data, n, b, c in _ordered(_line_chunks(inp, done), _work_lines, field, opts, workers):
                out.write(data)
                records, bad, calls = records + n, bad + b, calls + c
                bar.update(records)
            bar.update(records, final=True)
            bar.close()
            out.flush()
            return records, bad, calls
        finally:
            if out is not sys.stdout.buffer:
                out.close()
    finally:
        if inp is not sys.stdin.buffer:
            inp.close()


def _run_parquet(
    input_path: str, output_path: str, field: str, opts: dict[str, Any], workers: int, progress: bool
) -> tuple[int, int, int]:
    pq = _pyarrow("pyarrow.parquet")

    source = pq.ParquetFile(input_path)
    records = bad = calls = 0
    bar = Progress(sys.stderr if progress else None, source.metadata.num_rows, lambda: records)
    writer = None
    try:
        batches = ((b,) for b in source.iter_batches(batch_size=CHUNK_RECORDS))
        for table, n, b, c in _ordered(batches, _work_table, field, opts, workers):
            if writer is None:
                writer = pq.ParquetWriter(output_path, table.schema)
            writer.write_table(table)
            records, bad, calls = records + n, bad + b, calls + c
            bar.update(records)
        if writer is None:  # no rows: still write a file with the output schema
            empty = RecordParser(field, **opts).table(source.schema_arrow.empty_table())
            writer = pq.ParquetWriter(output_path, empty.schema)
            writer.write_table(empty)
    finally:
        if writer is not None:
            writer.close()
        source.close()
    bar.update(records, final=True)
    bar.close()
    return records, bad, calls


def add_arguments(sp: Any) -> None:
    """The `callsieve batch` flags of its own (the tool flags come from the CLI's `declared`)."""
    sp.add_argument("input", help="JSONL file (- for standard input) or Parquet file (.parquet)")
    sp.add_argument("-o", "--output", default="-", help="output file, same format (default: standard output)")
    sp.add_argument(
        "--field",
        default="content",
        type=_field_arg,
        help="the text's field, a dotted path such as choices.0.message.content (default: content)",
    )
    sp.add_argument(
        "--workers", type=_workers_arg, default=None, metavar="N", help="processes (default: every core)"
    )
    sp.add_argument("--no-progress", action="store_true", help="no progress line, even on a terminal")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress line and no summary")


def _field_arg(v: str) -> str:
    import argparse

    try:
        split_field(v)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return v


def _workers_arg(v: str) -> int:
    import argparse

    if not v.isdigit() or int(v) < 1:
        raise argparse.ArgumentTypeError(f"must be a number of processes, at least 1: {v!r}")
    return int(v)


def command(args: Any, sieve_options: dict[str, Any]) -> int:
    """`callsieve batch`: exit 0 when every record was read, 1 when some were bad (their output
    has `error`), 2 for usage errors, unreadable files and a missing pyarrow."""
    start = time.monotonic()
    try:
        records, bad, calls = run(
            args.input,
            args.output,
            field=args.field,
            workers=args.workers,
            progress=False if (args.no_progress or args.quiet) else None,
            sieve_options=sieve_options,
        )
    except MissingDependencyError as exc:
        print(f"callsieve: {exc}", file=sys.stderr)
        return 2
    except (ValueError, CallsieveError) as exc:
        print(f"callsieve: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # a reader such as `head` stopped early: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        print(f"callsieve: cannot read or write{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        secs = time.monotonic() - start
        print(
            f"callsieve batch: {records:,} records, {bad:,} bad, {calls:,} tool calls"
            f" in {secs:.1f} s ({records / max(secs, 1e-9):,.0f} records/s)",
            file=sys.stderr,
        )
    return 1 if bad else 0


__all__ = ["RESULT_FIELDS", "ParseBatch", "RecordParser", "call_ids", "run"]
