import { z } from 'zod';

/** What api_docs reads of an argument schema's JSON Schema. */
export type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

/**
 * JSON schemas of argument schemas, once each: they never change, and converting one costs more
 * than a whole API call (every task's reference replay reads several API docs). The worlds of
 * one benchmark share one (src/bench/apptown/worlds.ts).
 */
export class ArgSchemas {
  private readonly schemas = new WeakMap<z.ZodObject, JsonSchema>();

  of(args: z.ZodObject): JsonSchema {
    let schema = this.schemas.get(args);
    if (!schema) {
      schema = z.toJSONSchema(args, { io: 'input' }) as JsonSchema;
      this.schemas.set(args, schema);
    }
    return schema;
  }
}
