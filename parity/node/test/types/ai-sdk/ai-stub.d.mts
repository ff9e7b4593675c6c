// A stand-in for `ai` in tsconfig.strict.json, which checks ai-sdk.d.ts / .d.mts with
// skipLibCheck off: `ai`'s own declarations do not pass that (they need @types/node and were not
// written for exactOptionalPropertyTypes). tsconfig.json checks against the real package.
export type LanguageModelMiddleware = {
  readonly specificationVersion?: string;
  wrapGenerate?: (options: never) => PromiseLike<unknown>;
  wrapStream?: (options: never) => PromiseLike<unknown>;
};
