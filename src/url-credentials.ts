/**
 * Credentials written into a URL (`https://user:secret@host/…`, `…?api_key=…`) are a key like any
 * other: a base URL in acon.config.yaml, an upstream given to `acon proxy` or an endpoint named in
 * an error message must not carry them into the database, a log line, the terminal or an export
 * (issue #60, case 4). This is the one function that finds them in any text; every place that
 * stores, prints or exports a URL goes through it.
 */

export const URL_REDACTED = '[REDACTED]';

/**
 * Query parameters that carry a credential by the conventions of the APIs agents call
 * (`api_key`, `key` as Google's APIs take it, `token`, `access_token`, signed URLs' `sig`…).
 */
const SECRET_PARAMS = [
  'api[_-]?key',
  'apikey',
  'key',
  'token',
  'access[_-]?token',
  'refresh[_-]?token',
  'id[_-]?token',
  'auth',
  'authorization',
  'secret',
  'client[_-]?secret',
  'password',
  'passwd',
  'pwd',
  'sig',
  'signature',
  'x-api-key',
  'x-goog-api-key',
  'code',
].join('|');

// A URL in running text: a scheme, then everything up to whitespace or a quote/bracket that
// would end it in JSON, YAML or prose.
export const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
// The user-info part of an authority: anything before an `@` that comes before the path.
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]+@/i;
const SECRET_QUERY = new RegExp(`([?&;](?:${SECRET_PARAMS})=)[^&#;\\s"'<>\`]+`, 'gi');

/** One URL (a match of URL_IN_TEXT) with its user info and secret query values replaced by `[REDACTED]`. */
export function redactUrl(url: string): string {
  return url
    .replace(USER_INFO, `$1${URL_REDACTED}@`)
    .replace(SECRET_QUERY, (_, name: string) => `${name}${URL_REDACTED}`);
}

/**
 * The text with the credentials of every URL in it redacted; the rest of each URL (scheme, host,
 * port, path, other parameters) is kept, since that is what a user needs to see which endpoint
 * it was.
 * @example redactUrlCredentials('http://u:sk-1@127.0.0.1:8000/v1') === 'http://[REDACTED]@127.0.0.1:8000/v1'
 */
export function redactUrlCredentials(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, redactUrl);
}

/**
 * The credential values in a URL (its user name and password, its secret query values): the
 * strings an answer that echoes the URL must not carry onwards, for a redaction by value.
 */
export function urlCredentials(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const out = [parsed.username, parsed.password].map((s) => decodeURIComponent(s));
  const names = new RegExp(`^(?:${SECRET_PARAMS})$`, 'i');
  for (const [name, value] of parsed.searchParams) if (names.test(name)) out.push(value);
  return out.filter((s) => s.length > 0);
}
