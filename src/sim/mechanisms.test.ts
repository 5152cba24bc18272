import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApptown, DEFAULT_TASKS_DIR } from '../bench/apptown/index.js';
import type { ReferencePlan } from '../bench/types.js';
import type { AssistantMessage, ChatMessage } from '../llm/types.js';
import { renderPrompt } from '../prompts/template.js';
import { parseAgentMarker, replaceValue, simAgentTurn } from './agent.js';
import { simCompressionAnalysis } from './compression-analysis.js';
import { simObservationCompressor } from './compressor.js';
import { containsToken } from './text.js';

/**
 * The mechanism checks of issue 22: each models one behaviour of an LLM agent or compressor and
 * fails on a sim that reads what its prompt does not show. They drive real apptown episodes with
 * the simulated agent, changing only what the agent is shown.
 */

const OPTS = { seed: 7, refetchLimit: 2, noise: 0 };

type View = (messages: ChatMessage[]) => ChatMessage[];
type Turn = { message: AssistantMessage; shown: ChatMessage[] };

/** Runs the sim agent on a task, showing it `view` of the conversation each step. */
async function drive(taskId: string, view: View, plan?: ReferencePlan, maxSteps = 80) {
  const bench = createApptown();
  const episode = await bench.start(taskId);
  const reference = plan ?? (await bench.referencePlan(taskId));
  const messages: ChatMessage[] = [
    { role: 'system', content: episode.systemPrompt },
    { role: 'user', content: episode.firstUserMessage },
  ];
  const turns: Turn[] = [];
  for (let step = 0; step < maxSteps; step++) {
    const shown = view(messages);
    const message = simAgentTurn(reference, shown, { taskId, step }, OPTS);
    turns.push({ message, shown });
    const result = await episode.act(message);
    messages.push(message, ...result.messages);
    if (result.done) break;
  }
  const evaluation = await episode.evaluate();
  await episode.close();
  return { turns, plan: reference, evaluation };
}

const SELECTORS = ['title', 'name', 'account_name', 'amount'];

/** The first shipped task (in split order) made from `template`, so the checks survive a regeneration. */
async function taskMadeFrom(template: string): Promise<string> {
  const tasks = await createApptown().listTasks();
  const task = tasks.find((t) => t.template?.split('+').includes(template));
  if (!task) throw new Error(`no shipped task is made from ${template}`);
  return task.id;
}

/** Every JSON object in tool results loses the selector fields. */
function withoutSelectors(messages: ChatMessage[]): ChatMessage[] {
  return stripKeys(messages, SELECTORS);
}

/** Every JSON object in tool results loses `keys`. */
function stripKeys(messages: ChatMessage[], keys: readonly string[]): ChatMessage[] {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>)
          .filter(([k]) => !keys.includes(k))
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  return messages.map((m) => {
    if (m.role !== 'tool') return m;
    try {
      return { ...m, content: JSON.stringify(strip(JSON.parse(m.content))) };
    } catch {
      return m;
    }
  });
}

/** Steps of a task file whose reference picks a record by a selector field or decides on one. */
function selectorSteps(taskId: string): Set<number> {
  const text = readFileSync(join(DEFAULT_TASKS_DIR, `${taskId}.yaml`), 'utf8');
  const steps = new Set<number>();
  let index = -1;
  for (const line of text.split('\n')) {
    if (/^ {2}- id: s\d+/.test(line)) index++;
    if (/^evaluation:/.test(line)) break;
    const picks = SELECTORS.some((f) => line.includes(`[${f}=`) || line.includes(`[${f}^=`));
    if (index >= 0 && (picks || /^\s+if: \{?amount/.test(line))) steps.add(index);
  }
  return steps;
}

function callOf(message: ChatMessage): string {
  const call = message.role === 'assistant' ? message.tool_calls?.[0] : undefined;
  return call ? `${call.function.name} ${call.function.arguments}` : '';
}

/** Done turns: the plan step each acted on, and whether its call is the reference's. */
function doneSteps(turns: readonly Turn[], plan: ReferencePlan) {
  return turns.flatMap(({ message }) => {
    const marker = parseAgentMarker(message.content ?? '');
    if (marker === undefined || marker.kind === 'refetch') return [];
    const reference = plan.steps[marker.step]!;
    const call = message.tool_calls?.[0];
    const same =
      call?.function.name === reference.tool &&
      call.function.arguments === JSON.stringify(reference.args);
    return [{ step: marker.step, same }];
  });
}

describe('the simulated agent knows only what it reads (issue 22)', () => {
  it('picks wrong records on at least half the steps whose selector fields it cannot see', async () => {
    const tasks = ['train-001', 'train-002', 'dev-001', 'dev-002', 'train-003'];
    const bench = createApptown();
    const ids = (await bench.listTasks()).map((t) => t.id);
    let affected = 0;
    let wrong = 0;
    for (const prefix of tasks) {
      const taskId = ids.find((id) => id.startsWith(prefix))!;
      const steps = selectorSteps(taskId);
      const { turns, plan } = await drive(taskId, withoutSelectors);
      const done = doneSteps(turns, plan).filter((d) => steps.has(d.step));
      affected += done.length;
      wrong += done.filter((d) => !d.same).length;
    }
    expect(affected).toBeGreaterThanOrEqual(10);
    expect(wrong).toBeGreaterThanOrEqual(affected / 2);
  });

  it('takes the same actions when plan values it cannot see are permuted', async () => {
    const bench = createApptown();
    const ids = (await bench.listTasks()).map((t) => t.id);
    // Results without ids: the values later calls copy are nowhere in the agent's view.
    const noIds: View = (m) => stripKeys(m, ['id']);
    for (const taskId of [ids.find((id) => id.startsWith('train-001'))!]) {
      const { turns, plan } = await drive(taskId, noIds);
      let permuted = 0;
      for (const [step, turn] of turns.entries()) {
        const text = turn.shown.map((m) => JSON.stringify(m)).join('\n');
        const other = permutePlan(plan, (v) => !containsToken(text, v));
        permuted += other.count;
        const again = simAgentTurn(other.plan, turn.shown, { taskId, step }, OPTS);
        expect(callOf(again)).toBe(callOf(turn.message));
      }
      expect(permuted).toBeGreaterThan(20);
    }
  });

  it('repeats finished steps it cannot see done (a list in view, its earlier handling not)', async () => {
    const taskId = await taskMadeFrom('music-album-playlist');
    // What a summary that kept the album but no progress statement leaves: the album's result
    // and the last two turns.
    const view: View = (m) => {
      const rest = m.slice(2);
      const album = rest.findIndex(
        (x) => x.role === 'assistant' && callOf(x).includes('"show_album"'),
      );
      const pinned = album === -1 ? [] : rest.slice(album, album + 2);
      const last = dropToTurns(rest, 2);
      return [m[0]!, m[1]!, ...pinned.filter((x) => !last.includes(x)), ...last];
    };
    const { turns } = await drive(taskId, view);
    const adds = turns
      .map((t) => callOf(t.message))
      .filter((c) => c.includes('add_song_to_playlist'));
    const repeated = adds.filter((c, i) => adds.indexOf(c) < i);
    expect(repeated.length).toBeGreaterThanOrEqual(1);
  });

  it('repeats a finished step under FIFO on a long task', async () => {
    const bench = createApptown();
    const ids = (await bench.listTasks()).map((t) => t.id);
    const taskId = ids.find((id) => id.startsWith('dev-001'))!;
    const fifo: View = (m) => [m[0]!, m[1]!, ...dropToTurns(m.slice(2), 5)];
    const { turns } = await drive(taskId, fifo);
    const calls = turns.map((t) => callOf(t.message));
    const repeated = calls.filter((c, i) => calls.indexOf(c) < i);
    expect(repeated.length).toBeGreaterThanOrEqual(1);
  });
});

describe('the simulated agent re-reads a list it knows it cannot see whole (issue 22)', () => {
  /** The first answer to a call whose arguments match `args`, hidden as masking hides it. */
  const hideFirst =
    (api: string, page: number): View =>
    (m) => {
      const call = m.find(
        (x) =>
          x.role === 'assistant' &&
          callOf(x).includes(`"api":"${api}"`) &&
          callOf(x).includes(`"page_index":${page},`),
      );
      const id = call?.role === 'assistant' ? call.tool_calls?.[0]?.id : undefined;
      return m.map((x) =>
        x.role === 'tool' && x.tool_call_id === id
          ? { ...x, content: 'Previous 40 lines omitted for brevity.' }
          : x,
      );
    };

  it('pages again through a page it read but cannot see before computing over the list', async () => {
    const taskId = await taskMadeFrom('shop-cheapest-in-category-to-cart');
    const { turns, evaluation } = await drive(taskId, hideFirst('search_products', 0));
    const calls = turns.map((t) => callOf(t.message));
    const page0 = calls.flatMap((c, i) =>
      c.includes('"api":"search_products"') && c.includes('"page_index":0,') ? [i] : [],
    );
    const cart = calls.findIndex((c) => c.includes('"api":"add_product_to_cart"'));
    // It read page 0 once, lost it, and read it again before choosing the cheapest product.
    expect(page0.length).toBeGreaterThanOrEqual(2);
    expect(page0[1]!).toBeLessThan(cart);
    expect(turns[page0[1]!]!.message.content).toContain('page 0 of shop.search_products');
    expect(evaluation.success).toBe(true);
  });
});

/** The last `n` turns (an assistant message and what answers it). */
function dropToTurns(rest: ChatMessage[], n: number): ChatMessage[] {
  const starts = rest.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const from = starts.length > n ? starts[starts.length - n]! : 0;
  return rest.slice(from);
}

/**
 * The plan with every copied or computed value for which `hidden` holds replaced by another of
 * the same shape, in the arguments and in the needs alike.
 */
function permutePlan(
  plan: ReferencePlan,
  hidden: (value: string) => boolean,
): { plan: ReferencePlan; count: number } {
  const swap = new Map<string, string>();
  const other = (v: string) => {
    let w = swap.get(v);
    if (w === undefined) {
      w = [...v]
        .map((c, i) =>
          c >= '0' && c <= '9'
            ? String((Number(c) + 3 + i) % 10)
            : c >= 'a' && c <= 'z'
              ? String.fromCharCode(97 + ((c.charCodeAt(0) - 97 + 5) % 26))
              : c,
        )
        .join('');
      swap.set(v, w);
    }
    return w;
  };
  let count = 0;
  const steps = plan.steps.map((step) => {
    let args = step.args;
    const needs = step.needs.map((need) => {
      if (!hidden(need.value) || need.value.length < 3) return need;
      count++;
      const w = other(need.value);
      args = replaceValue(args, need.value, w);
      return { ...need, value: w };
    });
    return { ...step, needs, args };
  });
  return { plan: { ...plan, steps }, count };
}

describe('the simulated compressors read prose (issue 22)', () => {
  const observation = JSON.stringify({
    items: [1, 2, 3, 4].map((i) => ({
      id: 4000 + i,
      title: `Mix ${i}`,
      description: `A long description of mix number ${i} that goes on for a while`,
      play_count: 100 * i,
      created_at: `2024-0${i}-01T10:00:00`,
    })),
  });
  const compress = (guideline: string) =>
    simObservationCompressor([
      { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline }) },
      {
        role: 'user',
        content: renderPrompt('obs-compressor.user.txt', {
          task: 'Tidy up my music.',
          session: '(none)',
          observation,
        }),
      },
    ]);
  const base = 'Rewrite the tool output so that it keeps what matters for the task.';

  it('changes its output when only the prose of the guideline changes', () => {
    const before = compress(base);
    const after = compress(`${base} Always keep the titles of every item. Leave out the dates.`);
    expect(after).not.toBe(before);
    expect(after).toContain('Mix 1');
    expect(after).not.toContain('created_at');
    const fewer = compress(`${base} Keep at most 2 items of any list.`);
    expect(fewer).not.toContain('4004');
  });

  it('ignores prose outside its lexicon', () => {
    expect(compress(`${base} Write in a friendly, calm voice.`)).toBe(compress(base));
  });
});

describe('the simulated CO analyzer counts fields the task asks by as used (issues 22, 61)', () => {
  it('lists a field the task names in other words as needed, never from the reasoning', () => {
    const events = [
      '[event 1] obs compression at step 3, of the observation of step 2 (1890 -> 240 tokens)',
      'INPUT:',
      '{"items":[…]}',
      'KEPT:',
      JSON.stringify({
        items: [
          { title: 'Blue Hour', play_count: 930, genre: 'jazz' },
          { title: 'Road Trip', play_count: 120, genre: 'rock' },
        ],
      }),
      'NEXT TURNS:',
      '[step 3] THOUGHT Step 4 of 4: calling complete_task with answer=Blue Hour (max play_count over 2 items I can see).',
      '[step 3] ACTION complete_task {"answer":"Blue Hour","status":"success"}',
    ].join('\n');
    const analysis = simCompressionAnalysis(
      renderPrompt('analyzer-co.user.txt', {
        task: 'Which of my playlists was played the most? Answer with its title.',
        kind: 'obs',
        guideline: 'g',
        events,
      }),
    );
    expect(analysis.needed_fields).toContain('play_count');
    expect(analysis.needed_fields).toContain('title');
    expect(analysis.unused_fields).toEqual(['genre']);
    // The reasoning names `play_count`, the task does not: it counts as unused.
    const blind = simCompressionAnalysis(
      renderPrompt('analyzer-co.user.txt', {
        task: 'Answer.',
        kind: 'obs',
        guideline: 'g',
        events,
      }),
    );
    expect(blind.unused_fields).toContain('play_count');
  });

  it('lists a text field as needed when a later call passes a value read out of it', () => {
    const body = 'Hi! Quick update: my new phone number is (913) 858-3211. Talk soon, Cornell';
    const events = [
      '[event 1] obs compression at step 5, of the observation of step 4 (900 -> 300 tokens)',
      'INPUT:',
      '{"messages":[…]}',
      'KEPT:',
      JSON.stringify({ id: 261482, messages: [{ body, labels: ['inbox'] }] }),
      'NEXT TURNS:',
      '[step 5] THOUGHT Step 6 of 8: calling phone.update_contact with contact_id=426969, phone_number=(913) 858-3211.',
      `[step 5] ACTION call_api ${JSON.stringify({ app: 'phone', api: 'update_contact', args: { access_token: 'atk_x1', contact_id: 426969, phone_number: '(913) 858-3211', page_limit: 20 } })}`,
    ].join('\n');
    const analysis = simCompressionAnalysis(
      renderPrompt('analyzer-co.user.txt', { task: 't', kind: 'obs', guideline: 'g', events }),
    );
    expect(analysis.needed_fields).toContain('body');
    // Neither the API's name nor the page size is a value read out of a text.
    expect(analysis.unused_fields).toEqual(expect.arrayContaining(['id', 'labels']));
  });
});
