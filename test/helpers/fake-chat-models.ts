import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ChatResult } from '@langchain/core/outputs';
import { AIMessage, type BaseMessage } from 'langchain';
import { compressorAnswer } from './runtime-fixtures.js';

/**
 * A chat model of another provider, written against LangChain's own interface (`BaseChatModel`
 * with `_generate`): it reads the prompt acon rendered and answers as a compressor would.
 */
export class FakeCompressorChatModel extends BaseChatModel {
  readonly calls: BaseMessage[][] = [];
  constructor() {
    super({});
  }
  _llmType(): string {
    return 'fake-anthropic';
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    const of = (type: string) =>
      messages
        .filter((m) => m.getType() === type)
        .map((m) => m.text)
        .join('\n');
    const text = compressorAnswer(of('system'), of('human')) ?? 'not a compressor call';
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}
