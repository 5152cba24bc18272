import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packForPage, packStrings, unpackStrings, type Packed } from './pack.js';

describe('packing trajectories for the page', () => {
  const obs = Array.from({ length: 30 }, (_, i) => `{"id": ${i}, "name": "song ${i}"},`).join('\n');
  const value = {
    r1: { system: 'You are an agent.', steps: [{ observations: [obs, obs], n: 3, ok: true }] },
    r2: { system: 'You are an agent.', steps: [{ observations: [`${obs}\nmore`], n: null }] },
  };

  it('round-trips every value, keeping each distinct line once', () => {
    const p = packStrings(value);
    expect(unpackStrings(p)).toEqual(value);
    expect(p.lines).toHaveLength(31);
  });

  it('is gzip + base64 of the packed JSON, much smaller than the JSON', async () => {
    const text = await packForPage(packStrings(value));
    expect(text).toMatch(/^[A-Za-z0-9+/=]+$/);
    const back = JSON.parse(gunzipSync(Buffer.from(text, 'base64')).toString('utf8')) as Packed;
    expect(unpackStrings(back)).toEqual(value);
    expect(text.length).toBeLessThan(JSON.stringify(value).length / 3);
  });
});
