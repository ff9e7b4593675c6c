/**
 * Declarations for `callsieve/compat` (`compat.js`; `compat.d.mts` re-exports them for import):
 * a drop-in for the seed system's `stream-tool-sieve` API. Inputs are taken leniently:
 * `toolNames` may be undefined, null, a single string or an iterable (non-string entries are
 * ignored); a null/undefined chunk or text counts as empty.
 */

import type { Sieve } from './index.js';

/** One call: `{name, input}` (no `raw` on events here). */
export interface CompatToolCall {
  name: string;
  input: Record<string, unknown>;
}

export type CompatEvent = { type: 'text'; text: string } | { type: 'tool_calls'; calls: CompatToolCall[] };

/** Lenient tool names: a single name, any iterable of names, null or undefined. */
export type CompatToolNames = string | Iterable<unknown> | null | undefined;

/** Streaming state from `createCallSieveState()`; the sieve is created on the first chunk. */
export interface CallSieveState {
  sieve: Sieve | null;
}

export interface CompatParseResult {
  calls: CompatToolCall[];
  sawToolCallSyntax: boolean;
  rejectedByPolicy: boolean;
  rejectedToolNames: string[];
}

/** A fresh streaming state. */
export function createCallSieveState(): CallSieveState;

/**
 * Feed one chunk; returns the events it decided. `toolNames` is read on the first chunk only.
 * @throws {TypeError} when `state` is not an object.
 */
export function processCallSieveChunk(
  state: CallSieveState,
  chunk: string | null | undefined,
  toolNames?: CompatToolNames,
): CompatEvent[];

/** End of stream: the remaining events; the state can then start a new stream. */
export function flushCallSieve(state: CallSieveState, toolNames?: CompatToolNames): CompatEvent[];

export function parseToolCalls(text: string | null | undefined, toolNames?: CompatToolNames): CompatToolCall[];
export function parseToolCallsDetailed(text: string | null | undefined, toolNames?: CompatToolNames): CompatParseResult;
export function parseStandaloneToolCalls(text: string | null | undefined, toolNames?: CompatToolNames): CompatToolCall[];
export function parseStandaloneToolCallsDetailed(
  text: string | null | undefined,
  toolNames?: CompatToolNames,
): CompatParseResult;

/** Unique trimmed tool names, in order, from `{function: {name}}` or `{name}` entries; `[]` for a non-array. */
export function extractToolNames(tools: unknown): string[];

/** A call for `formatOpenAIStreamToolCalls`: a string `input` is used as the arguments text as it is. */
export interface CompatFormatCall {
  name?: string;
  input?: Record<string, unknown> | string | null;
}

/** Keeps each index's id stable across calls (a `Map<number, string>` works). */
export interface CallIdStore {
  get(index: number): unknown;
  set(index: number, id: string): unknown;
}

export interface CompatStreamToolCall {
  index: number;
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * OpenAI streaming `tool_calls` deltas for `calls`, `index` counting from 0; `[]` when `calls`
 * is not an array. `arguments` is the JSON of the input normalized by the tool's schema.
 */
export function formatOpenAIStreamToolCalls(
  calls: readonly (CompatFormatCall | null | undefined)[],
  idStore?: CallIdStore | null,
  tools?: readonly object[] | null,
): CompatStreamToolCall[];
