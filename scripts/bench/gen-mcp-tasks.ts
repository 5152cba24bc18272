/**
 * Writes tasks/mcp/: the shipped `--bench mcp` tasks (issue 26) and their fixtures, from the
 * seeded world of scripts/bench/mcp-tasks/world.ts and the patterns of templates.ts. One world
 * per split (fixtures/<split>/files for the filesystem server, fixtures/<split>/graph.jsonl for
 * the memory server); test holds out its patterns. The files are committed; rerun after
 * changing the world or the patterns:
 *
 *   npx tsx scripts/bench/gen-mcp-tasks.ts [tasks/mcp]
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { renderMcpTaskFile } from '../../src/bench/mcp/task-loader.js';
import type { McpTaskFile } from '../../src/bench/mcp/task-schema.js';
import { TEMPLATES, templateRandom } from './mcp-tasks/templates.js';
import { graphJsonl, makeWorld, worldFiles } from './mcp-tasks/world.js';

const SPLITS = [
  { split: 'train', seed: 2611, perTemplate: 5, heldOut: false },
  { split: 'dev', seed: 2622, perTemplate: 3, heldOut: false },
  { split: 'test', seed: 2633, perTemplate: 3, heldOut: true },
] as const;

const dir = process.argv[2] ?? 'tasks/mcp';
await mkdir(dir, { recursive: true });
for (const name of await readdir(dir)) if (name.endsWith('.yaml')) await rm(join(dir, name));
await rm(join(dir, 'fixtures'), { recursive: true, force: true });

let count = 0;
for (const { split, seed, perTemplate, heldOut } of SPLITS) {
  const world = makeWorld(seed);
  const fixture = join(dir, 'fixtures', split);
  for (const [path, content] of worldFiles(world)) {
    await mkdir(dirname(join(fixture, 'files', path)), { recursive: true });
    await writeFile(join(fixture, 'files', path), content);
  }
  await writeFile(join(fixture, 'graph.jsonl'), `${graphJsonl(world)}\n`);
  const f = templateRandom(seed + 1);
  let n = 0;
  for (const template of TEMPLATES.filter((t) => t.heldOut === heldOut)) {
    for (let i = 0; i < perTemplate; i++) {
      const { uses, ...made } = template.make({ world, split, f }, i);
      const id = `mcp-${split}-${String(++n).padStart(2, '0')}-${template.id.split('.')[1]}`;
      const task: McpTaskFile = {
        id,
        split,
        template: template.id,
        ...made,
        fixture: {
          ...(uses.includes('files') ? { files: `fixtures/${split}/files` } : {}),
          ...(uses.includes('graph') ? { graph: `fixtures/${split}/graph.jsonl` } : {}),
        },
      };
      await writeFile(join(dir, `${id}.yaml`), renderMcpTaskFile(task));
      count++;
    }
  }
}
process.stdout.write(`wrote ${count} tasks to ${dir}\n`);
