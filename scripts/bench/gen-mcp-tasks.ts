/**
 * Writes tasks/mcp/: the shipped `--bench mcp` tasks (issue 26) and their fixtures, from the
 * seeded world of scripts/bench/mcp-tasks/world.ts and the patterns of templates.ts. One world
 * per split (fixtures/<split>/files for the filesystem server, fixtures/<split>/graph.jsonl for
 * the memory server); test holds out its patterns. The files are committed, and
 * test/mcp-bench.test.ts checks they still equal what this makes; rerun after changing the
 * world or the patterns:
 *
 *   npx tsx scripts/bench/gen-mcp-tasks.ts [tasks/mcp]
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { generateMcpTasks } from './mcp-tasks/generate.js';

const dir = process.argv[2] ?? 'tasks/mcp';
await mkdir(dir, { recursive: true });
for (const name of await readdir(dir)) if (name.endsWith('.yaml')) await rm(join(dir, name));
await rm(join(dir, 'fixtures'), { recursive: true, force: true });
const files = generateMcpTasks();
for (const [path, content] of files) {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), content);
}
const tasks = [...files.keys()].filter((p) => p.endsWith('.yaml')).length;
process.stdout.write(`wrote ${tasks} tasks to ${dir}\n`);
