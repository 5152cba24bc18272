import type { Faker } from '@faker-js/faker';
import { englishFaker } from '../../english-faker.js';
import { IdAllocator } from '../ids.js';
import type { PersonRef, UserRef } from '../records.js';
import { WORLD_NOW, isoSeconds } from '../world.js';

/** Someone who lives in the world; person 0 is the supervisor the agent works for. */
export type Person = {
  first_name: string;
  last_name: string;
  name: string;
  email: string;
  phone_number: string;
  birthday: string;
  street_address: string;
  city: string;
  state: string;
  zip_code: string;
};

export type SeedContext = {
  f: Faker;
  ids: IdAllocator;
  people: Person[];
  supervisor: Person;
};

/** How many people the world has; apps draw friends, contacts and correspondents from them. */
export const POPULATION = 60;

const DAY_MS = 86_400_000;
const NOW_MS = Date.parse(WORLD_NOW);

export function createSeedContext(seed: number): SeedContext {
  const f = englishFaker(seed);
  f.setDefaultRefDate(WORLD_NOW);
  const ids = new IdAllocator(() => f.number.float({ min: 0, max: 1, fractionDigits: 8 }));
  const people = makePeople(f);
  return { f, ids, people, supervisor: people[0] as Person };
}

function makePeople(f: Faker): Person[] {
  const emails = new Set<string>();
  const phones = new Set<string>();
  const people: Person[] = [];
  while (people.length < POPULATION) {
    const first = f.person.firstName();
    const last = f.person.lastName();
    const name = `${first} ${last}`;
    if (people.some((p) => p.name === name)) continue;
    const email = `${slug(first)}.${slug(last)}@${f.helpers.arrayElement(MAIL_DOMAINS)}`;
    const phone = f.phone.number({ style: 'national' });
    if (emails.has(email) || phones.has(phone)) continue;
    emails.add(email);
    phones.add(phone);
    people.push({
      first_name: first,
      last_name: last,
      name,
      email,
      phone_number: phone,
      birthday: f.date.birthdate({ min: 19, max: 75, mode: 'age' }).toISOString().slice(0, 10),
      street_address: f.location.streetAddress(),
      city: f.location.city(),
      state: f.location.state({ abbreviated: true }),
      zip_code: f.location.zipCode('#####'),
    });
  }
  return people;
}

const MAIL_DOMAINS = [
  'gmail.com',
  'outlook.com',
  'yahoo.com',
  'proton.me',
  'icloud.com',
  'fastmail.com',
];

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A timestamp between `maxDays` and `minDays` days before WORLD_NOW. */
export function daysAgo(ctx: SeedContext, maxDays: number, minDays = 0): string {
  const t = ctx.f.number.int({ min: NOW_MS - maxDays * DAY_MS, max: NOW_MS - minDays * DAY_MS });
  return isoSeconds(t);
}

export function personRef(p: Person): PersonRef {
  return { name: p.name, email: p.email };
}

export function userRef(p: { id: number; name: string; email: string }): UserRef {
  return { id: p.id, name: p.name, email: p.email };
}

/** `n` distinct people, never the supervisor. */
export function othersSample(ctx: SeedContext, n: number): Person[] {
  return ctx.f.helpers.arrayElements(ctx.people.slice(1), n);
}

export function byTime<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => key(a).localeCompare(key(b));
}

export function cents(ctx: SeedContext, min: number, max: number): number {
  return ctx.f.number.float({ min, max, fractionDigits: 2 });
}
