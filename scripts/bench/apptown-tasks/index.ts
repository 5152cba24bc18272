import type { WorldCache } from '../../../src/bench/apptown/worlds.js';
import { aggregateTemplates } from './aggregate.js';
import { TaskBuilder } from './builder.js';
import { crossTemplates } from './cross.js';
import { mailTemplates } from './mail.js';
import { musicTemplates } from './music.js';
import { notesFilesTemplates } from './notes-files.js';
import { NoCandidate, Picker } from './picker.js';
import { shopPhoneTemplates } from './shop-phone.js';
import type { Template } from './template.js';
import { walletTemplates } from './wallet.js';

export const TEMPLATES: Template[] = [
  ...walletTemplates,
  ...musicTemplates,
  ...mailTemplates,
  ...notesFilesTemplates,
  ...shopPhoneTemplates,
  ...crossTemplates,
  ...aggregateTemplates,
];

/**
 * The templates only the test split uses (issue 22), so held-out numbers measure new templates of
 * the kinds train saw, never the templates themselves. About a third of each app's ordinary
 * templates are held out, and of those that compute a value from data (a declared `choose`: a
 * paged aggregate or a compare-and-choose) a share of both the ones that answer a question and the
 * ones that act on the record they chose (a task has one question at most, so a split needs both).
 * The rest stay in train and dev, so what the utility and compression phases learn there (keep
 * the compared fields, keep the pages) is what test needs.
 */
export const HELD_OUT = new Set([
  // ordinary
  'wallet-balance',
  'wallet-request-money',
  'shop-return-item',
  'shop-spent-in-month',
  'music-queue-playlist',
  'music-library-artist-count',
  'phone-contact-city',
  'files-clean-desktop',
  'mail-attachment-name',
  'mail-update-phone-number',
  'notes-count-tag',
  // computing a value from data: answering with it
  'files-folder-total-size',
  'music-library-longest-song',
  'shop-delivered-orders-total',
  'phone-count-relationship',
  // computing a value from data: acting on the record it names
  'shop-cheapest-in-category-to-cart',
  'files-delete-largest-download',
  'phone-text-newest-contact',
]);

/** The world seeds of a task set (`--seed`; 0: the shipped set); a task's parts share one world. */
export function worldSeeds(setSeed: number): number[] {
  return Array.from({ length: 48 }, (_, i) => 1103 + i * 1117 + setSeed * 7919);
}

/**
 * Template `t` alone on world `seed`, handed in; null when that world has no candidate for it
 * (NoCandidate). Any other error is the template's own and is thrown.
 */
export function buildAlone(t: Template, seed: number, worlds?: WorldCache): TaskBuilder | null {
  const b = new TaskBuilder(seed, worlds);
  try {
    t.build(b, new Picker(seed));
    b.handIn();
  } catch (err) {
    if (err instanceof NoCandidate) return null;
    throw err;
  }
  return b;
}
