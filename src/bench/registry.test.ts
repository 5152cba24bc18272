import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../config/schema.js';
import { resolveSplits } from './registry.js';

const optimize = (o: Record<string, unknown> = {}) => ConfigSchema.parse({ optimize: o }).optimize;

describe('resolveSplits: where optimize draws its selection tasks (issue 56)', () => {
  it('holds whole task patterns out for apptown and mcp, whose test splits hold templates out', () => {
    expect(resolveSplits('mcp', optimize(), {}).selectFrom).toBe('grouped');
    expect(resolveSplits('apptown', optimize(), {})).toEqual({
      train: 'train',
      selection: 'dev',
      evaluation: 'test',
      selectFrom: 'grouped',
    });
  });
  it('takes the selection split as it is for the benchmarks without templates', () => {
    for (const bench of ['appworld', 'qa'])
      expect(resolveSplits(bench, optimize(), {}).selectFrom).toBe('split');
    expect(resolveSplits('appworld', optimize(), {}).evaluation).toBe('test_normal');
  });
  it('takes a selection split the user named as it is, by flag or by config', () => {
    expect(resolveSplits('apptown', optimize(), { selection: 'dev' })).toMatchObject({
      selection: 'dev',
      selectFrom: 'split',
    });
    expect(resolveSplits('apptown', optimize({ select_split: 'test' }), {})).toMatchObject({
      selection: 'test',
      selectFrom: 'split',
    });
  });
  it('lets the flag win over the config, and the config over the benchmark', () => {
    expect(resolveSplits('apptown', optimize({ select_from: 'split' }), {}).selectFrom).toBe(
      'split',
    );
    expect(resolveSplits('qa', optimize({ select_from: 'grouped' }), {}).selectFrom).toBe(
      'grouped',
    );
    expect(
      resolveSplits('apptown', optimize({ select_from: 'split' }), { selectFrom: 'grouped' })
        .selectFrom,
    ).toBe('grouped');
    // A named split with grouped asked for explicitly: grouped pools it with train.
    expect(
      resolveSplits('apptown', optimize(), { selection: 'dev', selectFrom: 'grouped' }).selectFrom,
    ).toBe('grouped');
  });
});
