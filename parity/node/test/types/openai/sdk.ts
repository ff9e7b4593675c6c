// The gateway keeps the `openai` SDK's own types (tsc -p test/types/openai; `openai` is a pinned
// devDependency, used for its types only). skipLibCheck: the SDK's internals are not ours to
// check; our declarations are checked strictly by test/types/tsconfig.json.

import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import {
  ChatCompletionStreamRewriter,
  createChatCompletionRewriteStream,
  rewriteChatCompletion,
  rewriteChatCompletionStream,
} from 'callsieve';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
declare function assertType<T extends true>(value: T): void;

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
];

async function streamed(client: OpenAI): Promise<ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({ model: 'm', messages: [], tools, stream: true });
  const out: ChatCompletionChunk[] = [];
  for await (const chunk of rewriteChatCompletionStream(stream, { tools })) {
    out.push(chunk); // a ChatCompletionChunk still
    const calls: ChatCompletionChunk.Choice.Delta.ToolCall[] | undefined = chunk.choices[0]?.delta.tool_calls;
    const finish: ChatCompletionChunk.Choice['finish_reason'] | undefined = chunk.choices[0]?.finish_reason;
    const id: string = chunk.id;
    void [calls, finish, id];
  }
  // The generator's element type is the SDK's chunk (plus what the gateway guarantees).
  const gen = rewriteChatCompletionStream(stream);
  type Out = typeof gen extends AsyncGenerator<infer C, void, unknown> ? C : never;
  assertType<Out extends ChatCompletionChunk ? true : false>(true);
  // An async iterable of SDK chunks in, an AsyncIterable<ChatCompletionChunk> out.
  const relay: AsyncIterable<ChatCompletionChunk> = rewriteChatCompletionStream(stream, { toolNames: ['read_file'] });
  void relay;
  return out;
}

async function whole(client: OpenAI): Promise<ChatCompletion> {
  const response = await client.chat.completions.create({ model: 'm', messages: [], tools });
  const rewritten = rewriteChatCompletion(response, { tools });
  const message: ChatCompletion['choices'][number]['message'] | undefined = rewritten.choices[0]?.message;
  const calls = message?.tool_calls;
  void calls;
  return rewritten; // a ChatCompletion still
}

function object(chunks: ChatCompletionChunk[]): ChatCompletionChunk[] {
  const rewriter = new ChatCompletionStreamRewriter<ChatCompletionChunk>({ tools });
  const out: ChatCompletionChunk[] = chunks.flatMap((c) => rewriter.feed(c));
  out.push(...rewriter.finish());
  // @ts-expect-error a rewriter for SDK chunks takes SDK chunks
  rewriter.feed({ choices: 1 });
  return out;
}

function web(upstream: ReadableStream<ChatCompletionChunk>): ReadableStream<ChatCompletionChunk> {
  return upstream.pipeThrough(createChatCompletionRewriteStream<ChatCompletionChunk>({ tools }));
}

// Untyped input stays as before: the gateway's own chunk shape.
async function untyped(values: AsyncIterable<unknown>): Promise<void> {
  for await (const chunk of rewriteChatCompletionStream(values)) {
    const content: string | null | undefined = chunk.choices?.[0]?.delta?.content;
    void content;
    // @ts-expect-error without a chunk type, choices are not known to be there
    void chunk.choices[0];
  }
  assertType<Equal<ReturnType<typeof rewriteChatCompletion<unknown>>, ReturnType<typeof rewriteChatCompletion>>>(true);
}

void [streamed, whole, object, web, untyped];
