/**
 * The preset deflate dictionary of short texts (blob encodings 8 and 9): the JSON that chat
 * messages and tool calls are made of, so that a message of a few hundred bytes does not pay
 * for spelling out its own structure. Deflate finds matches anywhere in it and codes nearer
 * ones shorter, so the most frequent fragments come last.
 *
 * Never change it: stored blobs are decoded with exactly these bytes. A better dictionary is a
 * new encoding number.
 */
export const MESSAGE_DICTIONARY = Buffer.from(
  [
    '{"role":"system","content":"You are',
    '{"role":"tool","tool_call_id":"call_',
    '","name":"',
    '"error":"',
    '"message":"',
    '\\n  \\"',
    '\\",\\n',
    '":null,"',
    '":true,"',
    '":false,"',
    '\\":\\"',
    '\\",\\"',
    ' with ',
    'calling ',
    '\\"access_token\\":\\"',
    '\\"args\\":{',
    '{\\"app\\":\\"',
    '\\"api\\":\\"',
    '","arguments":"{\\"',
    '","type":"function","function":{"name":"',
    '{"role":"assistant","content":null,"tool_calls":[{"id":"call_',
    '","tool_calls":[{"id":"call_',
    '{"role":"assistant","content":"',
    '"}}]}',
    '{"role":"user","content":"',
    '{"role":"tool","tool_call_id":"call_',
    '","content":"',
    '"\\u0000"}',
  ].join(''),
  'utf8',
);
