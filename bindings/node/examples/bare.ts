// A consumer's TypeScript with the compiler's defaults (no @types/node, no `lib` or `types`
// set): `tsc -p examples/tsconfig.bare.json` with TypeScript 5 and 7 (run-tests.sh); never run.

import { Session, trim, type Message } from "ankita";

const history: Message[] = [
  { role: "system", content: "You are a desktop companion." },
  { role: "user", content: "What changed since yesterday?" },
];
const { messages, report } = trim(history, { model: "gpt-4o", context_tokens: 8000 });
const kept: number = messages.length;
const limited: string | null = report.limited_by;
{
  using session = new Session({ context_tokens: 8000 });
  session.append(history);
}
export { kept, limited };
