// node examples/offline.mjs: try acon with no model server and no key. The compressor is acon's
// deterministic simulation (`provider: 'sim'`), so its reports say SIMULATED; put a real model
// there (an OpenAI-compatible endpoint or your framework's model) for real compressions.
import { createContextCompressor, loadGuidelines } from 'acon';
import { bigRecords } from './common.mjs';

const compressor = createContextCompressor({
  guidelines: await loadGuidelines('active', {
    dir: process.env.ACON_GUIDELINES_DIR ?? 'guidelines',
  }),
  model: { provider: 'sim' },
  onReport: (r) =>
    console.error(
      `[acon]${r.simulated ? ' SIMULATED' : ''} ${r.tokensBefore} -> ${r.tokensAfter} tokens` +
        (r.events.length ? `, ${r.events.map((e) => e.kind).join(' ')}` : ''),
    ),
});
const messages = [
  { role: 'system', content: 'You are a bookkeeping agent.' },
  { role: 'user', content: 'Find the largest amount among all records and report its id.' },
];
for (let page = 0; page < 3; page++) {
  const id = `call_${page}`;
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id,
        type: 'function',
        function: { name: 'list_records', arguments: JSON.stringify({ page }) },
      },
    ],
  });
  messages.push({ role: 'tool', tool_call_id: id, content: bigRecords(page) });
}
const compressed = await compressor.compress(messages);
console.log(`${messages.length} messages in, ${compressed.length} out`);
