import type { Item } from '../bench/index.js';

/**
 * The records of a text that holds no JSON object and no fact line (issue #58): what most real
 * tool servers answer (a file's text, a directory listing, a shell's output). A reader takes each
 * line as it is, and a `key: value` line also as that field, so `Q1 budget: 4200 USD` gives the
 * field `Q1 budget` = `4200 USD` and `[FILE] q1.md` gives the line itself. A value is then
 * readable where a person would read it, and nowhere else: a line that was cut away is gone.
 */
export function plainTextRecords(text: string): Item[] {
  const records: Item[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const pair = /^([^:]{1,60}?):\s+(\S.*)$/.exec(line);
    records.push(pair ? { [pair[1]!.trim()]: pair[2]!, line } : { line });
  }
  return records;
}
