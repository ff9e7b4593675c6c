// Type tests for the CommonJS entry (index.d.ts): `tsc -p test/types` from parity/node.
// Each `@ts-expect-error` line is misuse that must not compile: if it did, tsc would report the
// directive as unused. The checks sit in functions that nothing calls, so that running this file
// (`node --test` picks up test/**/*.ts where Node strips types) executes no misuse.

import {
  parse,
  Sieve,
  coalesce,
  CallsieveError,
  InputTypeError,
  SieveClosedError,
  OptionsError,
  SSEFormatError,
  OpenAIFormatError,
  applyPolicy,
  resolveToolName,
  normalizeRole,
  jsonText,
  normalizeInput,
  toolNamesOf,
  buildToolInstructions,
  SSEParser,
  ChatChunkParser,
  iterSSEEvents,
  iterChatChunks,
  writeSSE,
  createSSEDecoderStream,
  createSSEEncoderStream,
  newCallId,
  toOpenAIToolCalls,
  toOpenAIStreamDeltas,
  ChatCompletionStreamRewriter,
  rewriteChatCompletionStream,
  rewriteChatCompletion,
  createChatCompletionRewriteStream,
  createSSERewriteStream,
  FORMATS,
  PRESETS,
  version,
} from 'callsieve';
import type {
  FormatName,
  ToolCall,
  SieveEvent,
  TextEvent,
  ToolCallsEvent,
  ToolCallStartEvent,
  ToolCallArgumentsEvent,
  ParseResult,
  SieveOptions,
  ToolDefinition,
  Role,
  SSEEvent,
  OpenAIToolCall,
  OpenAIToolCallDelta,
  ChatCompletionChunkObject,
  ChatCompletionObject,
  RewriteOptions,
  PolicyResult,
} from 'callsieve';

// Node may run this file as ESM: type `callsieve/compat` here without importing it at run time
// (usage.mts imports it).
declare const compat: typeof import('callsieve/compat');
import type { CompatEvent, CompatToolCall } from 'callsieve/compat';
// The module as `require('callsieve')` gives it.
declare const callsieveNs: typeof import('callsieve');

/** Exact type equality, for checking what the declarations infer. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_: T): void {}

declare function show(text: string): void;
declare function run(calls: ToolCall[]): void;

// Tool definitions as callers write them, and as SDK types (interfaces, no index signature) give them.
const tools = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      strict: true,
    },
  },
  { name: 'search', description: 'Search', input_schema: { type: 'object', properties: { q: { type: 'string' } } } },
] as const;
interface SdkFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: { [key: string]: unknown } };
}
declare const sdkTools: SdkFunctionTool[];
declare const upstreamChunk: unknown; // e.g. a value from iterChatChunks()
const typedTool: ToolDefinition = { name: 'ls', inputSchema: { type: 'object' } };
const reply = '<|DSML|tool_calls><|DSML|invoke name="ls"></|DSML|invoke></|DSML|tool_calls>';

// ---- parse -----------------------------------------------------------------------------------
function parseUsage(): void {
  const result: ParseResult = parse(reply, { tools });
  assertType<Equal<typeof result.calls, ToolCall[]>>(true);
  for (const c of result.calls) {
    const name: string = c.name;
    const input: Record<string, unknown> = c.input;
    void name;
    void input;
  }
  const sawSyntax: boolean = result.sawToolCallSyntax;
  const rejectedByPolicy: boolean = result.rejectedByPolicy;
  const rejected: string[] = result.rejectedToolNames;
  void [sawSyntax, rejectedByPolicy, rejected];
  parse(reply);
  parse(reply, null);
  parse(reply, { toolNames: ['ls'], unknownTools: 'reject', jsonToolCalls: true, maxCaptureChars: 1024 });
  parse(reply, { toolNames: new Set(['ls']) });
  parse(reply, { tools: sdkTools });
  parse(reply, { tools: [typedTool], toolNames: null });
  parse(reply, { unknownTools: undefined }); // explicit undefined is the default, even with exactOptionalPropertyTypes
  parse(reply, { formats: ['dsml', 'tokens'] });
  parse(reply, { formats: null });
  const someFormats: FormatName[] = ['function_calls'];
  new Sieve({ formats: someFormats }).formats.has('function_calls');
  const described: string = FORMATS.tokens.summary;
  void described;
  parse(reply, { preset: 'qwen3-coder' });
  const opener: string = FORMATS.qwen3_coder.opener;
  void opener;
  const presetFormats: FormatName[] = PRESETS['kimi-k2'].formats;
  void presetFormats;
  // @ts-expect-error an unknown preset
  parse(reply, { preset: 'gpt-5' });

  // @ts-expect-error parse() takes a string
  parse(123);
  // @ts-expect-error not a Buffer either
  parse(new Uint8Array(4));
  // @ts-expect-error toolNames is a list of names, not a single name
  parse(reply, { toolNames: 'ls' });
  // @ts-expect-error unknownTools is 'keep' or 'reject'
  parse(reply, { unknownTools: 'drop' });
  // @ts-expect-error unknown option (OptionsError at runtime)
  parse(reply, { toolName: ['ls'] });
  // @ts-expect-error tools is a list
  parse(reply, { tools: tools[0] });
  // @ts-expect-error tool definitions are objects, not names
  parse(reply, { tools: ['read_file'] });
  // @ts-expect-error jsonToolCalls is a boolean
  parse(reply, { jsonToolCalls: 'yes' });
  // @ts-expect-error formats is a list of names, not a single name (InputTypeError at runtime)
  parse(reply, { formats: 'dsml' });
  // @ts-expect-error an unknown format name (OptionsError at runtime)
  parse(reply, { formats: ['xml'] });
  // @ts-expect-error null is not a policy (OptionsError at runtime)
  parse(reply, { unknownTools: null });
  // @ts-expect-error the result has no `events`
  parse(reply).events;
}

// ---- Sieve -----------------------------------------------------------------------------------
function sieveUsage(): void {
  async function stream(deltas: AsyncIterable<string>): Promise<void> {
    const options: SieveOptions = { tools, unknownTools: 'reject', reasoning: 'open' };
    const sieve = new Sieve(options);
    for await (const chunk of deltas) {
      for (const e of sieve.feed(chunk)) {
        if (e.type === 'text') show(e.text);
        else if (e.type === 'reasoning') show(e.text);
        else if (e.type === 'tool_calls') run(e.calls);
      }
    }
    // @ts-expect-error not a reasoning mode
    void new Sieve({ reasoning: 'on' });
    const streaming = new Sieve({ tools, streamArguments: true });
    const streams: boolean = streaming.streamArguments;
    const announced: (ToolCallStartEvent | ToolCallArgumentsEvent)[] = [];
    for (const e of streaming.feed(reply)) if (e.type === 'tool_call_start' || e.type === 'tool_call_arguments') announced.push(e);
    void [streams, announced];
    // @ts-expect-error streamArguments is a boolean
    void new Sieve({ streamArguments: 'yes' });
    for (const e of sieve.flush()) {
      switch (e.type) {
        case 'text': {
          const note: string | undefined = e.note;
          void note;
          // @ts-expect-error a text event has no calls
          void e.calls;
          break;
        }
        case 'tool_calls': {
          const raw: string = e.raw;
          const names: string[] | undefined = e.rejectedToolNames;
          void [raw, names];
          break;
        }
        case 'reasoning': {
          const thought: string = e.text;
          void thought;
          break;
        }
        case 'tool_call_start': {
          const started: [number, string] = [e.index, e.name];
          void started;
          // @ts-expect-error an announced call has no arguments yet
          void e.delta;
          break;
        }
        case 'tool_call_arguments': {
          const fragment: [number, string] = [e.index, e.delta];
          void fragment;
          break;
        }
        default: {
          const never: never = e;
          void never;
        }
      }
    }
    const names: string[] = sieve.rejectedToolNames;
    const saw: boolean = sieve.sawToolCallSyntax;
    const work: number = sieve.work;
    const declared: readonly string[] = sieve.toolNames;
    const policy: 'keep' | 'reject' = sieve.unknownTools;
    void [names, saw, work, declared, policy, sieve.tools];
  }
  void stream;

  const sieve = new Sieve();
  new Sieve(null);
  new Sieve({ toolNames: ['read_file'] });
  const events: SieveEvent[] = sieve.feed('hello').concat(sieve.flush());
  const first = events[0];
  if (first !== undefined) {
    // @ts-expect-error narrow by e.type before reading e.calls
    void first.calls;
    if (first.type === 'tool_calls') {
      const calls: ToolCall[] = first.calls;
      void calls;
    }
  }
  const textEvent: TextEvent = { type: 'text', text: 'x', note: 'capture_limit' };
  const callsEvent: ToolCallsEvent = { type: 'tool_calls', calls: [{ name: 'ls', input: {} }], raw: '' };
  const merged: SieveEvent[] = coalesce([textEvent, textEvent, callsEvent]);
  void merged;

  // @ts-expect-error toolNames must not be a single string
  new Sieve({ toolNames: 'x' });
  // @ts-expect-error toolNames hold strings
  new Sieve({ toolNames: ['x', 1] });
  // @ts-expect-error unknownTools is 'keep' or 'reject'
  new Sieve({ unknownTools: 'drop' });
  // @ts-expect-error maxCaptureChars is a number
  new Sieve({ maxCaptureChars: '100' });
  // @ts-expect-error options are an object
  new Sieve('read_file');
  // @ts-expect-error feed() takes a string
  sieve.feed(new Uint8Array(1));
  // @ts-expect-error flush() takes nothing
  sieve.flush('rest');
  // @ts-expect-error the declared names are read-only
  sieve.toolNames.push('x');
  // @ts-expect-error rejectedToolNames is a getter
  sieve.rejectedToolNames = [];
  // @ts-expect-error text events have no raw
  const badText: TextEvent = { type: 'text', text: 'x', raw: 'x' };
  void badText;
  // @ts-expect-error a tool_calls event needs raw
  const badCalls: ToolCallsEvent = { type: 'tool_calls', calls: [] };
  void badCalls;
  // @ts-expect-error the input of a call is an object
  const badCall: ToolCall = { name: 'ls', input: '{}' };
  void badCall;
}

// ---- Errors ----------------------------------------------------------------------------------
function errorUsage(): void {
  const sieve = new Sieve();
  sieve.flush();

  try {
    sieve.feed('more');
  } catch (err) {
    if (err instanceof SieveClosedError) {
      const e: CallsieveError = err;
      const message: string = e.message;
      const name: string = e.name;
      void [message, name];
    } else if (err instanceof InputTypeError || err instanceof OptionsError) {
      const e: Error = err;
      void e;
    } else if (err instanceof SSEFormatError || err instanceof OpenAIFormatError) {
      const e: CallsieveError = err;
      void e;
    }
  }
  const custom = new CallsieveError('boom');
  new InputTypeError();
  void custom;
}

// ---- Names, roles, schemas, prompt -----------------------------------------------------------
function namesUsage(): void {
  const result = parse(reply, { tools });

  const policyResult: PolicyResult = applyPolicy(result.calls, ['read_file'], 'reject');
  const kept: ToolCall[] = policyResult.calls;
  void kept;
  applyPolicy([{ name: 'ls', input: {} }], null);
  applyPolicy(new Set<ToolCall>(), new Set(['ls']), 'keep');
  const resolved: string | null = resolveToolName('functions.READ_FILE', ['read_file']);
  resolveToolName(undefined, null); // a non-string name resolves to null
  void resolved;
  const role: Role = normalizeRole('developer');
  const role2: 'system' | 'user' | 'assistant' | 'tool' = normalizeRole(42);
  void [role, role2];
  const text: string = jsonText({ a: [1, 'x', null, true] });
  void text;
  const normalized: Record<string, unknown> = normalizeInput('read_file', { path: 1 }, tools);
  normalizeInput('read_file', { path: 1 }, null);
  void normalized;
  const declaredNames: string[] = toolNamesOf(tools);
  void declaredNames;
  const systemPrompt: string = buildToolInstructions(sdkTools);
  buildToolInstructions(undefined);
  void systemPrompt;

  // @ts-expect-error unknownTools is 'keep' or 'reject'
  applyPolicy([], ['ls'], 'drop');
  // @ts-expect-error calls are {name, input} objects
  applyPolicy([{ name: 'ls' }], ['ls']);
  // @ts-expect-error toolNames must not be a single string
  resolveToolName('ls', 'ls');
  // @ts-expect-error normalizeRole returns a role, not any string
  const notRole: 'developer' = normalizeRole('developer');
  void notRole;
  // @ts-expect-error the input is an object
  normalizeInput('ls', 'x', tools);
}

// ---- SSE -------------------------------------------------------------------------------------
function sseUsage(): void {
  const encoder = new TextEncoder();
  const parser = new SSEParser();
  const sseEvents: SSEEvent[] = parser.feed(encoder.encode('data: {"a":1}\n\n')).concat(parser.finish());
  for (const ev of sseEvents) {
    const data: string = ev.data;
    const type: string = ev.event;
    const id: string | null = ev.id;
    const retry: number | null = ev.retry;
    void [data, type, id, retry];
  }
  // @ts-expect-error SSEParser reads bytes, not strings
  parser.feed('data: x\n\n');
  const chunks = new ChatChunkParser();
  const values: unknown[] = chunks.feed(encoder.encode('data: 1\n\ndata: [DONE]\n\n')).concat(chunks.finish());
  const ended: boolean = chunks.sawDone;
  void [values, ended];
  // @ts-expect-error sawDone is read-only
  chunks.sawDone = true;

  async function sse(body: AsyncIterable<Uint8Array>, bytes: Uint8Array[]): Promise<void> {
    for await (const ev of iterSSEEvents(body)) {
      const e: SSEEvent = ev;
      void e;
    }
    for await (const value of iterChatChunks(bytes)) {
      // @ts-expect-error chunk values are unknown JSON: narrow before use
      void value.choices;
    }
    const parts: BlobPart[] = [];
    for await (const out of writeSSE([{ a: 1 }, { b: 2 }], { done: false })) {
      const b: Uint8Array = out;
      parts.push(out); // a BufferSource: backed by a plain ArrayBuffer, as TextEncoder#encode gives it
      void b;
    }
    void new Blob(parts);
    for await (const out of writeSSE(iterChatChunks(body))) void out;
    // @ts-expect-error SSE input is Uint8Array chunks
    iterSSEEvents(['data: x\n\n']);
    // @ts-expect-error done is a boolean
    writeSSE([], { done: 'no' });
  }
  void sse;

  function pipes(upstream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const decoded: ReadableStream<unknown> = upstream.pipeThrough(createSSEDecoderStream());
    const rewritten = decoded.pipeThrough(createChatCompletionRewriteStream({ tools, formats: ['tokens'] }));
    const encoded = rewritten.pipeThrough(createSSEEncoderStream());
    createSSEEncoderStream({ done: false });
    return encoded;
  }
  void pipes;
}

// ---- OpenAI ----------------------------------------------------------------------------------
function openaiUsage(): void {
  const result = parse(reply, { tools });

  const id: string = newCallId();
  void id;
  const toolCalls: OpenAIToolCall[] = toOpenAIToolCalls(result.calls, { tools, idFactory: () => 'call_1' });
  toOpenAIToolCalls(result.calls);
  const args: string = toolCalls[0]?.function.arguments ?? '';
  const fnType: 'function' | undefined = toolCalls[0]?.type;
  void [args, fnType];
  const deltas: OpenAIToolCallDelta[] = toOpenAIStreamDeltas(result.calls, { startIndex: 2, tools: null });
  const index: number | undefined = deltas[0]?.index;
  void index;
  // @ts-expect-error startIndex is only for stream deltas
  toOpenAIToolCalls(result.calls, { startIndex: 2 });
  // @ts-expect-error idFactory returns a string
  toOpenAIToolCalls(result.calls, { idFactory: () => 1 });
  // @ts-expect-error message.tool_calls entries have no index
  void toolCalls[0]?.index;

  const rewriter = new ChatCompletionStreamRewriter({ tools, unknownTools: 'reject', idFactory: newCallId });
  const outChunks: ChatCompletionChunkObject[] = rewriter.feed(upstreamChunk).concat(rewriter.finish());
  for (const chunk of outChunks) {
    const content: string | null | undefined = chunk.choices?.[0]?.delta?.content;
    const usage: unknown = chunk['usage'];
    void [content, usage];
  }
  const rewriterRejected: string[] = rewriter.rejectedToolNames;
  void rewriterRejected;
  new ChatCompletionStreamRewriter();
  // @ts-expect-error rejectedToolNames is an option of the functions and streams, not of the class
  new ChatCompletionStreamRewriter({ rejectedToolNames: [] });
  // @ts-expect-error unknownTools is 'keep' or 'reject'
  new ChatCompletionStreamRewriter({ unknownTools: 'drop' });

  async function gateway(chunks: AsyncIterable<object>, response: object): Promise<void> {
    const rejectedNames: string[] = [];
    const opts: RewriteOptions = { tools: sdkTools, unknownTools: 'reject', rejectedToolNames: rejectedNames };
    for await (const chunk of rewriteChatCompletionStream(chunks, opts)) {
      const c: ChatCompletionChunkObject = chunk;
      void c;
    }
    for await (const chunk of rewriteChatCompletionStream([{ choices: [] }])) void chunk;
    const rewritten: ChatCompletionObject = rewriteChatCompletion(response, { toolNames: ['ls'] });
    rewriteChatCompletion(response, { formats: ['tokens'] });
    new ChatCompletionStreamRewriter({ formats: ['dsml', 'function_calls'] });
    new ChatCompletionStreamRewriter({ streamArguments: true });
    for await (const chunk of rewriteChatCompletionStream(chunks, { ...opts, streamArguments: true })) void chunk;
    createChatCompletionRewriteStream({ streamArguments: true });
    // @ts-expect-error a whole response has nothing to stream
    rewriteChatCompletion(response, { streamArguments: true });
    const messageContent: string | null | undefined = rewritten.choices?.[0]?.message?.content;
    void messageContent;
    // @ts-expect-error chunks must be an iterable
    rewriteChatCompletionStream(42);
    // @ts-expect-error rejectedToolNames is a mutable string array that names are appended to
    rewriteChatCompletion(response, { rejectedToolNames: 'x' });
    const frozen: readonly string[] = [];
    // @ts-expect-error a read-only array cannot receive the rejected names
    rewriteChatCompletion(response, { rejectedToolNames: frozen });
    // @ts-expect-error the rewritten chunk's delta content is a string or null, never a number
    const n: number | undefined = (await rewriteChatCompletionStream([] as unknown[]).next()).value?.choices?.[0]?.delta?.content;
    void n;
  }
  void gateway;

  function fetchHandler(upstream: Response, requestTools: ToolDefinition[]): Response {
    if (upstream.body === null) return upstream;
    return new Response(upstream.body.pipeThrough(createSSERewriteStream({ tools: requestTools })), {
      headers: { 'content-type': 'text/event-stream' },
    });
  }
  void fetchHandler;
  const sseRewrite: TransformStream<Uint8Array, Uint8Array> = createSSERewriteStream({ toolNames: ['ls'] });
  void sseRewrite;

  const v: string = version;
  void v;
  // @ts-expect-error version is a constant
  version = '1';
}

// ---- `require('callsieve')` gives the same module ------------------------------------------------
function namespaceUsage(): void {
  assertType<Equal<typeof callsieveNs.parse, typeof parse>>(true);
  const nsSieve: Sieve = new callsieveNs.Sieve();
  void nsSieve;
}

// ---- callsieve/compat ------------------------------------------------------------------------
function compatUsage(): void {
  const state = compat.createCallSieveState();
  const compatEvents: CompatEvent[] = compat
    .processCallSieveChunk(state, 'chunk', ['read_file'])
    .concat(compat.processCallSieveChunk(state, null), compat.flushCallSieve(state, 'read_file'));
  for (const e of compatEvents) {
    if (e.type === 'tool_calls') {
      const calls: CompatToolCall[] = e.calls;
      void calls;
      // @ts-expect-error compat events have no raw
      void e.raw;
    }
  }
  const compatCalls: CompatToolCall[] = compat.parseToolCalls(reply, undefined);
  const detailed = compat.parseToolCallsDetailed(reply, new Set(['ls']));
  const standalone = compat.parseStandaloneToolCalls(null);
  const standaloneDetailed = compat.parseStandaloneToolCallsDetailed(reply, 'ls');
  const extracted: string[] = compat.extractToolNames(tools);
  const ids = new Map<number, string>();
  const formatted = compat.formatOpenAIStreamToolCalls([{ name: 'ls', input: {} }, { name: 'x', input: '{"a":1}' }], ids, tools);
  const formattedId: string | undefined = formatted[0]?.id;
  void [compatCalls, detailed.sawToolCallSyntax, standalone, standaloneDetailed.rejectedToolNames, extracted, formattedId];
  // @ts-expect-error the state comes from createCallSieveState()
  compat.processCallSieveChunk(null, 'x');
}

void [parseUsage, sieveUsage, errorUsage, namesUsage, sseUsage, openaiUsage, namespaceUsage, compatUsage];
