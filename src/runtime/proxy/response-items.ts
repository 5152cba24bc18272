import { z } from 'zod';
import { applyPlan, type CompressionPlan } from '../context-compressor.js';
import { contentText, type OpenAiMessage } from '../openai-messages.js';

/**
 * A Responses API `input` item, read loosely: the fields acon reads (openai-node's
 * `ResponseInputItem`: `message` items, with or without `type`, `function_call` with `call_id`,
 * `function_call_output` with `call_id` and `output`, `reasoning`); every other field is kept.
 */
export const InputItemSchema = z.looseObject({
  type: z.string().optional(),
  role: z.string().optional(),
  content: z.unknown().optional(),
  call_id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
  output: z.unknown().optional(),
});
export type InputItem = z.infer<typeof InputItemSchema>;

/** The input items read as chat messages, with the items each message stands for. */
export type ItemsAsChat = {
  messages: OpenAiMessage[];
  /** `items[i]`: the input items message i stands for (none for the `instructions`). */
  items: InputItem[][];
};

/**
 * Why the input cannot be read as a chat history, or null: only the item types below are
 * understood, and an item of another kind (an `item_reference` to a stored item, a built-in
 * tool's call) could be separated from what it pairs with if acon folded around it.
 */
export function unreadableInput(items: readonly InputItem[]): string | null {
  for (const item of items) {
    const type = item.type ?? 'message';
    if (!['message', 'function_call', 'function_call_output', 'reasoning'].includes(type)) {
      return `input item type '${type}' is not one acon compresses`;
    }
    if (type === 'message' && typeof item.role !== 'string') return 'a message item has no role';
    if ((type === 'function_call' || type === 'function_call_output') && !item.call_id) {
      return `a ${type} item has no call_id`;
    }
  }
  return null;
}

/**
 * Input items as chat messages, the form the compressor reads: `instructions` as the system
 * prompt, messages by role, consecutive `function_call` items (and an assistant message before
 * them) as one assistant message with its tool calls, each `function_call_output` as a tool
 * message. A `reasoning` item goes with the assistant message after it, so a fold drops both.
 */
export function itemsAsChat(instructions: string | null, input: readonly InputItem[]): ItemsAsChat {
  const messages: OpenAiMessage[] = [];
  const items: InputItem[][] = [];
  if (instructions) {
    messages.push({ role: 'system', content: instructions });
    items.push([]);
  }
  let pending: InputItem[] = [];
  const push = (m: OpenAiMessage, item: InputItem) => {
    messages.push(m);
    items.push([...pending, item]);
    pending = [];
  };
  for (const item of input) {
    const type = item.type ?? 'message';
    const last = messages.at(-1);
    if (type === 'reasoning') {
      pending.push(item);
    } else if (type === 'function_call') {
      const call = {
        id: item.call_id!,
        type: 'function' as const,
        function: { name: item.name ?? '', arguments: item.arguments ?? '' },
      };
      if (last?.role === 'assistant' && pending.length === 0) {
        last.tool_calls = [...(last.tool_calls ?? []), call];
        items.at(-1)!.push(item);
      } else push({ role: 'assistant', content: null, tool_calls: [call] }, item);
    } else if (type === 'function_call_output') {
      push({ role: 'tool', tool_call_id: item.call_id!, content: outputText(item.output) }, item);
    } else {
      const text = contentText(item.content);
      const role = item.role;
      if (role === 'assistant') push({ role: 'assistant', content: text }, item);
      else if (role === 'system' || role === 'developer') push({ role, content: text }, item);
      else push({ role: 'user', content: text }, item);
    }
  }
  // Reasoning with nothing after it stays with the last message.
  if (pending.length > 0) {
    if (items.length > 0) items.at(-1)!.push(...pending);
    else {
      messages.push({ role: 'user', content: '' });
      items.push(pending);
    }
  }
  return { messages, items };
}

/**
 * The plan applied to the input items: the head's items verbatim, the folded turns' items
 * replaced by one user message with the summary, the kept items as they came except the
 * compressed `function_call_output`s, whose `output` is the compressed text.
 */
export function applyPlanToItems(chat: ItemsAsChat, plan: CompressionPlan): InputItem[] {
  // applyPlan keeps message objects it does not change, so positions map back by identity.
  const out: InputItem[] = [];
  const shown = applyPlan(chat.messages, plan);
  const index = new Map(chat.messages.map((m, i) => [m, i]));
  for (const m of shown) {
    const i = index.get(m);
    if (i !== undefined) {
      out.push(...chat.items[i]!);
      continue;
    }
    const original = chat.messages.findIndex(
      (x, j) =>
        plan.replaced.has(j) &&
        x.role === 'tool' &&
        m.role === 'tool' &&
        x.tool_call_id === m.tool_call_id,
    );
    if (original >= 0) {
      const text = plan.replaced.get(original)!;
      out.push(
        ...chat.items[original]!.map((it) =>
          it.type === 'function_call_output' ? withOutput(it, text) : it,
        ),
      );
    } else {
      out.push({ type: 'message', role: 'user', content: contentText(m.content) });
    }
  }
  return out;
}

/** The text of a `function_call_output`: a string, or the text parts of a content list. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  return contentText(output);
}

/** The item with its output text replaced; parts that are not text (images, files) are kept. */
function withOutput(item: InputItem, text: string): InputItem {
  if (!Array.isArray(item.output)) return { ...item, output: text };
  const other = (item.output as { type?: string }[]).filter((p) => p.type !== 'input_text');
  return { ...item, output: other.length > 0 ? [{ type: 'input_text', text }, ...other] : text };
}
