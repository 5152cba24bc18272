import { Faker, base, en } from '@faker-js/faker';

/**
 * The seeded data of the shipped `--bench mcp` tasks (issue 26): a small company's files (for
 * @modelcontextprotocol/server-filesystem) and a knowledge graph of people, companies and
 * projects (for @modelcontextprotocol/server-memory). Our own data, made with faker; one world
 * per split, so no split's tasks read another's data.
 */

export type Customer = {
  id: string;
  name: string;
  company: string;
  email: string;
  phone: string;
  tier: string;
  account_manager: string;
  address: { street: string; city: string; postcode: string; country: string };
  created: string;
  notes: string[];
  interactions: { date: string; channel: string; summary: string }[];
};

export type Invoice = {
  id: string;
  customer_id: string;
  issued: string;
  due: string;
  status: 'paid' | 'open' | 'overdue';
  currency: string;
  lines: { sku: string; description: string; qty: number; unit_price: number; amount: number }[];
  total: number;
  memo: string;
};

export type Ticket = {
  id: string;
  customer_id: string;
  subject: string;
  status: 'open' | 'pending' | 'closed';
  priority: 'low' | 'normal' | 'high';
  opened: string;
  thread: { at: string; from: string; body: string }[];
};

export type Entity = { name: string; entityType: string; observations: string[] };
export type Relation = { from: string; to: string; relationType: string };

export type Person = {
  name: string;
  email: string;
  role: string;
  company: string;
  projects: string[];
  manager: string | null;
};
export type Project = { name: string; company: string; members: string[]; budget: number };

export type World = {
  customers: Customer[];
  /** By month folder, e.g. `2026-03`. */
  invoices: Map<string, Invoice[]>;
  tickets: Ticket[];
  people: Person[];
  companies: string[];
  projects: Project[];
  entities: Entity[];
  relations: Relation[];
};

export const MONTHS = ['2026-01', '2026-02', '2026-03', '2026-04'];
const ROLES = ['engineer', 'designer', 'analyst', 'manager', 'sales lead', 'support agent'];
const CHANNELS = ['email', 'phone', 'chat', 'video call', 'on-site visit'];

function cents(n: number): number {
  return Math.round(n * 100) / 100;
}

function isoDay(f: Faker, from: string, to: string): string {
  return f.date.between({ from, to }).toISOString().slice(0, 10);
}

export function makeWorld(seed: number): World {
  const f = new Faker({ locale: [en, base] });
  f.seed(seed);
  const used = new Set<string>();
  const unique = (make: () => string): string => {
    for (;;) {
      const v = make();
      if (!used.has(v)) {
        used.add(v);
        return v;
      }
    }
  };

  const customers: Customer[] = [];
  for (let i = 0; i < 48; i++) {
    const first = f.person.firstName();
    const last = f.person.lastName();
    const name = unique(() => `${first} ${last}`);
    customers.push({
      id: unique(() => `C-${f.number.int({ min: 1000, max: 9999 })}`),
      name,
      company: f.company.name(),
      email: unique(() => f.internet.email({ firstName: first, lastName: last }).toLowerCase()),
      phone: f.phone.number({ style: 'international' }),
      tier: f.helpers.arrayElement(['bronze', 'silver', 'gold', 'platinum']),
      account_manager: `S-${f.number.int({ min: 10, max: 99 })}`,
      address: {
        street: f.location.streetAddress(),
        city: f.location.city(),
        postcode: f.location.zipCode(),
        country: f.location.country(),
      },
      created: isoDay(f, '2019-01-01', '2025-06-30'),
      notes: Array.from({ length: 5 }, () => f.lorem.sentence({ min: 10, max: 18 })),
      interactions: Array.from({ length: 14 }, () => ({
        date: isoDay(f, '2025-01-01', '2026-04-30'),
        channel: f.helpers.arrayElement(CHANNELS),
        summary: f.lorem.sentences(2),
      })).sort((a, b) => a.date.localeCompare(b.date)),
    });
  }

  const invoices = new Map<string, Invoice[]>();
  for (const month of MONTHS) {
    const list: Invoice[] = [];
    for (let i = 0; i < 15; i++) {
      const lines = Array.from({ length: f.number.int({ min: 16, max: 22 }) }, () => {
        const qty = f.number.int({ min: 1, max: 40 });
        const unit = cents(f.number.float({ min: 4, max: 480, fractionDigits: 2 }));
        return {
          sku: `SKU-${f.string.alphanumeric({ length: 6, casing: 'upper' })}`,
          description: f.commerce.productName(),
          qty,
          unit_price: unit,
          amount: cents(qty * unit),
        };
      });
      const issued = isoDay(f, `${month}-01`, `${month}-28`);
      list.push({
        id: unique(() => `INV-${f.number.int({ min: 10000, max: 99999 })}`),
        customer_id: f.helpers.arrayElement(customers).id,
        issued,
        due: new Date(Date.parse(issued) + 30 * 86_400_000).toISOString().slice(0, 10),
        status: f.helpers.weightedArrayElement([
          { value: 'paid' as const, weight: 5 },
          { value: 'open' as const, weight: 3 },
          { value: 'overdue' as const, weight: 2 },
        ]),
        currency: 'USD',
        lines,
        total: cents(lines.reduce((s, l) => s + l.amount, 0)),
        memo: f.lorem.sentence(),
      });
    }
    invoices.set(month, list);
  }

  const tickets: Ticket[] = [];
  for (let i = 0; i < 40; i++) {
    const customer = f.helpers.arrayElement(customers);
    const opened = isoDay(f, '2026-01-01', '2026-04-30');
    tickets.push({
      id: unique(() => `T-${f.number.int({ min: 1000, max: 9999 })}`),
      customer_id: customer.id,
      subject: f.hacker.phrase(),
      status: f.helpers.arrayElement(['open', 'pending', 'closed'] as const),
      priority: f.helpers.arrayElement(['low', 'normal', 'high'] as const),
      opened,
      thread: Array.from({ length: f.number.int({ min: 9, max: 12 }) }, (_, k) => ({
        at: `${opened}T${String(9 + k).padStart(2, '0')}:${String(f.number.int({ min: 0, max: 59 })).padStart(2, '0')}:00Z`,
        from: k % 2 === 0 ? customer.name : `support agent ${f.person.firstName()}`,
        body: f.lorem.paragraph({ min: 3, max: 5 }),
      })),
    });
  }

  // The knowledge graph: companies with staff, projects, and reporting lines.
  const companies = Array.from({ length: 6 }, () =>
    unique(() => `${f.company.name().replace(/[,]/g, '')}`),
  );
  const people: Person[] = [];
  const projects: Project[] = [];
  for (const company of companies) {
    const staff: Person[] = [];
    const size = f.number.int({ min: 13, max: 17 });
    for (let i = 0; i < size; i++) {
      const first = f.person.firstName();
      const last = f.person.lastName();
      const name = unique(() => `${first} ${last}`);
      staff.push({
        name,
        email: unique(() =>
          `${first}.${last}@${company.split(' ')[0]!.toLowerCase()}.example`
            .toLowerCase()
            .replace(/[^a-z0-9.@]/g, ''),
        ),
        role: i === 0 ? 'manager' : f.helpers.arrayElement(ROLES),
        company,
        projects: [],
        manager: i === 0 ? null : staff[f.number.int({ min: 0, max: Math.min(i - 1, 3) })]!.name,
      });
    }
    for (let p = 0; p < 2; p++) {
      const name = unique(() =>
        `Project ${f.word.adjective({ length: { min: 4, max: 9 } })} ${f.word.noun({ length: { min: 4, max: 9 } })}`.replace(
          /\b\w/g,
          (c) => c.toUpperCase(),
        ),
      );
      const members = f.helpers.arrayElements(staff, { min: 10, max: 12 });
      for (const m of members) m.projects.push(name);
      projects.push({
        name,
        company,
        members: members.map((m) => m.name),
        budget: f.number.int({ min: 20, max: 400 }) * 1000,
      });
    }
    people.push(...staff);
  }

  const entities: Entity[] = [];
  const relations: Relation[] = [];
  for (const company of companies) {
    entities.push({
      name: company,
      entityType: 'Company',
      observations: [
        `industry: ${f.commerce.department()}`,
        `headquarters: ${f.location.city()}`,
        `founded: ${f.number.int({ min: 1950, max: 2020 })}`,
        ...Array.from({ length: 4 }, () => f.company.catchPhrase()),
      ],
    });
  }
  for (const p of people) {
    entities.push({
      name: p.name,
      entityType: 'Person',
      observations: [
        `email: ${p.email}`,
        `role: ${p.role}`,
        `phone: ${f.phone.number({ style: 'international' })}`,
        `office: ${f.location.city()}`,
        `joined: ${isoDay(f, '2012-01-01', '2025-12-31')}`,
        ...Array.from(
          { length: 36 },
          () =>
            `${isoDay(f, '2025-01-01', '2026-04-30')}: ${f.lorem.sentence({ min: 10, max: 18 })}`,
        ),
      ],
    });
    relations.push({ from: p.name, to: p.company, relationType: 'works_at' });
    if (p.manager) relations.push({ from: p.name, to: p.manager, relationType: 'reports_to' });
    for (const project of p.projects) {
      relations.push({ from: p.name, to: project, relationType: 'member_of' });
    }
  }
  for (const project of projects) {
    entities.push({
      name: project.name,
      entityType: 'Project',
      observations: [
        `budget_usd: ${project.budget}`,
        `status: ${f.helpers.arrayElement(['active', 'planning', 'on hold'])}`,
        `deadline: ${isoDay(f, '2026-06-01', '2027-06-30')}`,
        f.company.catchPhrase(),
      ],
    });
    relations.push({ from: project.name, to: project.company, relationType: 'owned_by' });
  }
  return { customers, invoices, tickets, people, companies, projects, entities, relations };
}

/** The files of a world, path → content (JSON pretty-printed, as people write it). */
export function worldFiles(world: World): Map<string, string> {
  const files = new Map<string, string>();
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  for (const c of world.customers) files.set(`customers/${c.id}.json`, json(c));
  for (const [month, list] of world.invoices) {
    for (const inv of list) files.set(`invoices/${month}/${inv.id}.json`, json(inv));
  }
  for (const t of world.tickets) files.set(`tickets/${t.id}.json`, json(t));
  files.set(
    'README.md',
    '# Shared drive\n\ncustomers/ holds one JSON file per customer, invoices/<month>/ one per invoice, tickets/ one per support ticket.\n',
  );
  return files;
}

/** The memory server's JSONL file (its own format: one entity or relation a line). */
export function graphJsonl(world: World): string {
  return [
    ...world.entities.map((e) => JSON.stringify({ type: 'entity', ...e })),
    ...world.relations.map((r) => JSON.stringify({ type: 'relation', ...r })),
  ].join('\n');
}
