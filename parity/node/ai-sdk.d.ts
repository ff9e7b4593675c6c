/**
 * Declarations for `callsieve/ai-sdk` (`ai-sdk.js`; `ai-sdk.d.mts` re-exports them for import):
 * a Vercel AI SDK language-model middleware (the `ai` package, an optional peer, version 7)
 * that turns tool-call markup in text parts into tool-call parts.
 */

// `ai` is ESM only: its types are taken as an import would see them, from CommonJS too.
import type { LanguageModelMiddleware } from 'ai' with { 'resolution-mode': 'import' };
import type { FormatName, PresetName, ReasoningMode, ToolList, ToolNames, UnknownToolsPolicy } from './index.js';

/** Options of `callsieveMiddleware`; each but `idFactory` is the Sieve option of that name. */
export interface CallsieveMiddlewareOptions {
  /** Declared tools; by default the function tools of each call (`params.tools`). */
  tools?: ToolList | null | undefined;
  /** Declared names, used when `tools` is not given (names are then left as written unless the policy rejects). */
  toolNames?: ToolNames | null | undefined;
  /** `'reject'` leaves out calls to undeclared tools; their names go to the finish part's `providerMetadata.callsieve.rejectedToolNames`. */
  unknownTools?: UnknownToolsPolicy | undefined;
  formats?: readonly FormatName[] | null | undefined;
  jsonToolCalls?: boolean | undefined;
  maxCaptureChars?: number | undefined;
  /** Reasoning regions (`<think>`, default `'auto'`) become reasoning parts; `'off'` leaves them text. */
  reasoning?: ReasoningMode | undefined;
  /** A model family (R19): its formats and reasoning mode unless `formats` / `reasoning` are given. */
  preset?: PresetName | null | undefined;
  /** Tool-call ids; default `newCallId()` (`call_` and 24 hex digits). */
  idFactory?: (() => string) | null | undefined;
}

/** A `LanguageModelV4Middleware` (specification `v4`) with `wrapGenerate` and `wrapStream`. */
export type CallsieveMiddleware = LanguageModelMiddleware & {
  readonly specificationVersion: 'v4';
  wrapGenerate: NonNullable<LanguageModelMiddleware['wrapGenerate']>;
  wrapStream: NonNullable<LanguageModelMiddleware['wrapStream']>;
};

/**
 * The middleware for `wrapLanguageModel({ model, middleware })`.
 * @throws {OptionsError | InputTypeError} on an unknown option or a bad value.
 */
export function callsieveMiddleware(options?: CallsieveMiddlewareOptions | null): CallsieveMiddleware;
