// callsieve/ai-sdk from CommonJS (ai-sdk.d.ts); usage.mts does the same from an ES module with
// `ai`'s functions. `ai` is ESM only, so a CommonJS file takes its types with resolution-mode.

import type { LanguageModelMiddleware } from 'ai' with { 'resolution-mode': 'import' };
import type { LanguageModelV4Middleware } from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import { callsieveMiddleware, type CallsieveMiddleware, type CallsieveMiddlewareOptions } from 'callsieve/ai-sdk';

const options: CallsieveMiddlewareOptions = { tools: [{ name: 'ls', inputSchema: { type: 'object' } }], unknownTools: 'keep' };
const middleware: CallsieveMiddleware = callsieveMiddleware(options);
const asAi: LanguageModelMiddleware = middleware;
const asSpec: LanguageModelV4Middleware = callsieveMiddleware(null);
void [asAi, asSpec, middleware.wrapGenerate, middleware.wrapStream];

function misuse(): void {
  // @ts-expect-error toolNames are strings
  callsieveMiddleware({ toolNames: [1] });
  // @ts-expect-error maxCaptureChars is a number
  callsieveMiddleware({ maxCaptureChars: '10' });
}

void misuse;
