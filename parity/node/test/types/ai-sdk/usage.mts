// toolsieve/ai-sdk against the `ai` package's own types (tsc -p test/types/ai-sdk; `ai` is a
// pinned devDependency). Through the ESM entry (ai-sdk.d.mts); usage.ts does the same from CommonJS.

import { generateText, streamText, wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from 'ai';
import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import aiSdk, { toolsieveMiddleware, type ToolsieveMiddlewareOptions } from 'toolsieve/ai-sdk';

declare const base: Exclude<LanguageModel, string>;

const options: ToolsieveMiddlewareOptions = { unknownTools: 'reject', formats: ['dsml', 'tokens'], reasoning: 'open', idFactory: () => 'id' };
const middleware = toolsieveMiddleware(options);
const asAi: LanguageModelMiddleware = middleware;
const asSpec: LanguageModelV4Middleware = middleware; // the provider spec's own type, version v4
const model = wrapLanguageModel({ model: base, middleware: [middleware, toolsieveMiddleware()] });
void [asAi, asSpec, aiSdk.toolsieveMiddleware];

async function use(): Promise<void> {
  const r = await generateText({ model, prompt: 'hi' });
  void r.toolCalls;
  const s = streamText({ model: wrapLanguageModel({ model: base, middleware }), prompt: 'hi' });
  for await (const part of s.fullStream) void part;
}

function misuse(): void {
  // @ts-expect-error unknown policy
  toolsieveMiddleware({ unknownTools: 'drop' });
  // @ts-expect-error unknown format
  toolsieveMiddleware({ formats: ['json'] });
  // @ts-expect-error ids are strings
  toolsieveMiddleware({ idFactory: () => 1 });
  // @ts-expect-error unknown option
  toolsieveMiddleware({ tool: [] });
  // @ts-expect-error unknown reasoning mode
  toolsieveMiddleware({ reasoning: 'always' });
}

void [use, misuse];
