"""What the gateway counts: `/metrics`' Prometheus counters, and what one request did (`_Outcome`),
for its log line and the counters."""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


@dataclass
class _Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.requests = Counter("callsieve_requests", "Requests answered", ["endpoint", "status"], registry=r)
        self.duration = Histogram(
            "callsieve_request_duration_seconds", "Time from request to the end of the answer",
            ["endpoint"], registry=r,
        )  # fmt: skip
        self.blocks = Counter("callsieve_blocks", "Tool-call blocks recognized", registry=r)
        self.calls = Counter("callsieve_tool_calls", "Tool calls emitted", registry=r)
        self.rejected = Counter(
            "callsieve_rejected_calls", "Calls dropped by unknown_tools=reject", registry=r
        )
        self.capture = Counter(
            "callsieve_capture_limit_releases", "Blocks released as text at max_capture_chars", registry=r
        )
        self.repaired = Counter(
            "callsieve_repaired_blocks", "Blocks the sieve had to repair (R3, D8, D26, D37, D44)", registry=r
        )
        self.upstream_errors = Counter("callsieve_upstream_errors", "Upstream failures", ["kind"], registry=r)
        self.disconnects = Counter("callsieve_client_disconnects", "Clients that left mid-stream", registry=r)
        self.active = Gauge("callsieve_active_streams", "Streams in progress", registry=r)
        self.presets = Counter(
            "callsieve_preset_requests",
            "Chat requests by the preset chosen (-: none)",
            ["preset"],
            registry=r,
        )


@dataclass
class _Outcome:
    """What one request did, for the log line and the metrics."""

    stream: bool = False
    stats: dict[str, int] = field(default_factory=dict)
    rejected: list[str] = field(default_factory=list)
    end: str = ""
    preset: str | None = None  # the preset chosen for the request (R19.2)
