// callsieve/ai-sdk against the `ai` package's own types (tsc -p test/types/ai-sdk; `ai` is a
// pinned devDependency). Through the ESM entry (ai-sdk.d.mts); usage.ts does the same from CommonJS.

import { generateText, streamText, wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from 'ai';
import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import aiSdk, { callsieveMiddleware, type CallsieveMiddlewareOptions } from 'callsieve/ai-sdk';

declare const base: Exclude<LanguageModel, string>;

const options: CallsieveMiddlewareOptions = { unknownTools: 'reject', formats: ['dsml', 'tokens'], reasoning: 'open', idFactory: () => 'id' };
const middleware = callsieveMiddleware(options);
const asAi: LanguageModelMiddleware = middleware;
const asSpec: LanguageModelV4Middleware = middleware; // the provider spec's own type, version v4
const model = wrapLanguageModel({ model: base, middleware: [middleware, callsieveMiddleware()] });
void [asAi, asSpec, aiSdk.callsieveMiddleware];

async function use(): Promise<void> {
  const r = await generateText({ model, prompt: 'hi' });
  void r.toolCalls;
  const s = streamText({ model: wrapLanguageModel({ model: base, middleware }), prompt: 'hi' });
  for await (const part of s.fullStream) void part;
}

function misuse(): void {
  // @ts-expect-error unknown policy
  callsieveMiddleware({ unknownTools: 'drop' });
  // @ts-expect-error unknown format
  callsieveMiddleware({ formats: ['json'] });
  // @ts-expect-error ids are strings
  callsieveMiddleware({ idFactory: () => 1 });
  // @ts-expect-error unknown option
  callsieveMiddleware({ tool: [] });
  // @ts-expect-error unknown reasoning mode
  callsieveMiddleware({ reasoning: 'always' });
}

void [use, misuse];
