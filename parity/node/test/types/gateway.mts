// Type tests for the gateway exported by the package (index.d.ts / index.d.mts): `tsc -p test/types`.
// As in usage.ts, the checks sit in functions that nothing calls: running this file executes no misuse.

import { createGatewayServer, gatewayHandler, parseGatewayArgs } from 'callsieve';
import type { GatewayConfig, GatewayHandler, GatewayServer } from 'callsieve';

export function gatewayUsage(): void {
  const config: GatewayConfig = {
    upstream: 'http://127.0.0.1:8000/v1',
    apiKeys: ['k-one', 'k-two'],
    upstreamApiKey: 'sk-upstream',
    forwardClientKey: false,
    maxBodyBytes: 1024 * 1024,
    corsOrigins: ['https://app.example'],
    logLevel: 'warning',
    logFormat: 'json',
    log: (line: string) => void line,
  };
  const server: GatewayServer = createGatewayServer(config);
  server.keepAliveTimeout = 65000;
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    if (a !== null && typeof a !== 'string') void a.port;
  });
  const handler: GatewayHandler = gatewayHandler({ upstream: 'http://u/v1' });
  void handler;
  const args = parseGatewayArgs(['--upstream', 'http://u/v1'], { CALLSIEVE_PORT: '0' });
  if ('upstream' in args) createGatewayServer(args).listen(args.port, args.host);
  // @ts-expect-error: the upstream is required
  createGatewayServer({ apiKeys: ['k'] });
  // @ts-expect-error: no such log format
  createGatewayServer({ upstream: 'http://u', logFormat: 'xml' });
  // @ts-expect-error: keys are strings
  createGatewayServer({ upstream: 'http://u', apiKeys: [1] });
  createGatewayServer({ upstream: 'http://u', preset: 'gpt-oss', presetMap: [['qwen3-coder*', 'qwen3-coder']], reasoning: null });
  // @ts-expect-error: no such preset
  createGatewayServer({ upstream: 'http://u', preset: 'gpt-5' });
  // @ts-expect-error: a preset map is pairs, not PATTERN=PRESET strings
  createGatewayServer({ upstream: 'http://u', presetMap: ['qwen3*=qwen3'] });
}
