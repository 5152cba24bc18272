import { renderMcpTaskFile } from '../../../src/bench/mcp/task-loader.js';
import type { McpTaskFile } from '../../../src/bench/mcp/task-schema.js';
import { TEMPLATES, templateRandom } from './templates.js';
import { graphJsonl, makeWorld, worldFiles } from './world.js';

/** The seeds and sizes of the shipped splits; test holds out its templates. */
export const SPLITS = [
  { split: 'train', seed: 2611, perTemplate: 5, heldOut: false },
  { split: 'dev', seed: 2622, perTemplate: 3, heldOut: false },
  { split: 'test', seed: 2633, perTemplate: 3, heldOut: true },
] as const;

/**
 * Every file of tasks/mcp, path (relative to it) → content: one world per split
 * (fixtures/<split>/files/…, fixtures/<split>/graph.jsonl) and the task files made from it.
 */
export function generateMcpTasks(): Map<string, string> {
  const out = new Map<string, string>();
  for (const { split, seed, perTemplate, heldOut } of SPLITS) {
    const world = makeWorld(seed);
    for (const [path, content] of worldFiles(world)) {
      out.set(`fixtures/${split}/files/${path}`, content);
    }
    out.set(`fixtures/${split}/graph.jsonl`, `${graphJsonl(world)}\n`);
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
        out.set(`${id}.yaml`, renderMcpTaskFile(task));
      }
    }
  }
  return out;
}
