'use strict';
/** What the gateway counts: the counters of /metrics, in the Prometheus text format. Port of
 * python/callsieve/metrics.py (which uses prometheus_client). */

/** The counters of /metrics, in the Prometheus text format. */
class Metrics {
  constructor() {
    this.requests = new Map(); // "endpoint status" -> count
    this.durationSum = new Map();
    this.blocks = 0;
    this.calls = 0;
    this.rejected = 0;
    this.capture = 0;
    this.repaired = 0;
    this.upstreamErrors = new Map();
    this.disconnects = 0;
    this.active = 0;
    this.presets = new Map(); // preset ('-': none) -> chat requests
  }

  text() {
    const lines = [];
    const counter = (name, help, rows) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const [labels, v] of rows) lines.push(`${name}_total${labels} ${v}`);
    };
    const label = (obj) =>
      '{' + Object.entries(obj).map(([k, v]) => `${k}="${String(v).replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : '\\' + c))}"`).join(',') + '}';
    counter('callsieve_requests', 'Requests answered', [...this.requests].map(([k, v]) => {
      const [endpoint, status] = k.split(' ');
      return [label({ endpoint, status }), v];
    }));
    lines.push('# HELP callsieve_request_duration_seconds Time from request to the end of the answer');
    lines.push('# TYPE callsieve_request_duration_seconds summary');
    for (const [endpoint, [n, sum]] of this.durationSum) {
      lines.push(`callsieve_request_duration_seconds_count${label({ endpoint })} ${n}`);
      lines.push(`callsieve_request_duration_seconds_sum${label({ endpoint })} ${sum}`);
    }
    counter('callsieve_blocks', 'Tool-call blocks recognized', [['', this.blocks]]);
    counter('callsieve_tool_calls', 'Tool calls emitted', [['', this.calls]]);
    counter('callsieve_rejected_calls', 'Calls dropped by unknown_tools=reject', [['', this.rejected]]);
    counter('callsieve_capture_limit_releases', 'Blocks released as text at max_capture_chars', [['', this.capture]]);
    counter('callsieve_repaired_blocks', 'Blocks the sieve had to repair (R3, D8, D26, D37, D44)', [['', this.repaired]]);
    counter('callsieve_upstream_errors', 'Upstream failures', [...this.upstreamErrors].map(([kind, v]) => [label({ kind }), v]));
    counter('callsieve_client_disconnects', 'Clients that left mid-stream', [['', this.disconnects]]);
    counter('callsieve_preset_requests', 'Chat requests by the preset chosen (-: none)', [...this.presets].map(([preset, v]) => [label({ preset }), v]));
    lines.push('# HELP callsieve_active_streams Streams in progress', '# TYPE callsieve_active_streams gauge');
    lines.push(`callsieve_active_streams ${this.active}`);
    return lines.join('\n') + '\n';
  }

  upstreamError(kind) {
    this.upstreamErrors.set(kind, (this.upstreamErrors.get(kind) || 0) + 1);
  }
}

module.exports = {
  Metrics,
};
