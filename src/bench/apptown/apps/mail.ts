import { z } from 'zod';
import { ApiError, defineApi, findOr404, matches, rowShape, type App, searchApi } from '../api.js';
import type { PersonRef, Thread } from '../records.js';
import type { World } from '../world.js';
import { brief } from './brief.js';
import { loginApi } from './auth.js';

const THREAD_ID = z.number().int().describe('Id of the thread.');

function me(world: World): PersonRef {
  const s = world.supervisor;
  return { name: `${s.first_name} ${s.last_name}`, email: s.email };
}

/** A thread as listings show it: counts and a snippet of the latest message. */
function threadSummary(world: World, t: Thread) {
  const msgs = world.data['mail.messages'].filter((m) => m.thread_id === t.id);
  const last = msgs[msgs.length - 1];
  return {
    ...t,
    message_count: msgs.length,
    has_attachments: msgs.some((m) => m.attachment_ids.length > 0),
    snippet: last ? last.body.replace(/\s+/g, ' ').slice(0, 160) : '',
  };
}

function threadDetail(world: World, t: Thread) {
  const messages = world.data['mail.messages']
    .filter((m) => m.thread_id === t.id)
    .map((m) => ({
      ...m,
      attachments: world.data['mail.attachments']
        .filter((a) => m.attachment_ids.includes(a.id))
        .map(({ content: _content, ...meta }) => meta),
    }));
  return { ...t, messages };
}

/** Name for an address: from earlier mail or phone contacts, like a mail client's address book. */
function personFor(world: World, email: string): PersonRef {
  const lower = email.toLowerCase();
  for (const t of world.data['mail.threads']) {
    const p = t.participants.find((x) => x.email.toLowerCase() === lower);
    if (p) return p;
  }
  const c = world.data['phone.contacts'].find((x) => x.email.toLowerCase() === lower);
  return { name: c ? c.name : (email.split('@')[0] ?? email), email };
}

export const mailApp: App = {
  name: 'mail',
  description:
    'An email app: read threads and attachments, send new mail, reply, archive and delete threads.',
  apis: [
    loginApi('mail'),
    searchApi({
      name: 'show_threads',
      description:
        "List mail threads with a label (inbox by default), newest first. Filter by text in the subject or participants, by a participant's email, or unread only.",
      table: 'mail.threads',
      filters: {
        label: z
          .enum(['inbox', 'archived', 'sent', 'promotions'])
          .default('inbox')
          .describe('Which folder to list.'),
        query: z
          .string()
          .optional()
          .describe('Text to look for in the subject or participant names.'),
        participant_email: z.string().optional().describe('Only threads with this participant.'),
        unread_only: z.boolean().default(false).describe('Only threads you have not read.'),
      },
      defaultSort: '-last_message_at',
      where: (a) => (t) =>
        t.labels.includes(a.label) &&
        matches(a.query, t.subject, ...t.participants.map((p) => p.name)) &&
        (!a.participant_email ||
          t.participants.some(
            (p) => p.email.toLowerCase() === a.participant_email?.toLowerCase(),
          )) &&
        (!a.unread_only || !t.is_read),
      view: (t, w) => brief('thread', threadSummary(w, t)),
    }),
    defineApi({
      name: 'show_thread',
      description: 'Show a thread with every message in full, including attachment names and ids.',
      args: { thread_id: THREAD_ID },
      returns: rowShape('mail.threads', (t, w) => threadDetail(w, t)),
      handler: ({ world }, a) => {
        const t = findOr404(world.data['mail.threads'], a.thread_id, 'Thread');
        // Reading is not a change a task checks; marking read here would make every
        // question task "change" mail.threads, so reading leaves is_read alone.
        return threadDetail(world, t);
      },
    }),
    defineApi({
      name: 'download_attachment',
      description: 'Download an attachment: its name, type, size and full text content.',
      args: { attachment_id: z.number().int().describe('Id of the attachment (see show_thread).') },
      returns: rowShape('mail.attachments'),
      handler: ({ world }, a) =>
        findOr404(world.data['mail.attachments'], a.attachment_id, 'Attachment'),
    }),
    defineApi({
      name: 'send_email',
      description: 'Send a new email, which starts a new thread.',
      args: {
        to_emails: z.array(z.string()).min(1).describe('Recipient email addresses.'),
        subject: z.string().min(1).describe('Subject line.'),
        body: z.string().min(1).describe('Text of the email.'),
        cc_emails: z.array(z.string()).default([]).describe('Addresses to copy.'),
      },
      returns: { message: 'string', thread_id: 'integer', message_id: 'integer' },
      handler: ({ world }, a) => {
        const now = world.now();
        const to = a.to_emails.map((e) => personFor(world, e));
        const cc = a.cc_emails.map((e) => personFor(world, e));
        const t = world.insert('mail.threads', {
          subject: a.subject,
          participants: [me(world), ...to, ...cc],
          labels: ['sent'],
          is_read: true,
          created_at: now,
          last_message_at: now,
        });
        const m = world.insert('mail.messages', {
          thread_id: t.id,
          sender: me(world),
          recipients: to,
          cc,
          body: a.body,
          attachment_ids: [],
          in_reply_to: null,
          sent_at: now,
        });
        return { message: 'Email sent.', thread_id: t.id, message_id: m.id };
      },
    }),
    defineApi({
      name: 'reply_to_thread',
      description: 'Reply to everyone else in a thread.',
      args: { thread_id: THREAD_ID, body: z.string().min(1).describe('Text of the reply.') },
      returns: { message: 'string', message_id: 'integer' },
      handler: ({ world }, a) => {
        const t = findOr404(world.data['mail.threads'], a.thread_id, 'Thread');
        const last = world.data['mail.messages'].filter((m) => m.thread_id === t.id).pop();
        const now = world.now();
        const m = world.insert('mail.messages', {
          thread_id: t.id,
          sender: me(world),
          recipients: t.participants.filter((p) => p.email !== world.supervisor.email),
          cc: [],
          body: a.body,
          attachment_ids: [],
          in_reply_to: last ? last.id : null,
          sent_at: now,
        });
        Object.assign(t, { last_message_at: now, is_read: true });
        return { message: 'Reply sent.', message_id: m.id };
      },
    }),
    defineApi({
      name: 'archive_thread',
      description: 'Move a thread out of the inbox into the archive.',
      args: { thread_id: THREAD_ID },
      returns: { message: 'string' },
      handler: ({ world }, a) => {
        const t = findOr404(world.data['mail.threads'], a.thread_id, 'Thread');
        if (t.labels.includes('archived'))
          throw new ApiError(409, 'This thread is already archived.');
        t.labels = [...t.labels.filter((l) => l !== 'inbox'), 'archived'];
        return { message: `Archived '${t.subject}'.` };
      },
    }),
    defineApi({
      name: 'mark_thread_read',
      description: 'Mark a thread as read or unread.',
      args: {
        thread_id: THREAD_ID,
        is_read: z.boolean().default(true).describe('true for read, false for unread.'),
      },
      returns: { message: 'string' },
      handler: ({ world }, a) => {
        const t = findOr404(world.data['mail.threads'], a.thread_id, 'Thread');
        t.is_read = a.is_read;
        return { message: `Marked '${t.subject}' as ${a.is_read ? 'read' : 'unread'}.` };
      },
    }),
    defineApi({
      name: 'delete_thread',
      description: 'Delete a thread with all its messages and attachments.',
      args: { thread_id: THREAD_ID },
      returns: { message: 'string' },
      handler: ({ world }, a) => {
        const t = findOr404(world.data['mail.threads'], a.thread_id, 'Thread');
        for (const m of world.data['mail.messages'].filter((x) => x.thread_id === t.id)) {
          for (const id of m.attachment_ids) world.remove('mail.attachments', id);
          world.remove('mail.messages', m.id);
        }
        world.remove('mail.threads', t.id);
        return { message: `Deleted '${t.subject}'.` };
      },
    }),
  ],
};
