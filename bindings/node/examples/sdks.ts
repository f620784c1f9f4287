// The SDKs' own message types go through trim and sanitize without a cast, and come back
// assignable to what the SDKs take; checked by `tsc -p examples` (run-tests.sh), never run.

import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import OpenAI from "openai";
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { generateText, type LanguageModel, type ModelMessage } from "ai";

import { sanitize, sanitizeAsync, Session, trim, trimAsync, type TrimReport } from "ankita";

export async function openaiLoop(client: OpenAI, tools: ChatCompletionTool[]): Promise<void> {
  const history: ChatCompletionMessageParam[] = [
    { role: "system", content: "You are a desktop companion." },
    {
      role: "user",
      content: [
        { type: "text", text: "What is on my screen?" },
        {
          type: "image_url",
          image_url: { url: "data:image/png;base64,iVBORw0KGgo", detail: "high" },
        },
      ],
    },
  ];
  for (let turn = 0; turn < 8; turn++) {
    const { messages, report } = trim(history, { context_tokens: 128_000, tools, model: "gpt-4o" });
    const kept: ChatCompletionMessageParam[] = messages;
    const response = await client.chat.completions.create({ model: "gpt-4o", messages, tools });
    const message: ChatCompletionMessage = response.choices[0]!.message;
    history.push(message); // the SDK's response message is a ChatCompletionMessageParam
    console.log(kept.length, report.cost_tokens, report.budget_tokens);
    if (!message.tool_calls?.length) break;
  }
  const later = await trimAsync(history, { max_bytes: 200_000 });
  const again: ChatCompletionMessageParam[] = later.messages;
  const repaired: ChatCompletionMessageParam[] = sanitize(history).messages;
  const alsoRepaired: ChatCompletionMessageParam[] = (await sanitizeAsync(history)).messages;
  console.log(again, repaired, alsoRepaired);
}

export async function anthropicLoop(client: Anthropic): Promise<void> {
  const system: TextBlockParam[] = [{ type: "text", text: "Be brief." }];
  const history: MessageParam[] = [{ role: "user", content: "What is in a.txt?" }];
  const response = await client.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system,
    messages: history,
  });
  history.push({ role: "assistant", content: response.content });
  const {
    messages,
    report,
    system: pinned,
  } = trim(history, {
    format: "anthropic",
    system,
    context_tokens: 200_000,
    max_output_tokens: 1024,
    model: "claude-sonnet-4-5",
  });
  const kept: MessageParam[] = messages;
  await client.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system: pinned,
    messages,
  });
  const merged: number = report.merged?.length ?? 0;
  const blocks: number = report.dropped_blocks?.length ?? 0;
  const { messages: repaired, report: repairs } = sanitize(history, { format: "anthropic" });
  const same: MessageParam[] = repaired;
  const fromAsync: MessageParam[] = (await trimAsync(history, { format: "anthropic" })).messages;
  console.log(kept, pinned, merged, blocks, same, repairs.merged, fromAsync);
}

export async function responsesLoop(client: OpenAI): Promise<void> {
  const instructions = "You are a coding agent.";
  const history: ResponseInputItem[] = [
    {
      role: "user",
      content: [
        { type: "input_text", text: "Why does this screen show an error?" },
        { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo", detail: "auto" },
      ],
    },
  ];
  for (let turn = 0; turn < 8; turn++) {
    const { messages, system } = trim(history, {
      format: "responses",
      system: instructions,
      context_tokens: 400_000,
      max_output_tokens: 16_000,
      model: "gpt-5",
    });
    const input: ResponseInputItem[] = messages;
    const response = await client.responses.create({ model: "gpt-5", instructions: system, input });
    let called = false;
    for (const item of response.output) {
      if (item.type === "reasoning" || item.type === "message") history.push(item);
      if (item.type === "function_call") {
        called = true;
        history.push(item, { type: "function_call_output", call_id: item.call_id, output: "ok" });
      }
    }
    if (!called) break;
  }
  const repaired: ResponseInputItem[] = sanitize(history, { format: "responses" }).messages;
  const later: ResponseInputItem[] = (await trimAsync(history, { format: "responses" })).messages;
  console.log(repaired, later);
}

export function everyReportKey(report: TrimReport): unknown[] {
  return [
    report.format,
    report.budget_bytes,
    report.budget_tokens,
    report.cost_bytes,
    report.cost_tokens,
    report.input_messages,
    report.output_messages,
    report.dropped_messages,
    report.truncated,
    report.dropped_images,
    report.dropped_attachments,
    report.repaired,
    report.merged,
    report.dropped_blocks,
  ];
}

// The Vercel AI SDK: ModelMessage[] in, ModelMessage[] out, straight into generateText.
export async function aiSdkLoop(model: LanguageModel, history: ModelMessage[]): Promise<void> {
  const { messages, report } = trim(history, {
    format: "ai-sdk",
    context_tokens: 200_000,
    model: "claude-sonnet-4-5",
  });
  const kept: ModelMessage[] = messages;
  const result = await generateText({ model, messages: kept });
  history.push(...result.response.messages);
  const dropped: number[] = report.dropped_messages;
  void dropped;
}

// A session created empty takes the SDK's messages as they are appended (no type argument),
// and what it returns goes back to the SDK.
export async function openaiSession(client: OpenAI): Promise<void> {
  const session = new Session({ context_tokens: 128_000, model: "gpt-4o", trim_to: 0.75 });
  const history: ChatCompletionMessageParam[] = [{ role: "user", content: "Hello" }];
  session.append(history);
  const { messages, report } = session.trim();
  const kept: ChatCompletionMessageParam[] = messages;
  await client.chat.completions.create({ model: "gpt-4o", messages: kept });
  console.log(report.cut, report.limited_by);
  session.close();
}
