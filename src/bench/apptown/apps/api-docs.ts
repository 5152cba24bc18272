import { z } from 'zod';
import { ApiError, defineApi, type Api, type App } from '../api.js';
import type { World } from '../world.js';
import type { ArgSchemas } from '../arg-schemas.js';
import { type JsonSchema } from '../arg-schemas.js';

/** zod's safe-integer bounds say nothing to a reader; only real limits are shown. */
const MEANINGFUL_BOUND = 1e12;

function typeName(s: JsonSchema): string {
  if (s.anyOf) return s.anyOf.map(typeName).join(' | ');
  if (s.type === 'array') return `list[${s.items ? typeName(s.items) : 'any'}]`;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  return s.type ?? 'any';
}

/** One row per parameter, the way API references print them. */
export function describeParameters(api: Api, schemas: ArgSchemas) {
  const schema = schemas.of(api.args);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const constraints: string[] = [];
    if (p.enum) constraints.push(`one of: ${p.enum.join(', ')}`);
    if (p.minimum !== undefined && Math.abs(p.minimum) < MEANINGFUL_BOUND)
      constraints.push(`>= ${p.minimum}`);
    if (p.maximum !== undefined && Math.abs(p.maximum) < MEANINGFUL_BOUND)
      constraints.push(`<= ${p.maximum}`);
    if (p.minLength) constraints.push(`length >= ${p.minLength}`);
    if (p.minItems) constraints.push(`at least ${p.minItems} item(s)`);
    return {
      name,
      type: typeName(p),
      required: (schema.required ?? []).includes(name) && p.default === undefined,
      description: p.description ?? '',
      default: p.default ?? null,
      constraints,
    };
  });
}

function findApp(apps: App[], name: string): App {
  const app = apps.find((a) => a.name === name);
  if (!app) {
    throw new ApiError(404, `No app named '${name}'. Apps: ${apps.map((a) => a.name).join(', ')}.`);
  }
  return app;
}

function resolveShape(returns: Api['returns'], world: World): unknown {
  return typeof returns === 'function' ? (returns as (w: World) => unknown)(world) : returns;
}

/** Discovery: the agent learns the other apps' APIs from here (ARCHITECTURE §5). */
export function apiDocsApp(getApps: () => App[]): App {
  return {
    name: 'api_docs',
    description:
      'Documentation of every app and API: what exists, the parameters, the response shapes. No login needed.',
    apis: [
      defineApi({
        name: 'show_app_descriptions',
        description: 'List every app with a one-line description.',
        auth: false,
        args: {},
        returns: [{ name: 'string', description: 'string' }],
        handler: () => getApps().map((a) => ({ name: a.name, description: a.description })),
      }),
      defineApi({
        name: 'show_api_descriptions',
        description: "List an app's APIs with a one-line description each.",
        auth: false,
        args: { app_name: z.string().describe('Name of the app, e.g. "wallet".') },
        returns: [{ name: 'string', description: 'string', requires_login: 'boolean' }],
        handler: (_ctx, a) =>
          findApp(getApps(), a.app_name).apis.map((x) => ({
            name: x.name,
            description: x.description,
            requires_login: x.auth,
          })),
      }),
      defineApi({
        name: 'show_api_doc',
        description:
          "Show one API's full documentation: parameters with types, defaults and constraints, and the response shapes.",
        auth: false,
        args: {
          app_name: z.string().describe('Name of the app.'),
          api_name: z.string().describe('Name of the API.'),
        },
        returns: {
          app_name: 'string',
          api_name: 'string',
          description: 'string',
          requires_login: 'boolean',
          parameters: [
            {
              name: 'string',
              type: 'string',
              required: 'boolean',
              description: 'string',
              default: 'any',
              constraints: ['string'],
            },
          ],
          response_schemas: { success: 'object', failure: { status: 'integer', error: 'string' } },
        },
        handler: ({ world }, a) => {
          const app = findApp(getApps(), a.app_name);
          const api = app.apis.find((x) => x.name === a.api_name);
          if (!api) {
            throw new ApiError(
              404,
              `No API '${a.api_name}' in app '${app.name}'. See api_docs.show_api_descriptions.`,
            );
          }
          return {
            app_name: app.name,
            api_name: api.name,
            description: api.description,
            requires_login: api.auth,
            parameters: describeParameters(api, world.argSchemas),
            response_schemas: {
              success: resolveShape(api.returns, world),
              failure: { status: 'integer', error: 'string' },
            },
          };
        },
      }),
    ],
  };
}
