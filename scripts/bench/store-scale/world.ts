/**
 * The synthetic AppWorld-like world of the store-scale benchmark: tool definitions, the agent's
 * tool calls and the JSON observations they return (paginated lists of songs, payments, emails,
 * contacts, notes and products, a few hundred to a few thousand characters each).
 *
 * Fake values come from pools drawn once with a seeded @faker-js/faker; each text is then put
 * together with a seeded PRNG, which is fast enough for 300,000 observations.
 */
import { en, Faker } from '@faker-js/faker';
import type { AssistantMessage, ToolDef } from '../../../src/llm/types.js';
import { seededRandom, type Random } from '../../../src/seeded-random.js';

type Pools = {
  first: string[];
  last: string[];
  songs: string[];
  genres: string[];
  sentences: string[];
  paragraphs: string[];
  products: string[];
  companies: string[];
  words: string[];
  addresses: string[];
};

function drawPools(seed: number): Pools {
  const f = new Faker({ locale: [en] });
  f.seed(seed);
  const many = <T>(n: number, make: () => T) => Array.from({ length: n }, make);
  return {
    first: many(400, () => f.person.firstName()),
    last: many(400, () => f.person.lastName()),
    songs: many(600, () => f.music.songName()),
    genres: many(40, () => f.music.genre()),
    sentences: many(1500, () => f.lorem.sentence({ min: 6, max: 16 })),
    paragraphs: many(300, () => f.lorem.paragraph({ min: 2, max: 5 })),
    products: many(400, () => f.commerce.productName()),
    companies: many(200, () => f.company.name()),
    words: many(600, () => f.word.noun()),
    addresses: many(300, () => f.location.streetAddress()),
  };
}

const APPS = ['spotify', 'venmo', 'gmail', 'phone', 'simple_note', 'amazon'] as const;
type App = (typeof APPS)[number];

const LIST_API: Record<App, string> = {
  spotify: 'show_song_library',
  venmo: 'show_transactions',
  gmail: 'show_inbox_threads',
  phone: 'search_contacts',
  simple_note: 'search_notes',
  amazon: 'search_products',
};

/** The tool definitions every agent prompt carries (one blob, shared by every call). */
export function toolDefs(): ToolDef[] {
  const param = (description: string, type = 'string') => ({ type, description });
  const tool = (name: string, description: string, props: Record<string, unknown>): ToolDef => ({
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties: props, required: Object.keys(props) },
    },
  });
  return [
    tool('show_api_descriptions', 'List the APIs of an app with one line each.', {
      app_name: param('app name, e.g. spotify'),
    }),
    tool('login', 'Log in to an app; returns an access token for its other APIs.', {
      app_name: param('app name'),
      username: param('the account email'),
      password: param('the password from the supervisor app'),
    }),
    ...APPS.map((app) =>
      tool(`${app}__${LIST_API[app]}`, `Paginated ${app} records of the user, 20 a page.`, {
        access_token: param('token from login'),
        page_index: param('0-based page', 'integer'),
        query: param('optional filter text'),
      }),
    ),
    tool('complete_task', 'Finish the task, with the answer when the task asks a question.', {
      answer: param('the answer, or empty'),
    }),
  ];
}

/** One agent turn's action and the world's answer (text of the tool message). */
export type Exchange = { assistant: AssistantMessage; observation: string };

export class SyntheticWorld {
  private readonly pools: Pools;
  /** API descriptions per app: identical in every rollout, as AppWorld's are. */
  private readonly docs = new Map<App, string>();
  private nextId = 1;

  constructor(seed: number) {
    this.pools = drawPools(seed);
    for (const app of APPS) this.docs.set(app, this.apiDocs(app, seededRandom(seed, 'docs', app)));
  }

  /** The opening exchanges every task starts with, then list pages until `done`. */
  exchange(random: Random, step: number, steps: number, app: App): Exchange {
    const callId = `call_${(this.nextId++).toString(36)}`;
    const p = this.pools;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const say = `${pick(p.sentences)} ${step > 2 ? pick(p.sentences) : ''}`.trim();
    const call = (name: string, args: Record<string, unknown>): AssistantMessage => ({
      role: 'assistant',
      content: say,
      tool_calls: [
        { id: callId, type: 'function', function: { name, arguments: JSON.stringify(args) } },
      ],
    });
    if (step === steps - 1) {
      return {
        assistant: call('complete_task', { answer: String(Math.floor(random() * 500)) }),
        observation: JSON.stringify({ success: true, message: 'Task marked as complete.' }),
      };
    }
    if (step === 0) {
      return {
        assistant: call('show_api_descriptions', { app_name: app }),
        observation: this.docs.get(app)!,
      };
    }
    if (step === 1) {
      const email = `${pick(p.first).toLowerCase()}.${pick(p.last).toLowerCase()}@example.com`;
      return {
        assistant: call('login', { app_name: app, username: email, password: token(random, 12) }),
        observation: JSON.stringify(
          { access_token: token(random, 48), token_type: 'Bearer', expires_in: 3600 },
          null,
          1,
        ),
      };
    }
    const page = step - 2;
    const items = 1 + Math.floor(random() ** 2.2 * 15);
    const records = Array.from({ length: items }, () => this.record(app, random));
    return {
      assistant: call(`${app}__${LIST_API[app]}`, {
        access_token: token(random, 8),
        page_index: page,
        query: random() < 0.3 ? pick(p.words) : '',
      }),
      observation: JSON.stringify(
        { page_index: page, page_limit: 20, total: items + 20 * page, items: records },
        null,
        1,
      ),
    };
  }

  /** The app a task uses. */
  appOf(random: Random): App {
    return APPS[Math.floor(random() * APPS.length)]!;
  }

  /** A task instruction, AppWorld style. */
  instruction(random: Random, app: App): string {
    const p = this.pools;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    return `My name is ${pick(p.first)} ${pick(p.last)}. Using ${app}, ${pick(p.sentences).toLowerCase()} Then tell me how many of them match "${pick(p.words)}".`;
  }

  private record(app: App, random: Random): Record<string, unknown> {
    const p = this.pools;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const id = () => Math.floor(random() * 1_000_000);
    const when = () =>
      new Date(Date.UTC(2023, 0, 1) + Math.floor(random() * 7e10)).toISOString().slice(0, 19);
    const person = () => {
      const first = pick(p.first);
      const last = pick(p.last);
      return {
        id: id(),
        name: `${first} ${last}`,
        email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
      };
    };
    switch (app) {
      case 'spotify':
        return {
          song_id: id(),
          title: pick(p.songs),
          album_title: pick(p.songs),
          artists: [{ id: id(), name: `${pick(p.first)} ${pick(p.last)}` }],
          genre: pick(p.genres),
          duration: 90 + Math.floor(random() * 300),
          release_date: when(),
          play_count: Math.floor(random() * 1e6),
          like_count: Math.floor(random() * 1e4),
        };
      case 'venmo':
        return {
          transaction_id: id(),
          amount: Math.round(random() * 50000) / 100,
          description: pick(p.sentences),
          created_at: when(),
          sender: person(),
          receiver: person(),
          private: random() < 0.2,
          like_count: Math.floor(random() * 20),
          comment_count: Math.floor(random() * 5),
        };
      case 'gmail':
        return {
          email_thread_id: id(),
          subject: pick(p.sentences),
          sender: person(),
          recipients: [person()],
          last_message_at: when(),
          snippet: pick(p.paragraphs).slice(0, 160),
          labels: [pick(p.words), pick(p.words)],
          unread: random() < 0.4,
        };
      case 'phone':
        return {
          contact_id: id(),
          first_name: pick(p.first),
          last_name: pick(p.last),
          email: person().email,
          phone_number: `+1${Math.floor(2e9 + random() * 7e9)}`,
          relationships: [pick(['friend', 'coworker', 'sibling', 'parent', 'roommate'])],
          birthday: when().slice(0, 10),
          address: pick(p.addresses),
        };
      case 'simple_note':
        return {
          note_id: id(),
          title: pick(p.sentences),
          content: pick(p.paragraphs),
          tags: [pick(p.words)],
          created_at: when(),
          updated_at: when(),
          pinned: random() < 0.1,
        };
      case 'amazon':
        return {
          product_id: id(),
          name: pick(p.products),
          price: Math.round(random() * 30000) / 100,
          rating: Math.round(random() * 50) / 10,
          num_reviews: Math.floor(random() * 5000),
          seller: pick(p.companies),
          description: pick(p.sentences),
          stock: Math.floor(random() * 100),
        };
    }
  }

  private apiDocs(app: App, random: Random): string {
    const p = this.pools;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const apis = Array.from({ length: 24 }, (_, i) => ({
      name: `${pick(['show', 'create', 'update', 'delete', 'search'])}_${pick(p.words)}_${i}`,
      description: pick(p.sentences),
    }));
    return JSON.stringify(apis, null, 1);
  }
}

function token(random: Random, n: number): string {
  const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < n; i++) s += abc[Math.floor(random() * abc.length)];
  return s;
}
