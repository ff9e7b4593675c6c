"""Command line: `callsieve parse [FILE]`, `callsieve stream [FILE] [--chunk-size N]` and
`callsieve openai [FILE]` (rewrite a captured OpenAI SSE stream). All three take the declared
tools: `--tools-file tools.json` (names and schemas), `--tools A,B`, `--unknown-tools reject`.
`callsieve batch INPUT -o OUTPUT --field PATH [--workers N]` sieves logged completions
(JSONL, or Parquet with the `batch` extra; `callsieve.batch`). `callsieve serve --upstream URL`
runs the gateway server (`callsieve.server`, the `server` extra);
each of its flags can also come from an environment variable (`CALLSIEVE_UPSTREAM`, …).

Exit status: 0 on success, 1 when the input is not valid UTF-8 (for `openai`: not a readable
chat-completion event stream, or one that ended without `data: [DONE]`; for `batch`: some records
were bad), 2 for usage errors and files that cannot be read.
"""

from __future__ import annotations

import argparse
import codecs
import dataclasses
import json
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO, NoReturn

from . import __version__, compiled
from .formats import PRESETS
from .jsontext import dumps, jsonable
from .reasoning import REASONING_MODES
from .sieve import FORMATS, Sieve, parse


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"callsieve: error: {message}\n")


def _positive(v: str) -> int:
    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {v!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def _tools(v: str) -> list[str]:
    return [t.strip() for t in v.split(",") if t.strip()]


def _formats(v: str) -> list[str]:
    names = [t.strip() for t in v.split(",") if t.strip()]
    for n in names:
        if n not in FORMATS:
            raise argparse.ArgumentTypeError(f"unknown format {n!r} (known: {', '.join(FORMATS)})")
    return names


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="callsieve", description="Sieve tool calls out of raw LLM text.")
    build = "mypyc-compiled" if compiled else "pure Python"
    p.add_argument("--version", action="version", version=f"callsieve {__version__} ({build})")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def declared(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--json-calls", action="store_true", help="also take tool calls written as JSON objects in prose"
        )
        sp.add_argument(
            "--formats",
            type=_formats,
            default=None,
            metavar="A,B",
            help=f"recognize only these markup formats (default: all of {', '.join(FORMATS)})",
        )
        sp.add_argument(
            "--reasoning",
            choices=REASONING_MODES,
            default=None,
            help="thinking before the answer: 'auto' (default) if the output starts with <think>, "
            "'open' if it starts inside thinking (only </think> appears), 'off' for none",
        )
        sp.add_argument(
            "--preset",
            choices=list(PRESETS),
            default=None,
            metavar="NAME",
            help="the model family that wrote the text: sets --formats and --reasoning unless they "
            "are given (see `callsieve formats`)",
        )
        sp.add_argument(
            "--tools-file",
            default=None,
            metavar="FILE",
            help="JSON tool definitions (names and schemas): a list, or a request body with a 'tools' list",
        )
        sp.add_argument("--tools", type=_tools, default=None, metavar="A,B", help="declared tool names")
        sp.add_argument(
            "--unknown-tools",
            choices=("keep", "reject"),
            default="keep",
            help="calls to undeclared tools: keep them (default) or drop them",
        )

    for name, help_ in (
        ("parse", "parse the whole input and print the JSON result"),
        ("stream", "stream the input through the sieve and print one JSON event per line"),
    ):
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.add_argument("file", nargs="?", default="-", help="input file (default: standard input)")
        declared(sp)
        if name == "stream":
            sp.add_argument(
                "--chunk-size",
                type=_positive,
                default=None,
                metavar="N",
                help="feed the sieve N characters at a time (default: as the input arrives)",
            )
            sp.add_argument("--raw", action="store_true", help="include the raw source of tool-call events")
        sp.add_argument(
            "--stream-arguments",
            action="store_true",
            help="announce each call as soon as its name is known and stream its arguments as they arrive",
        )
    help_ = "list the tool-call formats and the presets (model families)"
    sp = sub.add_parser("formats", help=help_, description=help_)
    sp.add_argument("--json", action="store_true", help="print the table as JSON")
    _serve_parser(sub)
    help_ = "rewrite an OpenAI chat-completion SSE stream: DSML markup in content becomes tool_calls"
    sp = sub.add_parser("openai", help=help_, description=help_)
    sp.add_argument("file", nargs="?", default="-", help="captured SSE stream (default: standard input)")
    declared(sp)
    sp.add_argument(
        "--stream-arguments",
        action="store_true",
        help="send each call's name first and its arguments in pieces, as OpenAI's API streams them",
    )
    help_ = "sieve many logged completions: JSONL (or Parquet) in and out, on every core"
    sp = sub.add_parser("batch", help=help_, description=help_)
    from .batch import add_arguments

    add_arguments(sp)
    declared(sp)
    return p


def _seconds(v: str) -> float:
    try:
        n = float(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {v!r}") from None
    if not n > 0 or n == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {v!r}")
    return n


def _port(v: str) -> int:
    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {v!r}") from None
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {v!r}")
    return n


def _bool(v: str) -> bool:
    t = v.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off", ""):
        return False
    raise argparse.ArgumentTypeError(f"not a yes/no value: {v!r}")


def _origins(v: str) -> list[str]:
    names = [o.strip() for o in v.split(",") if o.strip()]
    for o in names:
        if o != "*" and not o.startswith(("http://", "https://")):
            raise argparse.ArgumentTypeError(f"an origin is * or http(s)://host[:port], got {o!r}")
    return names


def _keys(v: str) -> list[str]:
    """`--api-key K` (once per key) or `$CALLSIEVE_API_KEY` (keys separated by commas)."""
    keys = [k.strip() for k in v.split(",") if k.strip()]
    if not keys:
        raise argparse.ArgumentTypeError("an empty API key")
    return keys


def _bytes(v: str) -> int:
    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of bytes: {v!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 byte: {v!r}")
    return n


def _preset(v: str) -> str:
    name = v.strip()
    if name not in PRESETS:
        raise argparse.ArgumentTypeError(f"unknown preset {name!r} (known: {', '.join(PRESETS)})")
    return name


def _preset_map(v: str) -> list[tuple[str, str]]:
    """`--preset-map PATTERN=PRESET` (once per pattern) or `$CALLSIEVE_PRESET_MAP` (P1=A,P2=B)."""
    out: list[tuple[str, str]] = []
    for item in v.split(","):
        if not item.strip():
            continue
        pattern, eq, name = item.rpartition("=")
        if not eq or not pattern.strip():
            raise argparse.ArgumentTypeError(f"a preset map entry is PATTERN=PRESET, got {item.strip()!r}")
        out.append((pattern.strip(), _preset(name)))
    if not out:
        raise argparse.ArgumentTypeError("an empty preset map")
    return out


# flag, environment variable, default, type, choices, help
SERVE_FLAGS: list[tuple[str, str, str | None, Any, tuple[str, ...] | None, str]] = [
    (
        "--upstream",
        "CALLSIEVE_UPSTREAM",
        None,
        str,
        None,
        "base URL of the OpenAI-compatible upstream (…/v1)",
    ),
    ("--host", "CALLSIEVE_HOST", "127.0.0.1", str, None, "address to listen on (default 127.0.0.1)"),
    ("--port", "CALLSIEVE_PORT", "8080", _port, None, "port to listen on (default 8080; 0: any free port)"),
    (
        "--api-key",
        "CALLSIEVE_API_KEY",
        None,
        _keys,
        None,
        "a key clients must present as 'Authorization: Bearer KEY' (repeat the flag for several;"
        " the variable: keys separated by commas); without any, clients need no key",
    ),
    (
        "--api-key-file",
        "CALLSIEVE_API_KEY_FILE",
        None,
        str,
        None,
        "a file of client keys, one a line (blank lines and # comments ignored)",
    ),
    (
        "--upstream-api-key",
        "CALLSIEVE_UPSTREAM_API_KEY",
        None,
        str,
        None,
        "the key sent upstream as 'Authorization: Bearer KEY' (default: none)",
    ),
    (
        "--forward-client-key",
        "CALLSIEVE_FORWARD_CLIENT_KEY",
        "no",
        _bool,
        None,
        "without --upstream-api-key, send the client's Authorization header upstream",
    ),
    (
        "--mode",
        "CALLSIEVE_MODE",
        "passthrough",
        str,
        ("passthrough", "prompt"),
        "passthrough (default) or prompt",
    ),
    (
        "--unknown-tools",
        "CALLSIEVE_UNKNOWN_TOOLS",
        "keep",
        str,
        ("keep", "reject"),
        "calls to undeclared tools",
    ),
    ("--timeout", "CALLSIEVE_TIMEOUT", "600", _seconds, None, "upstream silence that ends a request (s)"),
    (
        "--keepalive",
        "CALLSIEVE_KEEPALIVE",
        "15",
        _seconds,
        None,
        "write ': keep-alive' after this silence (s)",
    ),
    ("--formats", "CALLSIEVE_FORMATS", None, _formats, None, "recognize only these markup formats (A,B)"),
    (
        "--reasoning",
        "CALLSIEVE_REASONING",
        None,
        str,
        REASONING_MODES,
        "thinking in content becomes reasoning_content: auto (default, or the preset's), open, off",
    ),
    (
        "--preset",
        "CALLSIEVE_PRESET",
        None,
        _preset,
        None,
        "the model family of every request whose model no --preset-map pattern matches (its formats and"
        f" reasoning together): {', '.join(PRESETS)}; default: none",
    ),
    (
        "--preset-map",
        "CALLSIEVE_PRESET_MAP",
        None,
        _preset_map,
        None,
        "PATTERN=PRESET: the preset of a request whose model id matches the shell-style PATTERN"
        " (any case; the first match wins; repeat the flag, or the variable: P1=A,P2=B)",
    ),
    (
        "--stream-arguments",
        "CALLSIEVE_STREAM_ARGUMENTS",
        "no",
        _bool,
        None,
        "stream each call's arguments as they arrive, as OpenAI's API does",
    ),
    (
        "--max-body-bytes",
        "CALLSIEVE_MAX_BODY_BYTES",
        str(16 * 1024 * 1024),
        _bytes,
        None,
        "longest request body accepted, a longer one is a 413 (default 16777216: 16 MiB)",
    ),
    (
        "--cors-origins",
        "CALLSIEVE_CORS_ORIGINS",
        None,
        _origins,
        None,
        "origins browsers may call the gateway from (A,B; *: any); default: no CORS",
    ),
    (
        "--log-level",
        "CALLSIEVE_LOG_LEVEL",
        "info",
        str,
        ("debug", "info", "warning", "error"),
        "debug, info (default: a line per request), warning, error",
    ),
    ("--log-format", "CALLSIEVE_LOG_FORMAT", "text", str, ("text", "json"), "text (default) or json"),
    (
        "--workers",
        "CALLSIEVE_WORKERS",
        "1",
        _positive,
        None,
        "processes serving the port, each its own /metrics",
    ),
]
_REPEATED = frozenset({"--api-key", "--preset-map"})


def _serve_parser(sub: Any) -> None:
    help_ = "run the OpenAI-compatible gateway server (needs the server extra)"
    sp = sub.add_parser("serve", help=help_, description=help_ + "; every flag also reads CALLSIEVE_<FLAG>")
    for flag, env, _default, type_, choices, text in SERVE_FLAGS:
        if type_ is _bool:  # a switch that may also say no: --stream-arguments[=no]
            sp.add_argument(flag, nargs="?", const=True, default=None, type=type_, help=f"{text} [${env}]")
        elif flag in _REPEATED:
            sp.add_argument(flag, action="append", default=None, type=type_, help=f"{text} [${env}]")
        else:
            sp.add_argument(flag, default=None, type=type_, choices=choices, help=f"{text} [${env}]")
    sp.set_defaults(serve_parser=sp)


def _key_file(path: str, where: str, parser: argparse.ArgumentParser) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        parser.error(f"{where}: cannot read {path!r}: {exc}")
    keys = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not keys:
        parser.error(f"{where}: {path!r} holds no key")
    return keys


def serve_settings(
    args: argparse.Namespace, parser: argparse.ArgumentParser, environ: Any = None
) -> dict[str, Any]:
    """The settings of `callsieve serve`: each flag, else its environment variable, else its
    default (a usage error, exit status 2, for a bad value). `api_key` holds every client key,
    from --api-key and --api-key-file together."""
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for flag, env, default, type_, choices, _ in SERVE_FLAGS:
        key = flag[2:].replace("-", "_")
        v = getattr(args, key)
        where = flag
        if v is None:
            raw = environ.get(env) or default
            where = f"${env}" if environ.get(env) else flag
            if raw is not None:
                try:
                    v = type_(raw)
                except argparse.ArgumentTypeError as exc:
                    parser.error(f"${env}: {exc}")
                if choices is not None and v not in choices:
                    parser.error(f"${env}: {raw!r} is not one of {', '.join(choices)}")
        elif flag in _REPEATED:
            v = [k for keys in v for k in keys]  # each flag's own list, comma-separated items
        if key == "api_key_file" and v is not None:
            v = _key_file(v, where, parser)
        values[key] = v
    if not values["upstream"]:
        parser.error("serve needs --upstream URL (or $CALLSIEVE_UPSTREAM)")
    if not str(values["upstream"]).startswith(("http://", "https://")):
        parser.error(f"--upstream must be an http:// or https:// URL, got {values['upstream']!r}")
    keys = [*(values["api_key"] or ()), *(values.pop("api_key_file") or ())]
    values["api_key"] = list(dict.fromkeys(keys)) or None
    return values


def _serve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    values = serve_settings(args, parser)
    try:
        import uvicorn

        from .server import (
            WORKER_CONFIG_ENV,
            WORKER_LOG_FORMAT_ENV,
            WORKER_LOG_LEVEL_ENV,
            GatewayConfig,
            configure_logging,
            create_app,
            settle_gc,
        )
    except ImportError as exc:
        print(
            f"callsieve: serve needs the server extra: pip install 'callsieve[server]' ({exc})",
            file=sys.stderr,
        )
        return 2
    log_level, log_format = values["log_level"], values["log_format"]
    configure_logging(log_level, log_format)
    config = GatewayConfig(
        upstream=values["upstream"],
        api_keys=values["api_key"],
        upstream_api_key=values["upstream_api_key"],
        forward_client_key=values["forward_client_key"],
        mode=values["mode"],
        unknown_tools=values["unknown_tools"],
        timeout=values["timeout"],
        keepalive=values["keepalive"],
        formats=values["formats"],
        reasoning=values["reasoning"],
        preset=values["preset"],
        preset_map=values["preset_map"],
        stream_arguments=values["stream_arguments"],
        max_body_bytes=values["max_body_bytes"],
        cors_origins=values["cors_origins"],
    )
    workers = values["workers"]
    # uvicorn's own logging setup is skipped (log_config=None): its loggers go through ours
    common: dict[str, Any] = {
        "host": values["host"],
        "port": values["port"],
        "log_level": log_level,
        "log_config": None,
        "access_log": False,
    }

    class _Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            settle_gc()
            for srv in self.servers:
                for sock in srv.sockets:
                    host, port = sock.getsockname()[:2]
                    print(f"callsieve gateway listening on http://{host}:{port}", flush=True)
                    return

    if workers == 1:
        app = create_app(config)
        server = _Server(uvicorn.Config(app, **common))
        server.run()
        return 0 if server.started else 1
    # Several processes: uvicorn's supervisor binds the port once and starts each worker, which
    # builds the app from the settings passed in its environment (workers are spawned, not forked).
    from uvicorn.supervisors import Multiprocess

    os.environ[WORKER_CONFIG_ENV] = json.dumps(dataclasses.asdict(config))
    os.environ[WORKER_LOG_LEVEL_ENV] = log_level
    os.environ[WORKER_LOG_FORMAT_ENV] = log_format
    wconfig = uvicorn.Config("callsieve.server:app_from_environ", factory=True, workers=workers, **common)
    try:
        sock = wconfig.bind_socket()
    except SystemExit:
        return 1
    sock.listen(wconfig.backlog)  # connections wait in the backlog while the workers start
    host, port = sock.getsockname()[:2]
    print(f"callsieve gateway listening on http://{host}:{port}", flush=True)
    Multiprocess(wconfig, sockets=[sock]).run()
    return 0


def _read_tools(path: str) -> list[Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        print(f"callsieve: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except (ValueError, RecursionError) as exc:
        print(f"callsieve: {path} is not JSON: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if not isinstance(data, list):
        print(f"callsieve: {path} must hold a list of tool definitions", file=sys.stderr)
        raise SystemExit(2)
    return data


def _byte_chunks(stream: BinaryIO) -> Iterator[bytes]:
    read = getattr(stream, "read1", stream.read)
    while True:
        data = read(65536)
        if not data:
            return
        yield data


def _openai(args: argparse.Namespace, stream: BinaryIO, name: str) -> int:
    from .openai import OpenAIFormatError, rewrite_chat_completion_stream
    from .sse import SSEFormatError, iter_chat_chunks, write_sse

    tools = _read_tools(args.tools_file) if args.tools_file else None
    out = sys.stdout.buffer
    chunks = iter_chat_chunks(_byte_chunks(stream))
    rewritten = rewrite_chat_completion_stream(
        chunks,
        tools=tools,
        tool_names=args.tools,
        unknown_tools=args.unknown_tools,
        json_tool_calls=args.json_calls,
        formats=args.formats,
        reasoning=args.reasoning,
        stream_arguments=args.stream_arguments,
        preset=args.preset,
    )
    try:
        for data in write_sse(rewritten, done=False):
            out.write(data)
            out.flush()
        if chunks.saw_done:  # mirror upstream: a cut-off stream must not look finished
            out.write(b"data: [DONE]\n\n")
            out.flush()
        else:
            print(f"callsieve: {name}: the stream ended without data: [DONE] (cut off?)", file=sys.stderr)
            return 1
    except (SSEFormatError, OpenAIFormatError) as exc:
        print(f"callsieve: {name}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        print(f"callsieve: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def _open(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as exc:
        print(f"callsieve: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _decoded(stream: BinaryIO, name: str) -> Iterator[str]:
    """Decode UTF-8 incrementally, yielding text as the bytes arrive."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    read = getattr(stream, "read1", stream.read)
    offset = 0
    try:
        while True:
            data = read(65536)
            if not data:
                tail = decoder.decode(b"", final=True)
                if tail:
                    yield tail
                return
            text = decoder.decode(data)
            offset += len(data)
            if text:
                yield text
    except UnicodeDecodeError as exc:
        where = offset + exc.start
        print(f"callsieve: {name} is not valid UTF-8 (bad byte near offset {where})", file=sys.stderr)
        raise SystemExit(1) from None
    except OSError as exc:
        print(f"callsieve: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _sieve_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "tool_names": args.tools,
        "tools": _read_tools(args.tools_file) if args.tools_file else None,
        "unknown_tools": args.unknown_tools,
        "json_tool_calls": args.json_calls,
        "formats": args.formats,
        "reasoning": args.reasoning,
        "preset": args.preset,
    }


def _list_formats(as_json: bool) -> int:
    from .formats import FORMAT_TABLE, PRESET_TABLE, table

    if as_json:
        _print(table())
        return 0
    out = ["formats (on by default unless marked 'off'):"]
    for f in FORMAT_TABLE:
        mark = "" if f.default else " [off]"
        out.append(f"  {f.name:<15} {f.rule:<12} {f.summary}{mark}")
    out.append("presets (--preset NAME):")
    for p in PRESET_TABLE:
        out.append(f"  {p.name:<15} formats={','.join(p.formats)} reasoning={p.reasoning}  {p.models}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _print(obj: Any) -> None:
    sys.stdout.write(dumps(jsonable(obj)) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    if args.command == "serve":
        return _serve(args, args.serve_parser)
    if args.command == "formats":
        return _list_formats(args.json)
    if args.command == "batch":
        from .batch import command

        return command(args, _sieve_options(args))
    stream = _open(args.file)
    name = "standard input" if args.file == "-" else args.file
    try:
        if args.command == "openai":
            return _openai(args, stream, name)
        kw = {**_sieve_options(args), "stream_arguments": args.stream_arguments}
        if args.command == "parse":
            text = "".join(_decoded(stream, name))
            _print(parse(text, **kw).to_dict())
            return 0
        sieve = Sieve(**kw)
        size = args.chunk_size

        def emit(events: list[Any]) -> None:
            for e in events:
                d = e.to_dict()
                if args.raw and e.type == "tool_calls":
                    d["raw"] = e.raw
                _print(d)
            sys.stdout.flush()

        for text in _decoded(stream, name):
            if size is None:
                emit(sieve.feed(text))
            else:
                for i in range(0, len(text), size):
                    emit(sieve.feed(text[i : i + size]))
        emit(sieve.flush())
        return 0
    except BrokenPipeError:
        return 0
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def run() -> None:
    raise SystemExit(main())


if __name__ == "__main__":
    run()
