// toolsieve/ai-sdk from CommonJS (ai-sdk.d.ts); usage.mts does the same from an ES module with
// `ai`'s functions. `ai` is ESM only, so a CommonJS file takes its types with resolution-mode.

import type { LanguageModelMiddleware } from 'ai' with { 'resolution-mode': 'import' };
import type { LanguageModelV4Middleware } from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import { toolsieveMiddleware, type ToolsieveMiddleware, type ToolsieveMiddlewareOptions } from 'toolsieve/ai-sdk';

const options: ToolsieveMiddlewareOptions = { tools: [{ name: 'ls', inputSchema: { type: 'object' } }], unknownTools: 'keep' };
const middleware: ToolsieveMiddleware = toolsieveMiddleware(options);
const asAi: LanguageModelMiddleware = middleware;
const asSpec: LanguageModelV4Middleware = toolsieveMiddleware(null);
void [asAi, asSpec, middleware.wrapGenerate, middleware.wrapStream];

function misuse(): void {
  // @ts-expect-error toolNames are strings
  toolsieveMiddleware({ toolNames: [1] });
  // @ts-expect-error maxCaptureChars is a number
  toolsieveMiddleware({ maxCaptureChars: '10' });
}

void misuse;
