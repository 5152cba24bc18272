import { mulberry32 } from '../../seeded-random.js';
import { ArgSchemas } from './apps/api-docs.js';
import { IdAllocator } from './ids.js';
import type { Profile, TableName, Tables } from './records.js';

/**
 * The fixed "now" of every world, so instructions such as "last month" and seeded timestamps
 * stay consistent forever (a world built today and one built next year are identical).
 */
export const WORLD_NOW = '2025-06-01T12:00:00Z';

export type Completion = { answer: string | null; status: 'success' | 'fail' };

/**
 * The mutable state of one episode: plain arrays of rows per table. Apps read and write
 * `data` directly; ids and timestamps for new rows come from here so that replaying the same
 * calls in a fresh world of the same seed gives the same rows.
 *
 * `initial` is never modified: a table is copied from it the first time an API touches the
 * table. A task touches a few of the 25 tables, so starting an episode and diffing its end
 * state cost a fraction of copying and comparing the whole world (ARCHITECTURE §7, speed).
 */
export class World {
  readonly ids: IdAllocator;
  readonly argSchemas: ArgSchemas;
  readonly data: Tables;
  /** Set by `supervisor.complete_task`; not a table, so finishing never counts as a change. */
  completion: Completion | null = null;
  private tick = 0;
  private readonly copies = new Map<TableName, unknown[]>();

  /**
   * @param shared what the worlds of one benchmark share: the ids of `initial`'s rows
   * (initialIds) and the api_docs argument schemas
   */
  constructor(
    readonly seed: number,
    readonly initial: Tables,
    shared: { ids?: ReadonlySet<number>; argSchemas?: ArgSchemas } = {},
  ) {
    const ids = shared.ids ?? initialIds(initial);
    this.argSchemas = shared.argSchemas ?? new ArgSchemas();
    // A separate stream from the seeder's, so ids of new rows do not depend on how much
    // random data the seeder drew.
    this.ids = new IdAllocator(mulberry32(seed ^ 0x5eed_1d5), ids);
    const copies = this.copies;
    const copyOf = (key: string | symbol): unknown[] | undefined => {
      if (typeof key !== 'string' || !Object.hasOwn(initial, key)) return undefined;
      const table = key as TableName;
      if (CATALOGUES.has(table)) return initial[table];
      let copy = copies.get(table);
      if (!copy) {
        copy = cloneRows(initial[table]);
        copies.set(table, copy);
      }
      return copy;
    };
    // The target is an empty object: `initial` is frozen, and a proxy of a frozen object must
    // return its values unchanged.
    this.data = new Proxy({} as Tables, {
      get: (_target, key) => copyOf(key),
      has: (_target, key) => typeof key === 'string' && Object.hasOwn(initial, key),
      ownKeys: () => Reflect.ownKeys(initial),
      getOwnPropertyDescriptor: (_target, key) => {
        const value = copyOf(key);
        return value && { value, writable: true, enumerable: true, configurable: true };
      },
      set: () => {
        throw new Error('apptown tables are changed row by row, never replaced');
      },
    });
  }

  /**
   * Tables an API has read or written, catalogues aside: the only ones that can differ from
   * `initial`.
   */
  touchedTables(): TableName[] {
    return [...this.copies.keys()];
  }

  get supervisor(): Profile {
    const profile = this.data['supervisor.profile'][0];
    if (!profile) throw new Error('world has no supervisor profile');
    return profile;
  }

  /** A timestamp one minute after the previous one, starting at WORLD_NOW. */
  now(): string {
    this.tick += 1;
    return isoSeconds(Date.parse(WORLD_NOW) + this.tick * 60_000);
  }

  insert<T extends TableName>(table: T, row: Omit<Tables[T][number], 'id'>): Tables[T][number] {
    const full = { id: this.ids.next(), ...row } as Tables[T][number];
    (this.data[table] as Tables[T][number][]).push(full);
    return full;
  }

  remove<T extends TableName>(table: T, id: number): void {
    const rows = this.data[table] as { id: number }[];
    const index = rows.findIndex((r) => r.id === id);
    if (index >= 0) rows.splice(index, 1);
  }
}

/**
 * Tables no API writes (the music and shop catalogues): a world reads them from its frozen
 * `initial` rows instead of copying them, so an API that wrote one would fail loudly. They are
 * the largest tables most tasks read, and copying them took a third of what an episode
 * allocated; at 64 rollouts in flight those copies drove most full garbage collections
 * (issue #16, bench:throughput).
 */
export const CATALOGUES: ReadonlySet<TableName> = new Set<TableName>([
  'music.songs',
  'music.albums',
  'music.artists',
  'shop.products',
]);

/** ISO 8601 without milliseconds, as most real APIs print timestamps. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The ids of a world's initial rows (kept with the pristine tables by WorldCache). */
export function initialIds(data: Tables): ReadonlySet<number> {
  const ids = new Set<number>();
  for (const rows of Object.values(data) as { id: number }[][]) {
    for (const row of rows) ids.add(row.id);
  }
  return ids;
}

/**
 * A deep copy of a table's rows. Seeded rows are plain JSON data (objects, arrays, strings,
 * numbers, booleans, null), and copying them by hand is about six times faster than
 * structuredClone: every episode copies the tables it touches (issue #16, bench:throughput).
 */
function cloneRows(rows: readonly unknown[]): unknown[] {
  return rows.map(clonePlain);
}

function clonePlain(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(clonePlain);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    out[key] = clonePlain((value as Record<string, unknown>)[key]);
  return out;
}
