import { englishFaker } from '../english-faker.js';
import { seededRandom, type Random } from '../../seeded-random.js';

/**
 * The generated encyclopedia of `--bench qa` (ARCHITECTURE §5, issue 14): a fictional world of
 * people, places, organisations, works and events with dates, numbers and cross-references, so
 * that questions need two or three look-ups ("the founder of the company that published X").
 * Nothing in it is third-party text. Generation is a pure function of the seed and takes well
 * under a second, so nothing is cached on disk; one corpus per seed is kept in memory.
 */

export const ENTITY_KINDS = ['person', 'place', 'organisation', 'work', 'event'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export type Entity = {
  /** `person-0042`: the article id the agent passes to `open`. */
  id: string;
  kind: EntityKind;
  title: string;
  /** Scalar facts of the infobox, in display order. */
  facts: Record<string, string | number>;
  /** Cross-references: infobox field → linked article id (the field shows the linked title). */
  links: Record<string, string>;
};

export type Corpus = {
  seed: number;
  entities: Entity[];
  byId: Map<string, Entity>;
};

/** How many articles of each kind (≥ 2,000 in all, issue 14). */
export const KIND_COUNTS: Record<EntityKind, number> = {
  person: 720,
  place: 420,
  organisation: 400,
  work: 360,
  event: 200,
};

/** The seed of the shipped corpus; tasks/qa/*.yaml name it. */
export const DEFAULT_CORPUS_SEED = 2026;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const COUNTRIES = [
  'Velmora',
  'Ostrany',
  'Kaldoria',
  'Serevan',
  'Tirelle',
  'Drovnia',
  'Almeric',
  'Quessany',
  'Borvath',
  'Lunestria',
  'Estavel',
  'Marrowind',
];

const OCCUPATIONS = [
  'cartographer',
  'composer',
  'engineer',
  'novelist',
  'physician',
  'architect',
  'botanist',
  'film director',
  'astronomer',
  'painter',
  'economist',
  'shipbuilder',
  'playwright',
  'chemist',
  'photographer',
  'jurist',
];

/** Industry → how organisations of it are named. */
const INDUSTRIES: [string, string[]][] = [
  ['publishing', ['Press', 'Publishing House', 'Books', 'Editions']],
  ['optics', ['Instruments', 'Optical Works', 'Lens Company']],
  ['shipping', ['Shipping Line', 'Maritime Company', 'Freight']],
  ['film', ['Pictures', 'Film Studio', 'Cinematograph Company']],
  ['music', ['Records', 'Phonograph Company', 'Music Hall Trust']],
  ['textiles', ['Mills', 'Weaving Company', 'Looms']],
  ['railways', ['Railway Company', 'Rail Works', 'Locomotive Works']],
  ['research', ['Institute', 'Laboratories', 'Observatory Trust']],
  ['banking', ['Savings Bank', 'Mercantile Bank', 'Trust Company']],
  ['chemicals', ['Chemical Works', 'Dye Company', 'Pharmacal Company']],
];

const WORK_TYPES: [string, string][] = [
  ['novel', 'pages'],
  ['film', 'minutes'],
  ['album', 'minutes'],
  ['opera', 'minutes'],
  ['atlas', 'pages'],
  ['play', 'pages'],
  ['symphony', 'minutes'],
  ['treatise', 'pages'],
];

const EVENT_TYPES = [
  'Festival',
  'Congress',
  'Exhibition',
  'Regatta',
  'Accord',
  'Expedition',
  'Fair',
  'Symposium',
];

/** Place names are composed (faker's city names include real cities). */
const PLACE_PREFIXES = [
  'North',
  'East',
  'West',
  'South',
  'New',
  'Lake',
  'Port',
  'Fort',
  'Upper',
  'Lower',
];
const PLACE_SUFFIXES = [
  'ville',
  'berg',
  'burgh',
  'mouth',
  'haven',
  'stad',
  'ford',
  'field',
  'wick',
  'port',
  'moor',
  'chester',
];

const pad = (n: number) => String(n).padStart(4, '0');
const int = (r: Random, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function formatDate(year: number, month: number, day: number): string {
  return `${day} ${MONTHS[month]} ${year}`;
}

/** The year of a date written by `formatDate`. */
export function yearOf(date: string): number {
  return Number(/(\d{3,4})$/.exec(date)?.[1] ?? NaN);
}

function randomDate(r: Random, year: number): string {
  return formatDate(year, int(r, 0, 11), int(r, 1, 28));
}

/** Generates the corpus of a seed (a benchmark's source keeps the ones it uses). */
export function generateCorpus(seed: number = DEFAULT_CORPUS_SEED): Corpus {
  const f = englishFaker(seed);
  const r = seededRandom('qa-corpus', seed);
  const titles = new Set<string>();
  const unique = (make: () => string): string => {
    for (let i = 0; i < 50; i++) {
      const t = make();
      if (!titles.has(t)) {
        titles.add(t);
        return t;
      }
    }
    throw new Error(`qa corpus: could not draw a unique title (seed ${seed})`);
  };
  const g: Draw = { f, r, unique };
  // Each kind draws from the same seeded stream in this order: the order is part of the corpus.
  const places = drawPlaces(g);
  const people = drawPeople(g, places);
  const orgs = drawOrgs(g, people, places);
  const works = drawWorks(g, people, orgs, places);
  const events = drawEvents(g, places, orgs);

  // Links drawn once every kind exists.
  for (const p of places) {
    p.links.mayor = pick(r, people).id;
    p.links.twin_city = pick(
      r,
      places.filter((q) => q !== p),
    ).id;
  }
  for (const p of people) p.links.employer = pick(r, orgs).id;

  const entities = [...people, ...places, ...orgs, ...works, ...events];
  return { seed, entities, byId: new Map(entities.map((e) => [e.id, e])) };
}

/** The seeded sources every kind draws from, and the title registry that keeps titles unique. */
type Draw = {
  f: ReturnType<typeof englishFaker>;
  r: () => number;
  unique: (make: () => string) => string;
};

function drawPlaces({ f, r, unique }: Draw): Entity[] {
  const places: Entity[] = [];
  for (let i = 0; i < KIND_COUNTS.place; i++) {
    places.push({
      id: `place-${pad(i + 1)}`,
      kind: 'place',
      title: unique(() => {
        const stem = `${f.person.lastName().replace(/[^A-Za-z]/g, '')}${pick(r, PLACE_SUFFIXES)}`;
        return r() < 0.45 ? `${pick(r, PLACE_PREFIXES)} ${stem}` : stem;
      }),
      facts: {
        country: pick(r, COUNTRIES),
        founded: int(r, 1050, 1890),
        population: int(r, 2_000, 2_400_000),
        elevation_m: int(r, 2, 2_900),
        area_km2: Math.round(int(r, 30, 90_000)) / 10,
        time_zone: `UTC+${int(r, 0, 5)}`,
      },
      links: {},
    });
  }
  return places;
}

function drawPeople({ f, r, unique }: Draw, places: Entity[]): Entity[] {
  const people: Entity[] = [];
  for (let i = 0; i < KIND_COUNTS.person; i++) {
    const born = int(r, 1790, 1975);
    const died = born + int(r, 38, 96);
    const birthplace = pick(r, places);
    const facts: Record<string, string | number> = {
      born: randomDate(r, born),
      occupation: pick(r, OCCUPATIONS),
      citizenship: birthplace.facts.country!,
      height_cm: int(r, 152, 198),
    };
    if (died < 2020) facts.died = randomDate(r, died);
    people.push({
      id: `person-${pad(i + 1)}`,
      kind: 'person',
      title: unique(() => `${f.person.firstName()} ${f.person.lastName()}`),
      facts,
      links: { birthplace: birthplace.id },
    });
  }
  return people;
}

function drawOrgs({ f, r, unique }: Draw, people: Entity[], places: Entity[]): Entity[] {
  const orgs: Entity[] = [];
  for (let i = 0; i < KIND_COUNTS.organisation; i++) {
    const [industry, suffixes] = pick(r, INDUSTRIES);
    const founder = pick(r, people);
    const founded = Math.min(2015, yearOf(String(founder.facts.born)) + int(r, 24, 55));
    orgs.push({
      id: `org-${pad(i + 1)}`,
      kind: 'organisation',
      title: unique(() => `${f.person.lastName()} ${pick(r, suffixes)}`),
      facts: {
        industry,
        founded,
        employees: int(r, 40, 180_000),
        revenue_musd: Math.round(int(r, 5, 250_000)) / 10,
      },
      links: { founder: founder.id, headquarters: pick(r, places).id },
    });
  }
  return orgs;
}

function drawWorks(
  { f, r, unique }: Draw,
  people: Entity[],
  orgs: Entity[],
  places: Entity[],
): Entity[] {
  const works: Entity[] = [];
  for (let i = 0; i < KIND_COUNTS.work; i++) {
    const [type, unit] = pick(r, WORK_TYPES);
    const creator = pick(r, people);
    const released = Math.min(2023, yearOf(String(creator.facts.born)) + int(r, 22, 70));
    const publisher = pick(r, orgs);
    const setting = pick(r, places);
    works.push({
      id: `work-${pad(i + 1)}`,
      kind: 'work',
      title: unique(() =>
        r() < 0.6
          ? `The ${capital(f.word.adjective())} ${capital(f.word.noun())}`
          : `${capital(f.word.noun())} of ${setting.title}`,
      ),
      facts: {
        work_type: type,
        released,
        length: `${unit === 'pages' ? int(r, 90, 900) : int(r, 35, 210)} ${unit}`,
        copies_sold: int(r, 1_000, 9_000_000),
      },
      links: { creator: creator.id, publisher: publisher.id, setting: setting.id },
    });
  }
  return works;
}

function drawEvents({ r, unique }: Draw, places: Entity[], orgs: Entity[]): Entity[] {
  const events: Entity[] = [];
  for (let i = 0; i < KIND_COUNTS.event; i++) {
    const location = pick(r, places);
    const organiser = pick(r, orgs);
    const year = Math.min(2023, Number(organiser.facts.founded) + int(r, 1, 60));
    const type = pick(r, EVENT_TYPES);
    events.push({
      id: `event-${pad(i + 1)}`,
      kind: 'event',
      title: unique(() => `${location.title} ${type} of ${year + int(r, 0, 3)}`),
      facts: {
        event_type: type.toLowerCase(),
        date: randomDate(r, year),
        attendance: int(r, 300, 950_000),
        duration_days: int(r, 1, 40),
      },
      links: { location: location.id, organiser: organiser.id },
    });
  }
  return events;
}

/** The entity an article id names; `undefined` for an unknown id. */
export function entityOf(corpus: Corpus, id: string): Entity | undefined {
  return corpus.byId.get(id);
}
