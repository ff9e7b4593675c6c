/**
 * callsieve: sieve tool calls (DSML / XML tool-call markup) out of raw LLM text, streaming, in
 * linear time. Hand-written declarations for `index.js` (CommonJS); `index.d.mts` re-exports them
 * for the ESM entry.
 *
 * The stream helpers use the WHATWG `TransformStream`, `TextEncoder` and `Uint8Array` globals:
 * compile with `"lib": ["dom"]` or with `@types/node`.
 */

// ---- Events and results ----------------------------------------------------------------------

/** One tool call: the tool `name` and its `input` object (always a plain object). */
export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  /** The call's id where the model wrote one (Kimi-K2's `functions.NAME:0`, a Hermes `id`). */
  id?: string;
}

/** A call of a recognized block that cannot be executed (R18.2): never shown as text. */
export interface MalformedCall {
  /** The call's source text. */
  raw: string;
  /** Why it cannot be executed (`'not JSON'`, `'arguments are not a JSON object'`, …). */
  reason: string;
  /** Its name, when one could be read. */
  name?: string;
}

/** Text that is not part of a tool call, in source order. */
export interface TextEvent {
  type: 'text';
  text: string;
  /**
   * Why text that looked like a block was released: `'capture_limit'` when the block grew past
   * `maxCaptureChars`. Absent otherwise.
   */
  note?: string;
}

/** The calls of one recognized block. */
export interface ToolCallsEvent {
  type: 'tool_calls';
  /** Empty when `unknownTools: 'reject'` dropped every call of the block. */
  calls: ToolCall[];
  /** The block's exact source text. */
  raw: string;
  /** Names dropped by `unknownTools: 'reject'` (as written, once each); present only when some were. */
  rejectedToolNames?: string[];
  /** The format row the block was read by (D58: every format but JSON calls). */
  format?: FormatName;
  /** The block's calls that cannot be executed (R18.2); present only when some were. */
  malformed?: MalformedCall[];
  /** The decisions of the repairs applied (e.g. `'D44'`: a block cut by the end of the output). */
  repaired?: string[];
}

/** Text of a reasoning region (`<think>` … `</think>`): not content; markup in it is never a call. */
export interface ReasoningEvent {
  type: 'reasoning';
  text: string;
}

/**
 * With `streamArguments`: a call was announced as soon as its name was final. `index` counts the
 * announced calls of the stream from 0; the call is in a later `tool_calls` event.
 */
export interface ToolCallStartEvent {
  type: 'tool_call_start';
  index: number;
  /** The name as the block's `tool_calls` event will have it (declared spelling when it resolves). */
  name: string;
  /** The call's own id (Kimi-K2's, Mistral's `[CALL_ID]`, a Hermes `id`) when the model wrote it before the call was announced (D63). */
  id?: string;
}

/**
 * With `streamArguments`: the next fragment of call `index`'s arguments, as JSON text. A call's
 * fragments join to exactly `JSON.stringify` of its final (schema-normalized) input.
 */
export interface ToolCallArgumentsEvent {
  type: 'tool_call_arguments';
  index: number;
  delta: string;
}

/** What `Sieve#feed` / `Sieve#flush` return: narrow on `type`. */
export type SieveEvent = TextEvent | ToolCallsEvent | ReasoningEvent | ToolCallStartEvent | ToolCallArgumentsEvent;

/** What `parse()` returns. */
export interface ParseResult {
  calls: ToolCall[];
  /** True once a wrapper tag was recognized outside ignored regions (code fences, inline code). */
  sawToolCallSyntax: boolean;
  /** True when the reject policy dropped calls and none were left. */
  rejectedByPolicy: boolean;
  rejectedToolNames: string[];
  /** The reasoning text; present only when there was some. */
  reasoning?: string;
  /** The text outside calls and reasoning (the text events, joined); `''` when there was none. */
  text: string;
}

// ---- Options ---------------------------------------------------------------------------------

/**
 * Where reasoning is: `'auto'` (the default: the output may start with `<think>`), `'open'` (the
 * output starts inside reasoning; only `</think>` appears), `'off'` (no reasoning).
 */
export type ReasoningMode = 'off' | 'auto' | 'open';

/** `'keep'` (the default) keeps calls to undeclared tools, `'reject'` drops them. */
export type UnknownToolsPolicy = 'keep' | 'reject';

/**
 * Declared tool names: any iterable of strings (an array, a Set, ...) but not a single string,
 * which throws an `InputTypeError`.
 */
export type ToolNames = Iterable<string> & object;

/**
 * The shapes of a tool definition callsieve reads: OpenAI (`{type: 'function', function: {name,
 * description, parameters}}`), or flat (`{name, description, input_schema | inputSchema |
 * parameters | schema}`). Names are trimmed; entries without a name are skipped.
 */
export interface ToolDefinition {
  type?: string;
  function?: {
    name?: string;
    description?: string;
    parameters?: Record<string, unknown>;
    [key: string]: unknown;
  };
  name?: string;
  description?: string;
  parameters?: Record<string, unknown>;
  input_schema?: Record<string, unknown>;
  inputSchema?: Record<string, unknown>;
  schema?: Record<string, unknown>;
}

/**
 * A list (array) of tool definitions. Any object is accepted (SDK types included); the ones
 * without a usable name are skipped.
 */
export type ToolList = readonly (ToolDefinition | object)[];

/**
 * A markup format the scanner recognizes (R14.9, R17): one row of the format table
 * (`python/callsieve/formats.py`; `FORMATS` has each row). Checked against the table by
 * `scripts/build/gen_formats.py --check`.
 */
export type FormatName = 'dsml' | 'function_calls' | 'tokens' | 'hermes' | 'qwen3_coder' | 'seed_oss' | 'glm' | 'minimax' | 'kimi_k2' | 'mistral' | 'llama_json' | 'pythonic' | 'harmony';

/** A model family (R19): sets `formats` and `reasoning` together. */
export type PresetName = 'deepseek-v3' | 'deepseek-r1' | 'deepseek-v3.1' | 'deepseek-v3.2' | 'deepseek-v4' | 'qwen3' | 'qwen3-coder' | 'seed-oss' | 'glm-4.5' | 'glm-4.7' | 'minimax-m2' | 'kimi-k2' | 'mistral' | 'llama3' | 'llama4' | 'gpt-oss';

/** One row of the format table. */
export interface FormatRow {
  name: FormatName;
  rule: string;
  summary: string;
  /** `shell` (DSML tags), `tokens` (DeepSeek token sections), `block` (R17 families) or `harmony`. */
  engine: 'shell' | 'tokens' | 'block' | 'harmony' | 'mistral' | 'json';
  /** Recognized when no `formats` option is given (R19.3). */
  default: boolean;
  opener: string;
  closer: string;
  grammar: string;
  body: string;
  eofRepair: boolean;
  /** More openers of the same row (Harmony's `<|channel|>`). */
  alsoOpens: string[];
  /** More end markers dropped where they stand alone (R18.3). */
  strays: string[];
  /** What opens the row's body bare in prose, without its special tokens (pythonic: `[`, D64). */
  bare: string;
}

/** One preset. */
export interface PresetRow {
  name: PresetName;
  models: string;
  formats: FormatName[];
  reasoning: ReasoningMode;
  /** The reasoning markers (R17.10): `['<think>', '</think>']`, Seed-OSS's `<seed:think>`, Mistral's `[THINK]`. */
  think: [string, string];
}

/** Every format, by name. */
export const FORMATS: Readonly<Record<FormatName, FormatRow>>;

/** Every preset, by name. */
export const PRESETS: Readonly<Record<PresetName, PresetRow>>;

/** Options of `parse()` and `Sieve`. An unknown option throws an `OptionsError`. */
export interface SieveOptions {
  /** Declared tool names; default: the names of `tools`. */
  toolNames?: ToolNames | null | undefined;
  /** Tool definitions: their names are declared, their JSON schemas normalize call inputs. */
  tools?: ToolList | null | undefined;
  /** What to do with calls to undeclared tools (default `'keep'`). */
  unknownTools?: UnknownToolsPolicy | undefined;
  /** Also recognize JSON tool calls in prose (default `false`). */
  jsonToolCalls?: boolean | undefined;
  /** A block longer than this (UTF-16 code units, integer >= 1) is released as text. Default 8 Mi. */
  maxCaptureChars?: number | undefined;
  /**
   * Recognize only these formats (default: all). An unknown name throws an `OptionsError`, a
   * string or a non-string entry an `InputTypeError`.
   */
  formats?: readonly FormatName[] | null | undefined;
  /** Reasoning regions (default `'auto'`); an unknown mode throws an `OptionsError`. */
  reasoning?: ReasoningMode | undefined;
  /**
   * Announce each call as soon as its name is final (`tool_call_start`) and stream its arguments
   * as JSON text (`tool_call_arguments`) before the block's `tool_calls` event (default `false`).
   * A block that breaks after a call started keeps the calls started so far; the rest is text.
   */
  streamArguments?: boolean | undefined;
  /** A model family (R19): its formats and reasoning mode, unless `formats` / `reasoning` are given. */
  preset?: PresetName | null | undefined;
}

// ---- Core API --------------------------------------------------------------------------------

/**
 * Streaming sieve: `feed(chunk)` returns the events that chunk decided, `flush()` the rest.
 * Text comes out as soon as it cannot become part of a tool call; a recognized block comes out
 * once, as one `tool_calls` event.
 */
export class Sieve {
  /** @throws {InputTypeError} @throws {OptionsError} for bad options. */
  constructor(options?: SieveOptions | null);
  /** The tools option, or null. */
  readonly tools: ToolList | null;
  readonly unknownTools: UnknownToolsPolicy;
  /** The declared names (frozen). */
  readonly toolNames: readonly string[];
  /** The formats in use (the `formats` option; default all of `FORMATS`). */
  readonly formats: ReadonlySet<FormatName>;
  /** The reasoning mode in use. */
  readonly reasoning: ReasoningMode;
  /** Whether calls are announced and their arguments streamed (the `streamArguments` option). */
  readonly streamArguments: boolean;
  /** @throws {SieveClosedError} after `flush()`. @throws {InputTypeError} for a non-string. */
  feed(chunk: string): SieveEvent[];
  /** End of stream: the events held back. @throws {SieveClosedError} when called twice. */
  flush(): SieveEvent[];
  /** Names rejected by `unknownTools: 'reject'` so far, once each, in order (a copy). */
  get rejectedToolNames(): string[];
  /** True once a wrapper tag was recognized outside ignored regions. */
  get sawToolCallSyntax(): boolean;
  /** Debug counter: UTF-16 code units the scanner has looked at so far. */
  get work(): number;
}

/** One-shot parse: feed everything to a `Sieve`, flush, collect the calls. */
export function parse(text: string, options?: SieveOptions | null): ParseResult;

/**
 * Join adjacent text events (dropping empty ones), adjacent reasoning events, and adjacent
 * argument fragments of one call; other events pass through.
 */
export function coalesce(events: Iterable<SieveEvent>): SieveEvent[];

// ---- Errors ----------------------------------------------------------------------------------

/** Base class of every error callsieve throws. `name` is the class name. */
export class CallsieveError extends Error {
  constructor(message?: string);
}
/** A chunk, text or option had the wrong type. */
export class InputTypeError extends CallsieveError {}
/** `feed()` or `flush()` was called on a sieve that was already flushed. */
export class SieveClosedError extends CallsieveError {}
/** An option was unknown or had an invalid value. */
export class OptionsError extends CallsieveError {}
/** The event stream cannot be read: invalid UTF-8, a `data:` that is not JSON, data after `[DONE]`. */
export class SSEFormatError extends CallsieveError {}
/** An OpenAI chunk or response has a shape the rewriter cannot carry through. */
export class OpenAIFormatError extends CallsieveError {}

// ---- Names, roles, schemas, prompt -----------------------------------------------------------

/** What `applyPolicy()` returns. */
export interface PolicyResult {
  calls: ToolCall[];
  rejectedToolNames: string[];
  /** True when there were calls and the policy dropped all of them. */
  rejectedByPolicy: boolean;
}

/**
 * Resolve call names against the declared names and apply the unknown-tool policy.
 * With no declared names, every call is kept as it is.
 * @throws {OptionsError} for another policy. @throws {InputTypeError} for bad names or calls.
 */
export function applyPolicy(
  calls: Iterable<ToolCall>,
  toolNames: ToolNames | null | undefined,
  unknownTools?: UnknownToolsPolicy,
): PolicyResult;

/**
 * The declared name that `name` resolves to (exact, case, namespace, loose match), or null
 * (also when `name` is not a string).
 * @throws {InputTypeError} when `toolNames` is a single string or holds a non-string.
 */
export function resolveToolName(name: unknown, toolNames: ToolNames | null | undefined): string | null;

/** A prompt role. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** The controlled role for `role` (`developer` -> system, `function` -> tool, unknown -> user). Never throws. */
export function normalizeRole(role: unknown): Role;

/**
 * Compact JSON text as `JSON.stringify` writes it, for plain objects, arrays, strings, numbers,
 * booleans and null, at any depth.
 * @throws {InputTypeError} for other types, cycles, or undefined / functions / symbols at the top.
 */
export function jsonText(value: unknown): string;

/**
 * The input of a call to `name`, normalized by that tool's JSON schema (values the schema says
 * are strings become JSON text); `input` itself when there is nothing to do. Never mutates.
 */
export function normalizeInput(
  name: string,
  input: Record<string, unknown>,
  tools: ToolList | null | undefined,
): Record<string, unknown>;

/** The distinct declared names of `tools`, in order; `[]` when `tools` is not an array. */
export function toolNamesOf(tools: ToolList | null | undefined): string[];

/**
 * The system-prompt text teaching the DSML tool-call format for `tools`; `''` when no tool has a
 * name (or `tools` is not an array).
 */
export function buildToolInstructions(tools: ToolList | null | undefined): string;
/** The request for an upstream without native tools (`prompt` mode): tools become DSML instructions, tool history becomes text. */
export function preparePromptRequest(body: Record<string, unknown>): Record<string, unknown>;
/** False when the request said `tool_choice: "none"`: the reply is then not rewritten. */
export function rewritesResponse(body: unknown): boolean;

// ---- Server-sent events ----------------------------------------------------------------------

/**
 * The bytes the encoders produce: what `TextEncoder#encode` returns (`Uint8Array`, backed by a
 * plain `ArrayBuffer`). Spelled through `typeof TextEncoder` so that it works with lib "dom" and
 * with `@types/node` alike.
 */
export type EncodedBytes = ReturnType<InstanceType<typeof TextEncoder>['encode']>;

/** Sync or async iterable. */
export type AnyIterable<T> = Iterable<T> | AsyncIterable<T>;

/** One dispatched server-sent event. */
export interface SSEEvent {
  data: string;
  /** `'message'` unless an `event:` field set it. */
  event: string;
  /** The last event id seen, or null. */
  id: string | null;
  /** The last valid `retry:` value, or null. */
  retry: number | null;
}

/**
 * Incremental event-stream reader: `feed(bytes)` returns the events its complete lines
 * dispatched, `finish()` the rest.
 */
export class SSEParser {
  /** `{comments: true}`: comment lines come out too, in order, as `{comment: Uint8Array}` items (the whole line from its `:`). */
  constructor(options?: { comments?: boolean });
  /**
   * @throws {SSEFormatError} for invalid UTF-8 (when events came before the line in this call,
   * they are returned and the next call throws; every later call throws it again) or after
   * `finish()`. @throws {InputTypeError} for a non-Uint8Array.
   */
  feed(bytes: Uint8Array): SSEEvent[];
  /** End of input; later calls return `[]` (or throw the error of an invalid line again). */
  finish(): SSEEvent[];
}

/**
 * Incremental, synchronous chat-chunk reader: the JSON values of the `data:` events, up to
 * `data: [DONE]` (empty `data:` keep-alives carry no chunk). `sawDone` tells whether the stream
 * said `[DONE]`: one that ends without it may have been cut off.
 */
export class ChatChunkParser {
  constructor();
  /**
   * @throws {SSEFormatError} for invalid UTF-8, data that is not JSON, or data after `[DONE]`
   * (the values before it in this call are returned first and the next call throws; every later
   * call throws it again).
   */
  feed(bytes: Uint8Array): unknown[];
  finish(): unknown[];
  readonly sawDone: boolean;
}

/** The events of an event stream given as Uint8Array chunks, cut anywhere. */
export function iterSSEEvents(byteChunks: AnyIterable<Uint8Array>): AsyncGenerator<SSEEvent, void, unknown>;

/**
 * The JSON values of the `data:` events of an OpenAI stream, up to `data: [DONE]`.
 * @throws {SSEFormatError} for data that is not JSON, or an event after `[DONE]`.
 */
export function iterChatChunks(byteChunks: AnyIterable<Uint8Array>): AsyncGenerator<unknown, void, unknown>;

/** Options of `writeSSE()` and `createSSEEncoderStream()`. */
export interface SSEWriteOptions {
  /** End with `data: [DONE]\n\n` (default true). */
  done?: boolean | undefined;
}

/**
 * Each chunk as `data: <JSON>\n\n`, then `data: [DONE]\n\n` (unless `done: false`).
 * @throws {InputTypeError} for a chunk that is not a JSON value.
 */
export function writeSSE(chunks: AnyIterable<unknown>, options?: SSEWriteOptions): AsyncGenerator<EncodedBytes, void, unknown>;

/** SSE bytes in, the parsed `data:` JSON values out (up to `[DONE]`). */
export function createSSEDecoderStream(): TransformStream<Uint8Array, unknown>;

/** JSON values in, `data: <JSON>\n\n` out, then `data: [DONE]\n\n` unless `done: false`. */
export function createSSEEncoderStream(options?: SSEWriteOptions): TransformStream<unknown, EncodedBytes>;

// ---- OpenAI ----------------------------------------------------------------------------------

/** An entry of `message.tool_calls`. */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: {
    name: string;
    /** The JSON text of the input, normalized by the tool's schema. */
    arguments: string;
  };
}

/** An entry of a streaming `delta.tool_calls`, complete in one piece. */
export interface OpenAIToolCallDelta extends OpenAIToolCall {
  index: number;
}

/** Options of `toOpenAIToolCalls()`. */
export interface ToOpenAIToolCallsOptions {
  /** Tool definitions whose schemas normalize the arguments. */
  tools?: ToolList | null | undefined;
  /** Makes each call id (default `newCallId`); must return a string. */
  idFactory?: (() => string) | null | undefined;
}

/** Options of `toOpenAIStreamDeltas()`. */
export interface ToOpenAIStreamDeltasOptions extends ToOpenAIToolCallsOptions {
  /** The `index` of the first delta (an integer, default 0). */
  startIndex?: number | undefined;
}

/** A fresh tool-call id: `call_` and 24 random hex digits. */
export function newCallId(): string;

/** Calls as an OpenAI `message.tool_calls` list. */
export function toOpenAIToolCalls(calls: Iterable<ToolCall>, options?: ToOpenAIToolCallsOptions | null): OpenAIToolCall[];

/** Calls as streaming `delta.tool_calls` entries, `index` counting from `startIndex`. */
export function toOpenAIStreamDeltas(
  calls: Iterable<ToolCall>,
  options?: ToOpenAIStreamDeltasOptions | null,
): OpenAIToolCallDelta[];

/** Options of `ChatCompletionStreamRewriter`. An unknown option throws an `OptionsError`. */
export interface RewriterOptions {
  /** Tool definitions: declared names and argument schemas. */
  tools?: ToolList | null | undefined;
  /** Declared tool names; default: the names of `tools`. */
  toolNames?: ToolNames | null | undefined;
  /** Default `'keep'`. */
  unknownTools?: UnknownToolsPolicy | undefined;
  /** Makes each call id (default `newCallId`); must return a string. */
  idFactory?: (() => string) | null | undefined;
  /** Also take JSON tool calls in prose (R9) out of the content; default false. */
  jsonToolCalls?: boolean | undefined;
  /** Recognize only these markup formats (default: all of `FORMATS`). */
  formats?: readonly FormatName[] | null | undefined;
  /** Reasoning in the content becomes `reasoning_content` (default `'auto'`). */
  reasoning?: ReasoningMode | undefined;
  /**
   * Streams only: each call goes out as OpenAI's API streams it, a first delta with `index`, `id`,
   * `type`, `name` and `arguments: ''` as soon as its name is final, then `arguments` fragments
   * (default `false`). `rewriteChatCompletion` does not take it.
   */
  streamArguments?: boolean | undefined;
  /**
   * The request's `tool_choice`: `'none'` (markup stays content, no calls), `'auto'` or null (the
   * default: every call), `'required'` (every call; an output without one is left as it is), or a
   * named function (only calls to it; calls to other tools are dropped).
   */
  toolChoice?: ToolChoice | null | undefined;
  /** The request's `parallel_tool_calls`: `false` keeps only a choice's first call. */
  parallelToolCalls?: boolean | null | undefined;
  /** A model family (R19): its formats and reasoning mode unless `formats` / `reasoning` are given. */
  preset?: PresetName | null | undefined;
}

/** A request's `tool_choice`, as the rewriters take it. */
export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

/** Options of the rewrite functions and streams. */
export interface RewriteOptions extends RewriterOptions {
  /** Names rejected by `unknownTools: 'reject'` are appended to this array (once each). */
  rejectedToolNames?: string[] | null | undefined;
}

/**
 * A chat-completion chunk as the gateway passes it on: the input object itself when nothing
 * changed, else a shallow copy. Only what the gateway checks is typed. The rewrite functions
 * return the caller's own chunk type intersected with this (`T & ChatCompletionChunkObject`), so
 * the `openai` SDK's `ChatCompletionChunk` stays a `ChatCompletionChunk`: the output has the
 * input's shape, with `delta.content`, `delta.tool_calls` and `finish_reason: 'tool_calls'`
 * rewritten, and extra chunks that copy the input's envelope.
 */
export interface ChatCompletionChunkObject {
  [key: string]: unknown;
  choices?: ChatCompletionChunkChoice[];
}

export interface ChatCompletionChunkChoice {
  [key: string]: unknown;
  index?: number;
  /** An object when present (`undefined` and `null` count as absent). */
  delta?: { [key: string]: unknown; content?: string | null | undefined } | null | undefined;
}

/** A chat-completion response as `rewriteChatCompletion()` returns it (intersected with the input's type). */
export interface ChatCompletionObject {
  [key: string]: unknown;
  choices?: ChatCompletionChoice[];
}

export interface ChatCompletionChoice {
  [key: string]: unknown;
  index?: number;
  /** An object when present (`undefined` and `null` count as absent). */
  message?: { [key: string]: unknown; content?: string | null | undefined } | null | undefined;
}

/**
 * The streaming gateway as an object: `feed(chunk)` returns the output chunks for one input
 * `chat.completion.chunk` object, `finish()` the chunks still held at the end of the stream.
 * `Chunk` is the caller's chunk type (e.g. the `openai` SDK's `ChatCompletionChunk`).
 */
export class ChatCompletionStreamRewriter<Chunk = unknown> {
  /** @throws {InputTypeError} @throws {OptionsError} for bad options. */
  constructor(options?: RewriterOptions | null);
  /** Names of calls dropped by `unknownTools: 'reject'` so far, once each, in order (a copy). */
  get rejectedToolNames(): string[];
  /** Counts so far (a copy). */
  get stats(): RewriteStats;
  /**
   * The output chunks for one input chunk, in order.
   * @throws {OpenAIFormatError} for a chunk that is not an object or has malformed choices, or after `finish()`.
   */
  feed(chunk: Chunk): (Chunk & ChatCompletionChunkObject)[];
  /** End of stream: the chunks still held; later calls return `[]`. */
  finish(): (Chunk & ChatCompletionChunkObject)[];
}

/**
 * Rewrite a stream (sync or async iterable) of `chat.completion.chunk` objects: DSML markup in
 * `delta.content` becomes `delta.tool_calls`, `finish_reason` `'stop'` becomes `'tool_calls'`.
 * The chunks keep the input's type (an `openai` SDK `Stream<ChatCompletionChunk>` in,
 * `ChatCompletionChunk`s out).
 */
export function rewriteChatCompletionStream<Chunk = unknown>(
  chunks: AnyIterable<Chunk>,
  options?: RewriteOptions | null,
): AsyncGenerator<Chunk & ChatCompletionChunkObject, void, unknown>;

/**
 * Rewrite a non-streaming `chat.completion` object: DSML markup in `message.content` becomes
 * `message.tool_calls`. The input is not modified; a response without `choices` is returned as it
 * is. The result keeps the input's type (e.g. the `openai` SDK's `ChatCompletion`).
 * @throws {OpenAIFormatError} for a response that is not an object or has malformed choices.
 */
export function rewriteChatCompletion<Response = unknown>(
  response: Response,
  options?: (Omit<RewriteOptions, 'streamArguments'> & { stats?: Partial<RewriteStats> | null | undefined }) | null,
): Response & ChatCompletionObject;

/**
 * What a rewriter did: blocks recognized, calls emitted, calls rejected by the policy, blocks
 * released as text at `maxCaptureChars`, blocks whose event lists a repair (D58: a missing
 * opening wrapper, R3; an unclosed CDATA, D8; a token section without its end, D26; a block
 * broken after a call was announced, D37; a block of an R17 format cut by the end, D44).
 */
export interface RewriteStats {
  blocks: number;
  calls: number;
  rejectedCalls: number;
  captureLimitReleases: number;
  repairedBlocks: number;
}

/**
 * The streaming gateway as a TransformStream of chunk objects; `Chunk` is the caller's chunk
 * type (`createChatCompletionRewriteStream<ChatCompletionChunk>()`).
 */
export function createChatCompletionRewriteStream<Chunk = unknown>(
  options?: RewriteOptions | null,
): TransformStream<Chunk, Chunk & ChatCompletionChunkObject>;

/** An OpenAI SSE byte stream in, the rewritten SSE byte stream out (ending with `data: [DONE]` when upstream did). */
export function createSSERewriteStream(options?: RewriteOptions | null): TransformStream<Uint8Array, EncodedBytes>;

/** The package version. */
/** The settings of a gateway (the flags of `callsieve-gateway`, camelCase); checked by src/config.js (gatewayConfig). */
export interface GatewayConfig {
  /** Base URL of the OpenAI-compatible upstream (`https://api.example.com/v1`). */
  upstream: string;
  /** Keys clients must present as `Authorization: Bearer KEY` (401 otherwise); none: no key needed. */
  apiKeys?: readonly string[] | null;
  /** The key sent upstream as `Authorization: Bearer KEY` (default: none). */
  upstreamApiKey?: string | null;
  /** Without `upstreamApiKey`, send the client's `Authorization` header upstream (default false). */
  forwardClientKey?: boolean;
  mode?: 'passthrough' | 'prompt';
  unknownTools?: UnknownToolsPolicy;
  /** Upstream silence (seconds) that ends a request (default 600). */
  timeout?: number;
  connectTimeout?: number;
  /** Client-side silence (seconds) after which `: keep-alive` is written (default 15). */
  keepalive?: number;
  /** The markup formats recognized (default: the preset's, else every default format). */
  formats?: readonly FormatName[] | null;
  /** Where reasoning may be (default: the preset's, else 'auto'). */
  reasoning?: ReasoningMode | null;
  /** R19: the preset of a request that no `presetMap` pattern matches (default: none). */
  preset?: PresetName | null;
  /** `[pattern, preset]` pairs: the first shell-style pattern (fnmatch, any case) the request's
   * `model` matches gives its preset. */
  presetMap?: readonly (readonly [string, PresetName])[] | null;
  streamArguments?: boolean;
  /** The longest request body accepted; a longer one is a 413 (default 16 MiB). */
  maxBodyBytes?: number;
  /** Origins browsers may call from (`'*'`: any); none: no CORS. */
  corsOrigins?: readonly string[] | null;
  logLevel?: 'debug' | 'info' | 'warning' | 'error';
  logFormat?: 'text' | 'json';
  /** Where log lines go (default: standard error); null: nowhere. */
  log?: ((line: string) => void) | null;
}

/**
 * A `node:http` request listener `(req, res)`. Declared structurally so the package's types need
 * no `@types/node`: `http.createServer(gatewayHandler(config))` type-checks with them.
 */
export interface GatewayHandler {
  (req: object, res: object): void;
}

/** The part of `http.Server` a gateway's user needs (the value is an `http.Server`). */
export interface GatewayServer {
  listen(port?: number, host?: string, callback?: () => void): this;
  close(callback?: (err?: Error) => void): this;
  address(): { address: string; family: string; port: number } | string | null;
  closeAllConnections(): void;
  on(event: string, listener: (...args: any[]) => void): this;
  keepAliveTimeout: number;
}

/** The settings `callsieve-gateway` resolves from its arguments and environment variables. */
export interface GatewayArgs extends GatewayConfig {
  host: string;
  port: number;
  workers: number;
}

/** An `http.Server` running the gateway, not yet listening (Node only: loads `node:http`). */
export function createGatewayServer(config: GatewayConfig): GatewayServer;

/** The gateway's request handler, for a server of one's own (Node only). */
export function gatewayHandler(config: GatewayConfig): GatewayHandler;

/** The gateway's settings from command-line arguments and environment variables, as the bin reads
 * them (throws an Error, a UsageError, for a bad value). */
export function parseGatewayArgs(
  argv: readonly string[],
  env?: Readonly<Record<string, string | undefined>>,
): GatewayArgs | { help: true } | { version: true };

export const version: string;
