/**
 * Whether a value given where a variable NAME is expected looks like an API key pasted by
 * mistake (issue #60): `gsk_…` passes the name pattern (letters, digits, `_`), so the pattern alone
 * let such a key be echoed in "… is not set; export gsk_…=<your API key>".
 */

/** Prefixes of keys that can look like a variable name (no '-'): Groq, Hugging Face, GitHub, Google, Replicate, Fireworks, Stripe. */
const KEY_PREFIXES = [
  'sk_',
  'gsk_',
  'hf_',
  'ghp_',
  'gho_',
  'github_pat_',
  'AIza',
  'r8_',
  'fw_',
  'rk_',
  'pk_',
];

/** A name this long with this much randomness per character is not one a person typed. */
const RANDOM_MIN_LENGTH = 24;
const RANDOM_MIN_BITS_PER_CHAR = 3.5;

export function looksLikeKey(value: string): boolean {
  if (/[^A-Za-z0-9_]/.test(value) && value.length >= 16) return true;
  if (KEY_PREFIXES.some((p) => value.startsWith(p) && value.length >= p.length + 16)) return true;
  if (value.length < RANDOM_MIN_LENGTH) return false;
  // Variable names are words in one case joined by '_'; keys mix cases and digits at random.
  const mixed = /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value);
  return mixed && bitsPerChar(value) >= RANDOM_MIN_BITS_PER_CHAR;
}

/** Shannon entropy of the value's characters. */
function bitsPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}

/** The message for a key given as a variable name: it never contains the value. */
export const KEY_NOT_NAME =
  'this looks like an API key, not a variable name; give the NAME of the environment variable that holds the key (e.g. OPENAI_API_KEY) and export the key in it; the value is not shown';
