// A typed use of the package, checked by `tsc -p examples` (run-tests.sh); never run.

import {
  AnkitaError,
  estimateImageTokens,
  probeImage,
  sanitize,
  Session,
  trim,
  trimAsync,
  trimMany,
  version,
  type AnkitaErrorCode,
  type GeminiContent,
  type ImageInfo,
  type Message,
  type TrimOptions,
  type TrimReport,
  type TrimResult,
} from "ankita";

const history: Message[] = [
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
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "ocr", arguments: "{}" } }],
  },
  {
    role: "tool",
    tool_call_id: "call_1",
    content: "Invoice #42",
    cache_control: { type: "ephemeral" },
  },
];

const options: TrimOptions = {
  context_tokens: 8192,
  max_output_tokens: 1024,
  tools: [{ type: "function", function: { name: "ocr", parameters: { type: "object" } } }],
  memory: ["The user prefers short answers."],
  on_image_overflow: "placeholder",
  image_profile: "ankita",
};

function tell(report: TrimReport): string[] {
  return report.dropped_images.map(
    (image) =>
      `${image.format ?? "unknown"} ${image.width}×${image.height}: ~${image.tokens} tokens`,
  );
}

export async function main(): Promise<void> {
  const { messages, report } = trim(history, options);
  const kept: Message[] = messages;
  const count: number = report.output_messages + report.dropped_messages.length + kept.length;
  tell(report);

  const later = await trimAsync(history, { max_bytes: 4096 });
  const budget: number | null = later.report.budget_bytes;

  const repaired = sanitize(history).report.repaired.map((r) => `${r.index}: ${r.action}`);

  const info: ImageInfo | null = probeImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  const width: number | undefined = info?.width;
  const { tokens, budget_bytes } = estimateImageTokens(1700, 2200, {
    profile: "ankita",
    detail: "low",
  });

  try {
    trim(history, { max_bytes: 10 });
  } catch (error) {
    if (error instanceof AnkitaError) {
      const code: AnkitaErrorCode = error.code;
      const where: string | undefined = error.path;
      const breakdown = error.details.breakdown?.required_bytes;
      console.log(code, where, breakdown, error.toJSON().message);
    }
  }
  // Gemini contents, either spelling, with the system instruction answered back.
  const contents: GeminiContent[] = [
    { role: "user", parts: [{ text: "Read a.txt" }] },
    { role: "model", parts: [{ functionCall: { name: "read", args: { path: "a.txt" } } }] },
    {
      role: "user",
      parts: [{ function_response: { name: "read", response: { output: "alpha" } } }],
    },
  ];
  const gemini = trim(contents, {
    format: "gemini",
    system: { parts: [{ text: "Be brief." }] },
    max_bytes: 4096,
  });
  const firstRole: "user" | "model" | undefined = gemini.messages[0]?.role;

  console.log(version(), count, budget, repaired, width, tokens, budget_bytes, firstRole);
}

// An incremental session: each turn appends what happened, then trims.
export function companionTurn(session: Session, said: Message, answer: Message): Message[] {
  session.append([said, answer]);
  const { messages, report } = session.trim();
  const saved: Message[] = session.snapshot();
  const restored = Session.restore(saved, { max_bytes: 4096 });
  const held: number = restored.length + session.truncate(saved.length);
  restored[Symbol.dispose]();
  console.log(report.dropped_messages, held);
  return messages;
}

// A dataset: JSON lines trimmed on every core, the options filling in what a line lacks.
export async function trimLines(lines: string[]): Promise<number> {
  const answers: string[] = await trimMany(lines, { context_tokens: 8192, threads: 2 });
  const mixed = await trimMany([lines[0] ?? "{}", { messages: history }, history]);
  return answers.filter((a) => JSON.parse(a).ok).length + mixed.length;
}

// A session that summarises what the cut removes: a sync summariser for `trim()`, an async one
// (a model call) awaited by `trimAsync()`.
export async function summarisedTurns(said: Message): Promise<number> {
  using sync = new Session<Message>({
    context_tokens: 32_000,
    summarize: (messages, previous) => `${previous ?? ""}${messages.length} messages. `,
  });
  sync.append([said]);
  const now: TrimResult<Message> = sync.trim();
  using later = new Session<Message>({
    context_tokens: 32_000,
    summarize: async (messages: Message[], previous: string | null): Promise<string> =>
      `${previous ?? ""}${messages.length} messages. `,
  });
  later.append([said]);
  const { messages, report } = await later.trimAsync();
  return now.messages.length + messages.length + (report.summary?.output_index ?? 0);
}
