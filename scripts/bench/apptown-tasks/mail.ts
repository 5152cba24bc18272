import type { Thread } from '../../../src/bench/apptown/records.js';
import type { TaskBuilder } from './builder.js';
import { need, type Picker } from './picker.js';
import type { Template } from './template.js';

const REPLIES = [
  'Sounds good, see you then!',
  'Thanks, I will take a look tonight.',
  'Count me in. Should I bring anything?',
  'Sorry, I cannot make it this time.',
  'Great idea, let us talk on Friday.',
] as const;

/** Inbox threads from a person (not a newsletter) whose subject is unique among their threads. */
function personThreads(b: TaskBuilder, subject: (t: Thread) => boolean) {
  return b.data['mail.threads'].filter((t) => {
    const other = t.participants.find((x) => x.email !== b.me.email);
    if (!other || other.email.startsWith('news@') || !t.labels.includes('inbox') || !subject(t)) {
      return false;
    }
    const same = b.data['mail.threads'].filter(
      (x) => x.subject === t.subject && x.participants.some((y) => y.email === other.email),
    );
    return same.length === 1;
  });
}

function otherOf(b: TaskBuilder, t: Thread) {
  return need(t.participants.find((x) => x.email !== b.me.email));
}

/**
 * Log in to mail, page through the inbox to the thread and open it. The agent finds it as a
 * person does, by who it is with and what it is about (`participants.name` and `subject`: the
 * subject is unique among that person's threads), not by its place on the page.
 */
export function openThread(b: TaskBuilder, p: Picker, subject: (t: Thread) => boolean) {
  const thread = p.pick(personThreads(b, subject));
  const from = otherOf(b, thread);
  const token = b.token('mail');
  const { page } = b.browse(
    'mail',
    'show_threads',
    { access_token: token },
    (t) => t.id === thread.id,
  );
  const opened = b.call('mail', 'show_thread', {
    access_token: token,
    thread_id: page.ref(`.items[participants.name=${from.name}&subject=${thread.subject}].id`),
  });
  return { token, thread, from, opened };
}

export const mailTemplates: Template[] = [
  {
    slug: 'mail-reply',
    build: (b, p) => {
      const thread = p.pick(personThreads(b, (t) => !t.subject.startsWith('Your share')));
      const from = otherOf(b, thread);
      const text = p.pick(REPLIES);
      const token = b.token('mail');
      const list = b.call('mail', 'show_threads', {
        access_token: token,
        query: from.name,
        page_limit: 10,
      });
      b.docs('mail', 'reply_to_thread');
      b.call('mail', 'reply_to_thread', {
        access_token: token,
        thread_id: list.ref(`.items[subject=${thread.subject}].id`),
        body: text,
      });
      b.complete();
      return {
        instruction: `Reply to ${from.name}'s email "${thread.subject}" with exactly this text: ${text}`,
        changes: [
          { table: 'mail.messages', added: 1, where: { thread_id: thread.id, body: text } },
        ],
      };
    },
  },
  {
    slug: 'mail-archive-newsletter',
    build: (b, p) => {
      const senders = [
        ...new Set(
          b.data['mail.threads']
            .filter((t) => t.labels.includes('promotions'))
            .map((t) => need(t.participants[1]).name),
        ),
      ];
      const sender = p.pick(senders);
      const threads = b.data['mail.threads'].filter((t) => t.participants[1]?.name === sender);
      const token = b.token('mail');
      const list = b.call('mail', 'show_threads', { access_token: token, query: sender });
      need(list.at<number>('.total_items') === threads.length);
      const changes = threads.map((t, i) => {
        b.call('mail', 'archive_thread', {
          access_token: token,
          thread_id: list.ref(`.items[${i}].id`),
        });
        return {
          table: 'mail.threads' as const,
          updated: 1,
          where: { id: list.at<number>(`.items[${i}].id`), labels: ['promotions', 'archived'] },
        };
      });
      b.complete();
      return {
        instruction: `Archive every email from ${sender} that is in my inbox.`,
        changes,
      };
    },
  },
  {
    slug: 'mail-attachment-name',
    build: (b, p) => {
      const { thread, from, opened } = openThread(b, p, (t) => t.subject.includes(': '));
      const answer = opened.ref('.messages[0].attachments[0].file_name');
      b.complete(answer);
      return {
        instruction: `What is the file name of the attachment in the email "${thread.subject}" that ${from.name} sent me?`,
        answer,
      };
    },
  },
  {
    slug: 'mail-save-attachment',
    build: (b, p) => {
      const { token, thread, from, opened } = openThread(b, p, (t) => t.subject.includes(': '));
      b.docs('mail', 'download_attachment');
      const file = b.call('mail', 'download_attachment', {
        access_token: token,
        attachment_id: opened.ref('.messages[0].attachment_ids[0]'),
      });
      const name = file.at<string>('.file_name');
      const content = file.at<string>('.content');
      b.call('files', 'create_file', {
        access_token: b.token('files'),
        file_path: `/Documents/${file.ref('.file_name')}`,
        content: file.ref('.content'),
      });
      b.complete();
      return {
        instruction: `Save the attachment of the email "${thread.subject}" from ${from.name} as a file in my /Documents folder (files app), keeping its file name and content.`,
        changes: [
          { table: 'files.files', added: 1, where: { path: `/Documents/${name}`, content } },
        ],
      };
    },
  },
  {
    slug: 'mail-pay-share',
    build: (b, p) => {
      const { thread, from, opened } = openThread(b, p, (t) => t.subject.startsWith('Your share'));
      const body = opened.at<string>('.messages[0].body');
      const amountText = need(/\$(\d+\.\d{2})/.exec(body)?.[1]);
      const reason = need(/covered "([^"]+)"/.exec(body)?.[1]);
      const amount = Number(amountText);
      b.call(
        'wallet',
        'send_money',
        {
          access_token: b.token('wallet'),
          receiver_email: opened.ref('.messages[0].sender.email'),
          amount,
          description: reason,
        },
        { [opened.id]: [amountText] },
      );
      b.complete();
      return {
        instruction: `${from.name} emailed me ("${thread.subject}") about the money I owe. Pay them exactly that amount on Wallet, with the description "${reason}".`,
        changes: [
          {
            table: 'wallet.transactions',
            added: 1,
            where: { 'receiver.email': from.email, amount, description: reason },
          },
        ],
      };
    },
  },
  {
    slug: 'mail-update-phone-number',
    build: (b, p) => {
      const { thread, from, opened } = openThread(b, p, (t) => t.subject === 'My new phone number');
      const number = need(
        /new phone number is (\(\d{3}\) \d{3}-\d{4})/.exec(
          opened.at<string>('.messages[0].body'),
        )?.[1],
      );
      const contact = need(b.data['phone.contacts'].find((c) => c.email === from.email));
      const token = b.token('phone');
      const found = b.call('phone', 'search_contacts', { access_token: token, query: from.name });
      b.docs('phone', 'update_contact');
      b.call(
        'phone',
        'update_contact',
        {
          access_token: token,
          contact_id: found.ref(`.items[name=${contact.name}].id`),
          phone_number: number,
        },
        { [opened.id]: [number] },
      );
      b.complete();
      return {
        // The subject is stated: the agent finds the email by what it is told (issue 61).
        instruction: `${from.name} emailed me a new phone number (the email "${thread.subject}"). Update their contact in my phone app with it.`,
        changes: [
          { table: 'phone.contacts', updated: 1, where: { id: contact.id, phone_number: number } },
        ],
      };
    },
  },
];
