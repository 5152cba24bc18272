import type { z } from 'zod';
import { computeChoice, itemsOfJson, type Item } from '../../../src/bench/choice.js';
import type { ReferenceChoice } from '../../../src/bench/types.js';
import { diffTables } from '../../../src/bench/apptown/diff.js';
import { evaluateState } from '../../../src/bench/apptown/evaluate.js';
import type { Tables } from '../../../src/bench/apptown/records.js';
import {
  followPath,
  parseRef,
  resolveTemplates,
  type Scope,
} from '../../../src/bench/apptown/refs.js';
import { supervisorFacts, type SupervisorFacts } from '../../../src/bench/apptown/replay.js';
import { callApi } from '../../../src/bench/apptown/server.js';
import {
  ChangeSchema,
  changeKind,
  type Answer,
  type Change,
  type ChoiceSpec,
  type DecideSpec,
  type ReferenceStepSpec,
  type TaskFile,
} from '../../../src/bench/apptown/task-schema.js';
import { WorldCache } from '../../../src/bench/apptown/worlds.js';
import { NoCandidate } from './picker.js';
import type { World } from '../../../src/bench/apptown/world.js';

export type ChangeInput = z.input<typeof ChangeSchema>;

/** What a template decides: the words of the task and the changes that matter. */
export type TaskSpec = {
  instruction: string;
  /** Omit for tasks that ask nothing. */
  answer?: Answer;
  /** The changes the task is about; side effects (balances, counters) are added from the replay. */
  changes?: ChangeInput[];
};

/** A computed value: its spec for the task file and the value it gives. */
export type Chosen = { value: string; spec: ChoiceSpec };

export type ChoiceInput = Omit<ReferenceChoice, 'value' | 'from'> & { from: Step[] };

/** One reference step as run while authoring: its id and real response. */
export class Step {
  constructor(
    readonly id: string,
    readonly body: unknown,
  ) {}

  /** A template pointing into this step's response, e.g. `step.ref('.items[0].id')`. */
  ref(path: string): string {
    return `{{${this.id}${path}}}`;
  }

  /** Read a value from the response with the same path syntax the templates use. */
  at<T>(path: string): T {
    return followPath(this.body, parseRef(`${this.id}${path}`)) as T;
  }
}

/**
 * Builds a reference solution by running each call for real in the task's world while
 * recording it, so a template can look at true responses (page contents, orders) to choose
 * its selectors, and every step is known to succeed before it is written to a file.
 */
export class TaskBuilder {
  readonly world: World;
  /** The untouched initial state: templates pick their targets from here. */
  readonly data: Tables;
  readonly me: SupervisorFacts;
  readonly steps: ReferenceStepSpec[] = [];
  private readonly scope: Scope;
  private passwords: Step | null = null;
  private readonly tokens = new Map<string, string>();
  private readonly documented = new Set<string>();
  private readonly seen: { call: string; item: Item }[] = [];
  private readonly callOf = new Map<string, string>();
  private completion: {
    answer: Answer | string | null;
    reads?: Record<string, (string | number)[]>;
    choose?: Chosen[];
  } | null = null;

  /** @param worlds shared by the builders of one generator run, so each seed is generated once */
  constructor(
    readonly seed: number,
    worlds: WorldCache = new WorldCache(),
  ) {
    this.world = worlds.create(seed);
    this.data = this.world.initial;
    this.me = supervisorFacts(this.world);
    this.scope = { steps: new Map(), supervisor: { ...this.me } };
  }

  /**
   * Discovery, as a real agent starts (AppWorld trajectories begin this way): the list of apps,
   * then the APIs of each app the task needs.
   */
  discover(apps: readonly string[]): void {
    this.call('api_docs', 'show_app_descriptions');
    for (const app of apps) this.call('api_docs', 'show_api_descriptions', { app_name: app });
  }

  /**
   * A choice over the items of the lists it reads (every response so far of the same calls as
   * `from`: what an agent with the full context sees of them).
   */
  choose(input: ChoiceInput): Chosen {
    const { from, ...rest } = input;
    const calls = new Set(from.map((s) => this.callOf.get(s.id)));
    const items = this.seen.filter((x) => calls.has(x.call)).map((x) => x.item);
    const value = computeChoice({ ...rest, value: '', from: [] }, items);
    if (value === undefined) throw new NoCandidate();
    return { value, spec: { ...rest, value, from: from.map((s) => s.id) } as ChoiceSpec };
  }

  call(
    app: string,
    api: string,
    args: Record<string, unknown> = {},
    reads?: Record<string, (string | number)[]>,
    choose?: Chosen[],
    decide?: DecideSpec,
  ): Step {
    // The agent reads an API's documentation before its first call (login needs none).
    if (app !== 'api_docs' && app !== 'supervisor' && api !== 'login') this.docs(app, api);
    const id = `s${this.steps.length + 1}`;
    const resolved = resolveTemplates(args, this.scope).value;
    const res = callApi(this.world, app, api, resolved);
    if (res.status !== 200) {
      throw new Error(`${app}.${api}(${JSON.stringify(resolved)}) -> ${JSON.stringify(res.body)}`);
    }
    this.steps.push({
      id,
      app,
      api,
      args,
      ...(reads ? { reads } : {}),
      ...(choose && choose.length > 0 ? { choose: choose.map((c) => c.spec) } : {}),
      ...(decide ? { decide } : {}),
    });
    this.scope.steps.set(id, { index: this.steps.length - 1, result: res.body });
    this.callOf.set(id, `${app}.${api}`);
    for (const item of itemsOfJson(res.body)) this.seen.push({ call: `${app}.${api}`, item });
    return new Step(id, res.body);
  }

  /**
   * Page through a list API until an item satisfies `found`, as an agent browsing a long list
   * does; returns the page that holds it and the item's index on that page.
   */
  browse(
    app: string,
    api: string,
    args: Record<string, unknown>,
    found: (item: Record<string, unknown>) => boolean,
    pageLimit = 20,
  ): { page: Step; index: number } {
    for (let page_index = 0; ; page_index++) {
      const page = this.call(app, api, { ...args, page_index, page_limit: pageLimit });
      const index = page.at<Record<string, unknown>[]>('.items').findIndex(found);
      if (index >= 0) return { page, index };
      if (!page.at<boolean>('.has_more')) throw new NoCandidate();
    }
  }

  /** The access token template for `app`, logging in (and fetching passwords) on first use. */
  token(app: string): string {
    const known = this.tokens.get(app);
    if (known) return known;
    this.passwords ??= this.call('supervisor', 'show_account_passwords');
    const login = this.call(app, 'login', {
      username: '{{supervisor.email}}',
      password: this.passwords.ref(`[account_name=${app}].password`),
    });
    const token = login.ref('.access_token');
    this.tokens.set(app, token);
    return token;
  }

  /** Look up an API's documentation (once per API). */
  docs(app: string, api: string): void {
    const key = `${app}.${api}`;
    if (this.documented.has(key)) return;
    this.documented.add(key);
    this.call('api_docs', 'show_api_doc', { app_name: app, api_name: api });
  }

  /** The task's answer; the call that hands it in is made by `handIn` after every part ran. */
  complete(
    answer: Answer | string | null = null,
    reads?: Record<string, (string | number)[]>,
    choose?: Chosen[],
  ): void {
    if (this.completion && this.completion.answer !== null && answer !== null) {
      throw new NoCandidate();
    }
    if (this.completion && answer === null) return;
    this.completion = { answer, ...(reads ? { reads } : {}), ...(choose ? { choose } : {}) };
  }

  /** Hands the task in with the answer a part gave (or none). */
  handIn(): void {
    const c = this.completion ?? { answer: null };
    this.call(
      'supervisor',
      'complete_task',
      { answer: c.answer, status: 'success' },
      c.reads,
      c.choose,
    );
  }

  /**
   * The task file body: the template's changes plus whatever else the reference changed
   * (found by diffing), checked with the real evaluator.
   */
  finish(spec: TaskSpec): Omit<TaskFile, 'id' | 'split' | 'difficulty'> {
    const core = (spec.changes ?? []).map((c) => ChangeSchema.parse(c));
    const changes: Change[] = [...core];
    for (const [table, diff] of diffTables(
      this.data,
      this.world.data,
      this.world.touchedTables(),
    )) {
      for (const kind of ['added', 'removed', 'updated'] as const) {
        const expected = core
          .filter((c) => c.table === table && changeKind(c).kind === kind)
          .reduce((s, c) => s + changeKind(c).count, 0);
        const actual = diff[kind].length;
        if (actual < expected)
          throw new Error(`${table}: expected ${expected} ${kind}, reference made ${actual}`);
        if (actual > expected)
          changes.push({ table, [kind]: actual - expected, where: {} } as Change);
      }
    }
    const evaluation = {
      status: 'success' as const,
      changes,
      ...(spec.answer !== undefined ? { answer: spec.answer } : {}),
    };
    const answer =
      spec.answer === undefined
        ? undefined
        : (resolveTemplates(spec.answer, this.scope).value as Answer);
    const result = evaluateState(
      {
        ...evaluation,
        answer,
        changes: changes.map((c) => ({
          ...c,
          where: resolveTemplates(c.where, this.scope).value as Change['where'],
        })),
      },
      this.data,
      this.world.data,
      this.world.completion,
    );
    if (!result.success) {
      throw new Error(
        `reference fails its own evaluation: ${JSON.stringify(result.details.filter((d) => !d.passed))}`,
      );
    }
    const s = this.world.supervisor;
    return {
      seed: this.seed,
      supervisor: `${s.first_name} ${s.last_name}`,
      instruction: spec.instruction,
      reference: this.steps,
      evaluation,
    };
  }
}
