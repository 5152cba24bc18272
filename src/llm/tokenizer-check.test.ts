import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../config/index.js';
import { TokenizerCheck } from './tokenizer-check.js';
import { countMessageTokens } from './tokenizer.js';
import type { ChatMessage } from './types.js';

const config = ConfigSchema.parse({});
const prompt = (i: number): { messages: ChatMessage[] } => ({
  messages: [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: `Find the order ${i} of the customer and say when it shipped.` },
  ],
});

function check(reportedOf: (ours: number) => number, calls = 3) {
  const warnings: string[] = [];
  const c = new TokenizerCheck(config, (line) => warnings.push(line));
  for (let i = 0; i < calls; i++) {
    const p = prompt(i);
    c.observe('agent', p, reportedOf(countMessageTokens(p.messages)));
  }
  return warnings;
}

describe('TokenizerCheck', () => {
  it('warns once, naming the settings, when the reported counts are more than 10% off', () => {
    const warnings = check((ours) => Math.round(ours * 1.3), 6);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/agent model reported .* in o200k \(23% off\)/);
    expect(warnings[0]).toMatch(/roles\.agent\.tokenizer or endpoints\.default\.tokenizer/);
  });

  it('stays quiet within 10% (chat framing, a server that counts a BOS) and before 3 calls', () => {
    expect(check((ours) => ours + 2)).toEqual([]);
    expect(check((ours) => Math.round(ours * 1.09))).toEqual([]);
    expect(check((ours) => ours * 3, 2)).toEqual([]);
  });

  it('ignores calls without a reported count (servers that omit usage)', () => {
    expect(check(() => 0, 6)).toEqual([]);
  });
});
