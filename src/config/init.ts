import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';

// Shipped next to the sources; from src/config and dist/config alike this is ../../src/config.
const TEMPLATE = fileURLToPath(
  new URL('../../src/config/acon.config.template.yaml', import.meta.url),
);

export function configTemplate(): string {
  return readFileSync(TEMPLATE, 'utf8');
}

/** Writes a commented acon.config.yaml; refuses to overwrite one unless `force`. */
export function writeConfigTemplate(file: string, force = false): void {
  if (existsSync(file) && !force) {
    throw new UsageError(`${file} already exists; pass --force to overwrite it`);
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, configTemplate());
}
