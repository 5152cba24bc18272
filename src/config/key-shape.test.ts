import { describe, expect, it } from 'vitest';
import { looksLikeKey } from './key-shape.js';

describe('looksLikeKey (issue #60)', () => {
  it('knows keys that pass the variable-name pattern', () => {
    for (const key of [
      'gsk_BBBBkeyAsEnvName1234567890abcdefXYZ',
      'hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345',
      'AIzaSyD3x4mPl3K3y0nlyL3tt3rsAndD1g1ts',
      'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
      // No known prefix, but long and random.
      'Qm9vT2xhc3Rlcl8xMjM0NTY3ODkwYWJjZGVm',
    ]) {
      expect(looksLikeKey(key), key).toBe(true);
    }
  });

  it('leaves ordinary variable names alone, long ones too', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'GROQ_API_KEY',
      'HF_TOKEN',
      'VLLM_API_KEY',
      'MY_VERY_LONG_OPENAI_COMPATIBLE_API_KEY_FOR_PRODUCTION_2',
      'AZURE_OPENAI_API_KEY_EASTUS2',
    ]) {
      expect(looksLikeKey(name), name).toBe(false);
    }
  });
});
