import { z } from 'zod';
import {
  deleteRowApi,
  showRowApi,
  defineApi,
  findOr404,
  matches,
  type App,
  searchApi,
} from '../api.js';
import type { World } from '../world.js';
import { briefs } from './brief.js';
import { loginApi } from './auth.js';

const CONTACT_ID = z.number().int().describe('Id of the contact.');

function samePhone(a: string, b: string): boolean {
  return a.replace(/\D/g, '') === b.replace(/\D/g, '');
}

function me(world: World) {
  const s = world.supervisor;
  return { name: `${s.first_name} ${s.last_name}`, phone_number: s.phone_number };
}

export const phoneApp: App = {
  name: 'phone',
  description: 'Your phone: contacts (with relationship, birthday and address) and text messages.',
  apis: [
    loginApi('phone'),
    searchApi({
      name: 'search_contacts',
      description: 'Search your contacts by name, phone number, email or relationship.',
      table: 'phone.contacts',
      filters: {
        query: z
          .string()
          .optional()
          .describe('Text to look for in the name, phone number or email.'),
        relationship: z
          .string()
          .optional()
          .describe('Only contacts with this relationship, e.g. family.'),
        favorite: z
          .boolean()
          .optional()
          .describe('Only favourites (true) or non-favourites (false).'),
      },
      sortFields: ['name', 'birthday', 'created_at'],
      defaultSort: 'name',
      where: (a) => (c) =>
        matches(a.query, c.name, c.phone_number, c.email) &&
        (!a.relationship || c.relationship.toLowerCase() === a.relationship.toLowerCase()) &&
        (a.favorite === undefined || c.favorite === a.favorite),
      view: briefs('contact'),
    }),
    showRowApi({
      name: 'show_contact',
      description: 'Show one contact.',
      table: 'phone.contacts',
      id: { contact_id: CONTACT_ID },
      what: 'Contact',
    }),
    defineApi({
      name: 'add_contact',
      description: 'Add a contact.',
      args: {
        first_name: z.string().min(1).describe('First name.'),
        last_name: z.string().default('').describe('Last name.'),
        phone_number: z.string().min(3).describe('Phone number.'),
        email: z.string().default('').describe('Email address.'),
        relationship: z.string().default('friend').describe('friend, family, coworker, ...'),
        birthday: z.string().default('').describe('Birthday as YYYY-MM-DD.'),
      },
      returns: { message: 'string', contact_id: 'integer' },
      handler: ({ world }, a) => {
        const c = world.insert('phone.contacts', {
          ...a,
          name: `${a.first_name} ${a.last_name}`.trim(),
          address: '',
          notes: '',
          favorite: false,
          created_at: world.now(),
        });
        return { message: `Added ${c.name}.`, contact_id: c.id };
      },
    }),
    defineApi({
      name: 'update_contact',
      description: 'Change fields of a contact; fields you leave out stay as they are.',
      args: {
        contact_id: CONTACT_ID,
        phone_number: z.string().min(3).optional().describe('New phone number.'),
        email: z.string().optional().describe('New email address.'),
        relationship: z.string().optional().describe('New relationship.'),
        address: z.string().optional().describe('New postal address.'),
        notes: z.string().optional().describe('New notes.'),
        favorite: z.boolean().optional().describe('Mark or unmark as favourite.'),
      },
      returns: { message: 'string' },
      handler: ({ world }, { contact_id, ...patch }) => {
        const c = findOr404(world.data['phone.contacts'], contact_id, 'Contact');
        for (const [k, v] of Object.entries(patch))
          if (v !== undefined) Object.assign(c, { [k]: v });
        return { message: `Updated ${c.name}.` };
      },
    }),
    deleteRowApi({
      name: 'delete_contact',
      description: 'Delete a contact.',
      table: 'phone.contacts',
      id: { contact_id: CONTACT_ID },
      what: 'Contact',
      deleted: (c) => `Deleted ${c.name}.`,
    }),
    searchApi({
      name: 'show_text_messages',
      description:
        'List text messages, newest first, optionally only those with one phone number or containing some text.',
      table: 'phone.text_messages',
      filters: {
        phone_number: z.string().optional().describe('Only messages to or from this number.'),
        query: z.string().optional().describe('Text to look for in the message.'),
      },
      defaultSort: '-sent_at',
      where: (a) => (m) =>
        (!a.phone_number ||
          samePhone(m.sender.phone_number, a.phone_number) ||
          samePhone(m.receiver.phone_number, a.phone_number)) &&
        matches(a.query, m.message),
    }),
    defineApi({
      name: 'send_text_message',
      description: 'Send a text message to a phone number.',
      args: {
        phone_number: z.string().min(3).describe('Phone number of the receiver.'),
        message: z.string().min(1).describe('Text to send.'),
      },
      returns: { message: 'string', text_message_id: 'integer' },
      handler: ({ world }, a) => {
        const contact = world.data['phone.contacts'].find((c) =>
          samePhone(c.phone_number, a.phone_number),
        );
        const m = world.insert('phone.text_messages', {
          sender: me(world),
          receiver: { name: contact ? contact.name : a.phone_number, phone_number: a.phone_number },
          message: a.message,
          is_read: true,
          sent_at: world.now(),
        });
        return { message: `Text sent to ${m.receiver.name}.`, text_message_id: m.id };
      },
    }),
  ],
};
