import { z } from 'zod';
import type { TableName, Tables } from './records.js';
import type { World } from './world.js';

/**
 * The app-definition mechanism: an API is a name, a description, a zod argument schema, a
 * handler and whether it needs an access token. Handlers fail like a real service by
 * throwing ApiError with an HTTP status; the dispatcher turns that into an observation.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 422,
    message: string,
  ) {
    super(message);
  }
}

export type ApiContext = { world: World; app: string };

/** A response shape for api_docs: type names in place of values, e.g. `{id: 'integer'}`. */
export type Shape = unknown;
/** Static shape, or one computed from the world (a sample row of a table). */
export type ReturnsSpec = Shape | ((world: World) => Shape);

export type Api = {
  name: string;
  description: string;
  auth: boolean;
  /** The full argument schema, `access_token` included when `auth`. */
  args: z.ZodObject;
  returns: ReturnsSpec;
  /** `args` has already been validated against `args`. */
  run(ctx: ApiContext, args: Record<string, unknown>): unknown;
};

export type App = { name: string; description: string; apis: Api[] };

const ACCESS_TOKEN = z
  .string()
  .describe('Access token from this app\'s "login" API (required for every API except login).');

export function defineApi<S extends z.ZodRawShape>(def: {
  name: string;
  description: string;
  /** @default true */
  auth?: boolean;
  args: S;
  returns: ReturnsSpec;
  handler: (ctx: ApiContext, args: z.infer<z.ZodObject<S>>) => unknown;
}): Api {
  const auth = def.auth ?? true;
  const schema = z.strictObject(auth ? { access_token: ACCESS_TOKEN, ...def.args } : def.args);
  return {
    name: def.name,
    description: def.description,
    auth,
    args: schema,
    returns: def.returns,
    // The dispatcher validated `args` with `schema`, which is a superset of `def.args`.
    run: (ctx, args) => def.handler(ctx, args as z.infer<z.ZodObject<S>>),
  };
}

export const pageArgs = {
  page_index: z.number().int().min(0).default(0).describe('0-based index of the page to return.'),
  page_limit: z
    .number()
    .int()
    .min(1)
    .max(20)
    .default(5)
    .describe('Number of items per page (at most 20).'),
};

export type Page<T> = {
  page_index: number;
  page_limit: number;
  total_items: number;
  total_pages: number;
  has_more: boolean;
  items: T[];
};

/** One page of `items`; `view` turns each item of the page into what the list shows of it. */
export function paginate<T, V = T>(
  items: T[],
  args: { page_index: number; page_limit: number },
  view?: (item: T) => V,
): Page<V> {
  const start = args.page_index * args.page_limit;
  const page = items.slice(start, start + args.page_limit);
  return {
    page_index: args.page_index,
    page_limit: args.page_limit,
    total_items: items.length,
    total_pages: Math.ceil(items.length / args.page_limit),
    has_more: start + args.page_limit < items.length,
    items: view ? page.map(view) : (page as unknown as V[]),
  };
}

export function findOr404<T extends { id: number }>(rows: T[], id: number, what: string): T {
  const row = rows.find((r) => r.id === id);
  if (!row) throw new ApiError(404, `${what} with id ${id} not found`);
  return row;
}

export function money(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Case-insensitive substring match over several fields, for the `query` argument of searches. */
export function matches(query: string | undefined, ...fields: (string | undefined)[]): boolean {
  if (!query) return true;
  const q = query.toLowerCase();
  return fields.some((f) => f !== undefined && f.toLowerCase().includes(q));
}

export const sortArg = (fields: readonly [string, ...string[]]) =>
  z
    .enum(fields.flatMap((f) => [f, `-${f}`]) as [string, ...string[]])
    .optional()
    .describe('Field to sort by; prefix with "-" for descending order.');

/** Sort by a field spec like `-amount`; leaves the order unchanged without one. */
export function sortBy<T>(items: T[], spec: string | undefined, get = defaultGet<T>): T[] {
  if (!spec) return items;
  const desc = spec.startsWith('-');
  const field = desc ? spec.slice(1) : spec;
  return [...items].sort((a, b) => {
    const x = get(a, field);
    const y = get(b, field);
    const c =
      typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return desc ? -c : c;
  });
}

function defaultGet<T>(item: T, field: string): unknown {
  return (item as Record<string, unknown>)[field];
}

/** Replace values by their type names, for the response shapes api_docs shows. */
export function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length > 0 ? [shapeOf(value[0])] : ['unknown'];
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  }
  return typeof value;
}

/** The shape of one row of `table` passed through `view`, from the world api_docs runs in. */
export function rowShape<T extends TableName>(
  table: T,
  view: (row: Tables[T][number], world: World) => unknown = (r) => r,
): (world: World) => Shape {
  return (world) => {
    const row = world.data[table][0];
    return row === undefined ? 'object' : shapeOf(view(row, world));
  };
}

/** The shape of a page of rows of `table` passed through `view`. */
export function pageShape<T extends TableName>(
  table: T,
  view?: (row: Tables[T][number], world: World) => unknown,
): (world: World) => Shape {
  const item = rowShape(table, view);
  return (world) => ({
    page_index: 'integer',
    page_limit: 'integer',
    total_items: 'integer',
    total_pages: 'integer',
    has_more: 'boolean',
    items: [item(world)],
  });
}

export const MESSAGE_SHAPE = { message: 'string' };

/** What a show-one-record or delete-one-record API is told: its name, table and id argument. */
type RowApiDef<T extends TableName> = {
  name: string;
  description: string;
  table: T;
  /** The one argument, the id (`{ note_id: NOTE_ID }`). */
  id: Record<string, z.ZodNumber>;
  /** The record's name in the 404 when no row has that id (`Note`). */
  what: string;
};

/** An API on one row of `def.table` named by its id: a 404 when there is none, else `answer`. */
function rowByIdApi<T extends TableName>(
  def: RowApiDef<T>,
  returns: ReturnsSpec,
  answer: (row: Tables[T][number], world: World) => unknown,
): Api {
  const [idArg] = Object.keys(def.id);
  return defineApi({
    name: def.name,
    description: def.description,
    args: def.id,
    returns,
    handler: ({ world }, a) =>
      answer(
        findOr404<Tables[T][number]>(world.data[def.table], a[idArg!] as number, def.what),
        world,
      ),
  });
}

/**
 * The API that shows one row of `table` by its id (`show_note`, `show_order`, …): every app's
 * show-one-record API is this shape.
 */
export function showRowApi<T extends TableName>(def: RowApiDef<T>): Api {
  return rowByIdApi(def, rowShape(def.table), (row) => row);
}

/**
 * The API that deletes one row of `table` by its id (`delete_note`, `delete_contact`, …): the row
 * removed and `deleted`'s message about it. Deletes that take other rows with them (a mail
 * thread's messages) are written out in full.
 */
export function deleteRowApi<T extends TableName>(
  def: RowApiDef<T> & { deleted: (row: Tables[T][number]) => string },
): Api {
  return rowByIdApi(def, MESSAGE_SHAPE, (row, world) => {
    world.remove(def.table, row.id);
    return { message: def.deleted(row) };
  });
}

/**
 * What a search-or-list API of one table is told: its filters (in the order its docs list them,
 * before `sort_by` and the page arguments), the fields it sorts by, and the short record a page
 * shows of a row.
 */
type SearchApiDef<T extends TableName, S extends z.ZodRawShape> = {
  name: string;
  description: string;
  /** @default true */
  auth?: boolean;
  table: T;
  filters: S;
  /** The fields a `sort_by` argument offers; none: the list has no `sort_by`. */
  sortFields?: readonly [string, ...string[]];
  /** The order without a `sort_by` (`-updated_at`); none: the table's own order. */
  defaultSort?: string;
  /** Which rows one call's filters keep, built once per call; none: every row. */
  where?: (args: z.infer<z.ZodObject<S>>, world: World) => (row: Tables[T][number]) => boolean;
  /** What a page shows of a row (a short record, brief.ts); none: the whole row. */
  view?: (row: Tables[T][number], world: World) => unknown;
};

type Listing = { sort_by?: string; page_index: number; page_limit: number };

/**
 * The API that filters the rows of `table`, sorts them and returns one page of them
 * (`search_songs`, `show_notes`, `show_orders`, …): every app's list of one table is this shape.
 */
export function searchApi<T extends TableName, S extends z.ZodRawShape>(
  def: SearchApiDef<T, S>,
): Api {
  const sort = def.sortFields === undefined ? {} : { sort_by: sortArg(def.sortFields) };
  return defineApi({
    name: def.name,
    description: def.description,
    ...(def.auth === undefined ? {} : { auth: def.auth }),
    args: { ...def.filters, ...sort, ...pageArgs },
    returns: pageShape(def.table, def.view),
    handler: ({ world }, parsed) => {
      // zod cannot infer a generic schema's output: `parsed` is the filters, `sort_by` and page.
      const a = parsed as z.infer<z.ZodObject<S>> & Listing;
      const all = world.data[def.table] as Tables[T][number][];
      const rows = def.where === undefined ? all : all.filter(def.where(a, world));
      const { view } = def;
      const shown = view && ((row: Tables[T][number]) => view(row, world));
      return paginate(sortBy(rows, a.sort_by ?? def.defaultSort), a, shown);
    },
  });
}
