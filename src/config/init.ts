import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../errors.js';

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
    throw new InvalidInputError(`${file} already exists; pass \`force\` to overwrite it`, {
      what: 'config file',
      value: file,
      options: ['force'],
    });
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, configTemplate());
}
