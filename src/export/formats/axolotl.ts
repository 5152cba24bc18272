import { z } from 'zod';
import { ToolDefSchema } from '../../llm/index.js';
import { checkChat } from '../lint/chat-rules.js';
import type { TrainingExample } from '../schema.js';
import { chatMessageSchema, openAiChat, toOpenAiMessages } from './openai.js';
import type { FormatSpec, SidecarContext } from './types.js';

/**
 * Axolotl `type: chat_template`: the data is OpenAI messages (`{"messages": [...], "tools"?}`);
 * tool-call arguments stay JSON strings, which Axolotl's chat_template strategy accepts. Earlier
 * assistant turns of an agent prompt carry `"training": false` (Axolotl's per-message
 * `message_field_training`), so only the answer at this step is trained on. The config snippet
 * (`<stem>.axolotl.yaml`) is written next to the data.
 */

export const AxolotlMessageSchema = chatMessageSchema({ training: z.boolean().optional() });
export const AxolotlLineSchema = z.strictObject({
  messages: z.array(AxolotlMessageSchema).min(1),
  tools: z.array(ToolDefSchema).optional(),
});
export type AxolotlLine = z.infer<typeof AxolotlLineSchema>;
type AxolotlMessage = z.infer<typeof AxolotlMessageSchema>;

/** The `datasets:` snippet; paths as given to --out (Axolotl resolves them from its cwd). */
export function axolotlSnippet(ctx: SidecarContext): string {
  const entry = (path: string, test: boolean): string[] => [
    `  - path: ${yamlString(path)}`,
    '    ds_type: json',
    ...(test ? ['    split: train'] : []),
    '    type: chat_template',
    '    field_messages: messages',
    ...(ctx.hasTools ? ['    field_tools: tools'] : []),
    '    message_property_mappings:',
    '      role: role',
    '      content: content',
    // Only assistant turns are learned; the system prompt (guideline) and the input are context.
    '    roles_to_train: ["assistant"]',
    ...(ctx.role === 'agent' ? ['    message_field_training: training'] : []),
    '    train_on_eos: turn',
  ];
  return [
    `# Axolotl datasets for the acon ${ctx.role} export of run ${ctx.runId}.`,
    '# Merge into your Axolotl config (base_model, chat_template, sequence_len, adapter, …).',
    '# Provenance (provider, SIMULATED or not): see the .meta.json next to the data.',
    'datasets:',
    ...entry(ctx.paths.train, false),
    ...(ctx.hasVal ? ['test_datasets:', ...entry(ctx.paths.val, true)] : []),
    '',
  ].join('\n');
}

function yamlString(s: string): string {
  return JSON.stringify(s);
}

export const axolotlFormat: FormatSpec<AxolotlLine> = {
  name: 'axolotl',
  lineSchema: AxolotlLineSchema,
  line(ex: TrainingExample): AxolotlLine {
    const agent = ex.role === 'agent';
    const messages = toOpenAiMessages<AxolotlMessage>(ex.messages, (isFinal) =>
      agent && !isFinal ? { training: false } : {},
    );
    return ex.tools ? { messages, tools: ex.tools } : { messages };
  },
  check: (line) => checkChat(openAiChat(line.messages)),
  chat: (line) => openAiChat(line.messages),
  sidecars: (ctx) => [{ path: ctx.paths.axolotl, render: () => axolotlSnippet(ctx) }],
};
