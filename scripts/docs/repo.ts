import { resolve } from 'node:path';

/** The repository's root, for the docs scripts and their test. */
export const REPO = resolve(import.meta.dirname, '../..');
