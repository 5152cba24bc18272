import { Faker, base, en } from '@faker-js/faker';
import type { McpTaskFile, ReferenceCall } from '../../../src/bench/mcp/task-schema.js';
import { MONTHS, type World } from './world.js';

/**
 * The task patterns of the shipped `--bench mcp` tasks (issue 26). Each makes one task file
 * with its reference plan: every value a call copies from an earlier result is a `need`, every
 * value computed from what was read (the largest total, a sum, a count) is a `choice`, so the
 * `sim` agent is wrong exactly when compression lost what it needs. train and dev use the first
 * four; test holds out the last four.
 */

type Split = 'train' | 'dev' | 'test';
export type TemplateContext = { world: World; split: Split; f: Faker };
export type Made = Omit<McpTaskFile, 'id' | 'split' | 'difficulty' | 'fixture'> & {
  difficulty: 1 | 2 | 3;
  uses: ('files' | 'graph')[];
};
export type Template = {
  id: string;
  heldOut: boolean;
  make(ctx: TemplateContext, n: number): Made;
};

const FS = {
  command: '${node}',
  args: ['${package:@modelcontextprotocol/server-filesystem}', '${workdir}'],
  env: {},
};
const MEMORY = {
  command: '${node}',
  args: ['${package:@modelcontextprotocol/server-memory}'],
  env: { MEMORY_FILE_PATH: '${memory_file}' },
};

const ROOT_NOTE = 'Paths are relative to the shared drive the file tools can access.';

function call(
  name: string,
  args: Record<string, unknown>,
  needs: { value: string; from: number }[] = [],
  choices: ReferenceCall['choices'] = [],
): ReferenceCall {
  return { call: name, args, needs, choices };
}

const invoiceMax: Template = {
  id: 'fs.invoice-extreme',
  heldOut: false,
  make({ world, f }, n) {
    const month = MONTHS[n % MONTHS.length]!;
    const list = world.invoices.get(month)!;
    const op = f.helpers.arrayElement(['max', 'min'] as const);
    const status = f.helpers.arrayElement([undefined, 'paid', 'open'] as const);
    const candidates = list.filter((i) => !status || i.status === status);
    const best = candidates.reduce((a, b) =>
      (op === 'max' ? b.total > a.total : b.total < a.total) ? b : a,
    );
    const reference = [call('fs__list_directory', { path: `invoices/${month}` })];
    for (const inv of [...list].sort((a, b) => a.id.localeCompare(b.id))) {
      reference.push(
        call('fs__read_text_file', { path: `invoices/${month}/${inv.id}.json` }, [
          { value: inv.id, from: 0 },
        ]),
      );
    }
    const reads = reference.map((_, i) => i).slice(1);
    reference.push(
      call(
        'complete_task',
        { answer: best.id },
        [],
        [
          {
            value: best.id,
            from: reads,
            op,
            by: 'total',
            take: 'id',
            ...(status ? { where: { status } } : {}),
          },
        ],
      ),
    );
    const which = op === 'max' ? 'largest' : 'smallest';
    return {
      instruction: `Among the ${status ? `${status} ` : ''}invoices in the folder invoices/${month}, which one has the ${which} total? Answer with its invoice id. ${ROOT_NOTE}`,
      servers: { fs: FS },
      evaluation: { answer: best.id, match: 'text', checks: [] },
      reference,
      difficulty: 2,
      uses: ['files'],
    };
  },
};

const ticketEmails: Template = {
  id: 'fs.ticket-customer-emails',
  heldOut: false,
  make({ world, f }) {
    const seen = new Set<string>();
    const tickets = f.helpers
      .shuffle([...world.tickets])
      .filter((t) => {
        if (seen.has(t.customer_id)) return false;
        seen.add(t.customer_id);
        return true;
      })
      .slice(0, 7);
    const reference: ReferenceCall[] = [];
    const emails: { value: string; from: number }[] = [];
    for (const t of tickets) {
      reference.push(call('fs__read_text_file', { path: `tickets/${t.id}.json` }));
      const customer = world.customers.find((c) => c.id === t.customer_id)!;
      reference.push(
        call('fs__read_text_file', { path: `customers/${customer.id}.json` }, [
          { value: customer.id, from: reference.length - 1 },
        ]),
      );
      emails.push({ value: customer.email, from: reference.length - 1 });
    }
    const answer = emails.map((e) => e.value).join(', ');
    reference.push(call('complete_task', { answer }, emails));
    return {
      instruction: `Support tickets ${tickets.map((t) => t.id).join(', ')} are stored in tickets/ (one JSON file each, named by ticket id); customers are in customers/ (named by customer id). Give the email address of the customer who opened each ticket, comma-separated. ${ROOT_NOTE}`,
      servers: { fs: FS },
      evaluation: { answer, match: 'set', checks: [] },
      reference,
      difficulty: 2,
      uses: ['files'],
    };
  },
};

/** A company's staff: the people whose works_at relation names it, in graph order. */
function staffOf(world: World, company: string) {
  return world.people.filter((p) => p.company === company);
}

const teamEmails: Template = {
  id: 'memory.team-role-emails',
  heldOut: false,
  make({ world }, n) {
    const company = world.companies[n % world.companies.length]!;
    const staff = staffOf(world, company);
    const counts = new Map<string, number>();
    for (const p of staff) counts.set(p.role, (counts.get(p.role) ?? 0) + 1);
    const roles = [...counts]
      .filter(([, c]) => c >= 2)
      .map(([r]) => r)
      .sort();
    const role = roles[n % roles.length] ?? staff[0]!.role;
    const reference: ReferenceCall[] = [call('memory__search_nodes', { query: company })];
    const emails: { value: string; from: number }[] = [];
    for (const p of staff) {
      reference.push(call('memory__open_nodes', { names: [p.name] }, [{ value: p.name, from: 0 }]));
      if (p.role === role) emails.push({ value: p.email, from: reference.length - 1 });
    }
    const answer = emails.map((e) => e.value).join(', ');
    reference.push(call('complete_task', { answer }, emails));
    return {
      instruction: `In the knowledge graph, find everyone who works at ${company} (relation works_at) and give the email addresses of those whose role is ${role}, comma-separated.`,
      servers: { memory: MEMORY },
      evaluation: { answer, match: 'set', checks: [] },
      reference,
      difficulty: 2,
      uses: ['graph'],
    };
  },
};

const meetingLog: Template = {
  id: 'memory.record-meeting',
  heldOut: false,
  make({ world, f }, n) {
    const project = world.projects[n % world.projects.length]!;
    const members = world.people.filter((p) => project.members.includes(p.name));
    const counts = new Map<string, number>();
    for (const p of members) counts.set(p.role, (counts.get(p.role) ?? 0) + 1);
    const role = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const date = f.date
      .between({ from: '2026-05-01', to: '2026-06-30' })
      .toISOString()
      .slice(0, 10);
    const meeting = `${project.name} kickoff ${date}`;
    const reference: ReferenceCall[] = [call('memory__search_nodes', { query: project.name })];
    const attendees: { value: string; from: number }[] = [];
    for (const p of members) {
      reference.push(call('memory__open_nodes', { names: [p.name] }, [{ value: p.name, from: 0 }]));
      if (p.role === role) attendees.push({ value: p.name, from: reference.length - 1 });
    }
    reference.push(
      call('memory__create_entities', {
        entities: [{ name: meeting, entityType: 'Meeting', observations: [`date: ${date}`] }],
      }),
    );
    reference.push(
      call(
        'memory__create_relations',
        {
          relations: attendees.map((a) => ({
            from: a.value,
            to: meeting,
            relationType: 'attended',
          })),
        },
        attendees,
      ),
    );
    reference.push(call('complete_task', { answer: null }));
    return {
      instruction: `${project.name} held its kickoff on ${date}. Record it in the knowledge graph: create an entity named "${meeting}" of type Meeting with the observation "date: ${date}", then relate every member of ${project.name} (relation member_of) whose role is ${role} to it with a relation of type attended, from the person to the meeting. Answer null.`,
      servers: { memory: MEMORY },
      evaluation: {
        match: 'text',
        checks: [
          { graph_entity: { name: meeting, type: 'Meeting', observation: `date: ${date}` } },
          ...attendees.map((a) => ({
            graph_relation: { from: a.value, to: meeting, type: 'attended' },
          })),
        ],
      },
      reference,
      difficulty: 3,
      uses: ['graph'],
    };
  },
};

const invoiceSum: Template = {
  id: 'fs.invoice-sum',
  heldOut: true,
  make({ world, f }, n) {
    const month = MONTHS[n % MONTHS.length]!;
    const list = world.invoices.get(month)!;
    const status = f.helpers.arrayElement(['open', 'overdue', 'paid'] as const);
    const total = list.filter((i) => i.status === status).reduce((s, i) => s + i.total, 0);
    const value = String(Math.round(total * 100) / 100);
    const reference = [call('fs__list_directory', { path: `invoices/${month}` })];
    for (const inv of [...list].sort((a, b) => a.id.localeCompare(b.id))) {
      reference.push(
        call('fs__read_text_file', { path: `invoices/${month}/${inv.id}.json` }, [
          { value: inv.id, from: 0 },
        ]),
      );
    }
    const reads = reference.map((_, i) => i).slice(1);
    reference.push(
      call(
        'complete_task',
        { answer: value },
        [],
        [{ value, from: reads, op: 'sum', by: 'total', where: { status } }],
      ),
    );
    return {
      instruction: `What is the sum of the totals of all ${status} invoices in invoices/${month}? Answer with the number (two decimals at most). ${ROOT_NOTE}`,
      servers: { fs: FS },
      evaluation: { answer: value, match: 'number', checks: [] },
      reference,
      difficulty: 2,
      uses: ['files'],
    };
  },
};

const archiveClosed: Template = {
  id: 'fs.archive-closed-tickets',
  heldOut: true,
  make({ world, f }) {
    let tickets = f.helpers.arrayElements(world.tickets, 11);
    if (!tickets.some((t) => t.status === 'closed')) {
      tickets = [...tickets.slice(1), world.tickets.find((t) => t.status === 'closed')!];
    }
    tickets.sort((a, b) => a.id.localeCompare(b.id));
    const closed = tickets.filter((t) => t.status === 'closed');
    const reference: ReferenceCall[] = [call('fs__create_directory', { path: 'tickets/archive' })];
    const reads: number[] = [];
    for (const t of tickets) {
      reference.push(call('fs__read_text_file', { path: `tickets/${t.id}.json` }));
      reads.push(reference.length - 1);
    }
    for (const t of closed) {
      reference.push(
        call('fs__move_file', {
          source: `tickets/${t.id}.json`,
          destination: `tickets/archive/${t.id}.json`,
        }),
      );
    }
    const count = String(closed.length);
    reference.push(
      call(
        'complete_task',
        { answer: count },
        [],
        [{ value: count, from: reads, op: 'count', by: 'id', where: { status: 'closed' } }],
      ),
    );
    return {
      instruction: `Of the tickets ${tickets.map((t) => t.id).join(', ')} (files tickets/<id>.json), move every one whose status is closed into the folder tickets/archive (create it; keep the file names). Answer with how many tickets you moved. ${ROOT_NOTE}`,
      servers: { fs: FS },
      evaluation: {
        answer: count,
        match: 'number',
        checks: [
          ...closed.map((t) => ({ file_exists: `tickets/archive/${t.id}.json` })),
          ...closed.map((t) => ({ file_absent: `tickets/${t.id}.json` })),
          ...tickets
            .filter((t) => t.status !== 'closed')
            .map((t) => ({ file_exists: `tickets/${t.id}.json` })),
        ],
      },
      reference,
      difficulty: 3,
      uses: ['files'],
    };
  },
};

const managerEmails: Template = {
  id: 'memory.manager-emails',
  heldOut: true,
  make({ world, f }) {
    const people = f.helpers.arrayElements(
      world.people.filter((p) => p.manager !== null),
      7,
    );
    const reference: ReferenceCall[] = [];
    const emails: { value: string; from: number }[] = [];
    for (const p of people) {
      reference.push(call('memory__open_nodes', { names: [p.name] }));
      const manager = world.people.find((m) => m.name === p.manager)!;
      reference.push(
        call('memory__open_nodes', { names: [manager.name] }, [
          { value: manager.name, from: reference.length - 1 },
        ]),
      );
      emails.push({ value: manager.email, from: reference.length - 1 });
    }
    const answer = emails.map((e) => e.value).join(', ');
    reference.push(call('complete_task', { answer }, emails));
    return {
      instruction: `In the knowledge graph, each person reports to their manager (relation reports_to). Give the email address of the manager of each of: ${people.map((p) => p.name).join(', ')}; comma-separated.`,
      servers: { memory: MEMORY },
      evaluation: { answer, match: 'set', checks: [] },
      reference,
      difficulty: 2,
      uses: ['graph'],
    };
  },
};

const importContacts: Template = {
  id: 'mixed.import-customers',
  heldOut: true,
  make({ world, f }) {
    const customers = f.helpers
      .arrayElements(world.customers, 10)
      .sort((a, b) => a.id.localeCompare(b.id));
    const reference: ReferenceCall[] = [];
    const facts: { value: string; from: number }[] = [];
    for (const c of customers) {
      reference.push(call('fs__read_text_file', { path: `customers/${c.id}.json` }));
      facts.push(
        { value: c.name, from: reference.length - 1 },
        { value: c.email, from: reference.length - 1 },
      );
    }
    reference.push(
      call(
        'memory__create_entities',
        {
          entities: customers.map((c) => ({
            name: c.name,
            entityType: 'Customer',
            observations: [`email: ${c.email}`, `customer_id: ${c.id}`],
          })),
        },
        facts,
      ),
    );
    reference.push(call('complete_task', { answer: null }));
    return {
      instruction: `Add the customers ${customers.map((c) => c.id).join(', ')} (files customers/<id>.json) to the knowledge graph: one entity each, named by the customer's name, of type Customer, with the observations "email: <their email>" and "customer_id: <their id>". Answer null. ${ROOT_NOTE}`,
      servers: { fs: FS, memory: MEMORY },
      evaluation: {
        match: 'text',
        checks: customers.flatMap((c) => [
          { graph_entity: { name: c.name, type: 'Customer', observation: `email: ${c.email}` } },
        ]),
      },
      reference,
      difficulty: 2,
      uses: ['files', 'graph'],
    };
  },
};

export const TEMPLATES: readonly Template[] = [
  invoiceMax,
  ticketEmails,
  teamEmails,
  meetingLog,
  invoiceSum,
  archiveClosed,
  managerEmails,
  importContacts,
];

export function templateRandom(seed: number): Faker {
  const f = new Faker({ locale: [en, base] });
  f.seed(seed);
  return f;
}
