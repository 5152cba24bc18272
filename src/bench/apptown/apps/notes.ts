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
import { briefs } from './brief.js';
import { loginApi } from './auth.js';

const NOTE_ID = z.number().int().describe('Id of the note.');

export const notesApp: App = {
  name: 'notes',
  description: 'A note-taking app: searchable notes with titles, free-text content, tags and pins.',
  apis: [
    loginApi('notes'),
    searchApi({
      name: 'show_notes',
      description: 'List your notes with their full content, most recently updated first.',
      table: 'notes.notes',
      filters: {
        query: z.string().optional().describe('Text to look for in the title or content.'),
        tag: z.string().optional().describe('Only notes with this tag.'),
        pinned: z.boolean().optional().describe('Only pinned (true) or unpinned (false) notes.'),
      },
      sortFields: ['title', 'created_at', 'updated_at'],
      defaultSort: '-updated_at',
      where: (a) => (n) =>
        matches(a.query, n.title, n.content) &&
        (!a.tag || n.tags.includes(a.tag.toLowerCase())) &&
        (a.pinned === undefined || n.pinned === a.pinned),
      view: briefs('note'),
    }),
    showRowApi({
      name: 'show_note',
      description: 'Show one note.',
      table: 'notes.notes',
      id: { note_id: NOTE_ID },
      what: 'Note',
    }),
    defineApi({
      name: 'create_note',
      description: 'Create a note.',
      args: {
        title: z.string().min(1).describe('Title of the note.'),
        content: z.string().default('').describe('Text of the note.'),
        tags: z.array(z.string()).default([]).describe('Lower-case tags.'),
        pinned: z.boolean().default(false).describe('Pin it to the top.'),
      },
      returns: { message: 'string', note_id: 'integer' },
      handler: ({ world }, a) => {
        const now = world.now();
        const n = world.insert('notes.notes', {
          title: a.title,
          content: a.content,
          tags: a.tags.map((t) => t.toLowerCase()),
          pinned: a.pinned,
          color: 'yellow',
          created_at: now,
          updated_at: now,
        });
        return { message: `Created note '${n.title}'.`, note_id: n.id };
      },
    }),
    defineApi({
      name: 'update_note',
      description:
        'Change the title, content, tags or pin of a note; fields you leave out stay as they are.',
      args: {
        note_id: NOTE_ID,
        title: z.string().min(1).optional().describe('New title.'),
        content: z.string().optional().describe('New content (replaces the old content).'),
        tags: z.array(z.string()).optional().describe('New tags (replace the old tags).'),
        pinned: z.boolean().optional().describe('Pin or unpin.'),
      },
      returns: { message: 'string' },
      handler: ({ world }, { note_id, ...patch }) => {
        const n = findOr404(world.data['notes.notes'], note_id, 'Note');
        if (patch.title !== undefined) n.title = patch.title;
        if (patch.content !== undefined) n.content = patch.content;
        if (patch.tags !== undefined) n.tags = patch.tags.map((t) => t.toLowerCase());
        if (patch.pinned !== undefined) n.pinned = patch.pinned;
        n.updated_at = world.now();
        return { message: `Updated note '${n.title}'.` };
      },
    }),
    defineApi({
      name: 'append_to_note',
      description: 'Add a line of text at the end of a note.',
      args: { note_id: NOTE_ID, text: z.string().min(1).describe('Text to add as a new line.') },
      returns: { message: 'string' },
      handler: ({ world }, a) => {
        const n = findOr404(world.data['notes.notes'], a.note_id, 'Note');
        n.content = n.content ? `${n.content}\n${a.text}` : a.text;
        n.updated_at = world.now();
        return { message: `Appended to '${n.title}'.` };
      },
    }),
    deleteRowApi({
      name: 'delete_note',
      description: 'Delete a note.',
      table: 'notes.notes',
      id: { note_id: NOTE_ID },
      what: 'Note',
      deleted: (n) => `Deleted note '${n.title}'.`,
    }),
  ],
};
