// Type tests for the ESM entry (index.d.mts, resolved through the "import" condition).
// As in usage.ts, the checks sit in functions that nothing calls: running this file executes no misuse.

import callsieve, { parse, Sieve, CallsieveError, createSSERewriteStream, version } from 'callsieve';
import type { SieveEvent, ToolCall, ParseResult } from 'callsieve';
import * as ns from 'callsieve';
import compat, { parseToolCalls, createCallSieveState } from 'callsieve/compat';
import type { CompatToolCall } from 'callsieve/compat';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_: T): void {}

function namedImports(): void {
  const result: ParseResult = parse('<|DSML|tool_calls></|DSML|tool_calls>', { toolNames: ['ls'] });
  const calls: ToolCall[] = result.calls;
  void calls;

  const sieve = new Sieve({ tools: [{ type: 'function', function: { name: 'ls' } }] });
  const events: SieveEvent[] = [...sieve.feed('x'), ...sieve.flush()];
  for (const e of events) {
    if (e.type === 'tool_calls') void e.raw;
    // @ts-expect-error narrow by e.type first
    else void e.raw;
  }
  const v: string = version;
  void v;

  // @ts-expect-error parse() takes a string
  parse(123);
  // @ts-expect-error toolNames must not be a single string
  new Sieve({ toolNames: 'x' });
}

// The default export is the CommonJS exports object: the same functions and classes.
async function defaultImport(): Promise<void> {
  assertType<Equal<typeof callsieve.parse, typeof parse>>(true);
  assertType<Equal<typeof callsieve.Sieve, typeof Sieve>>(true);
  assertType<Equal<typeof ns.createSSERewriteStream, typeof createSSERewriteStream>>(true);
  const fromDefault: Sieve = new callsieve.Sieve();
  void fromDefault;
  const err: CallsieveError = new callsieve.OptionsError('x');
  void err;
  for await (const chunk of callsieve.rewriteChatCompletionStream([{ choices: [] }], { unknownTools: 'reject' })) {
    void chunk.choices;
  }

  // @ts-expect-error unknownTools is 'keep' or 'reject'
  callsieve.parse('x', { unknownTools: 'drop' });
  // @ts-expect-error there is no such export
  void ns.Scanner;
  // @ts-expect-error the default export has no `default`
  void callsieve.default;
}

// callsieve/compat has an ESM entry too (compat.d.mts): named imports and the default export.
function compatImports(): void {
  const calls: CompatToolCall[] = parseToolCalls('x', ['ls']);
  assertType<Equal<typeof compat.parseToolCalls, typeof parseToolCalls>>(true);
  const state = createCallSieveState();
  void [calls, compat.processCallSieveChunk(state, 'x')];
  // @ts-expect-error compat has no parse
  void compat.parse;
}

void [namedImports, defaultImport, compatImports];
