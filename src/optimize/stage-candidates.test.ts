import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../config/schema.js';
import { feedbackSamples } from './stage-candidates.js';

describe('feedbackSamples', () => {
  const analyses = Array.from({ length: 40 }, (_, i) => `analysis ${i}`);

  it('gives each of the K updater calls its own sample of at most feedback_sample analyses', () => {
    const size = ConfigSchema.parse({}).optimize.feedback_sample;
    expect(size).toBe(30);
    const samples = feedbackSamples(analyses, 5, size, [42, 'ut:obs:r1']);
    expect(samples).toHaveLength(5);
    for (const s of samples) expect(s).toHaveLength(30);
    expect(new Set(samples.map((s) => s.join('|'))).size).toBe(5);
  });

  it('draws the same samples again for the same seed and stage', () => {
    expect(feedbackSamples(analyses, 3, 10, [42, 'co:hist:r1'])).toEqual(
      feedbackSamples(analyses, 3, 10, [42, 'co:hist:r1']),
    );
    expect(feedbackSamples(analyses, 1, 10, [42, 'co:hist:r1'])).not.toEqual(
      feedbackSamples(analyses, 1, 10, [42, 'co:hist:r2']),
    );
  });

  it('samples the updater at temperature 1.0 by default (the reference samples its candidates)', () => {
    expect(ConfigSchema.parse({}).roles.updater.temperature).toBe(1);
    expect(ConfigSchema.parse({}).roles.agent.temperature).toBe(0);
  });
});
