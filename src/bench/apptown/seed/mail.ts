import type { Attachment, Message, PersonRef, Thread } from '../records.js';
import { ATTACHMENT_DOCS, MAIL_SUBJECTS, NEWSLETTERS, PAYMENT_REASONS } from './phrases.js';
import {
  cents,
  daysAgo,
  othersSample,
  personRef,
  type Person,
  type SeedContext,
} from './context.js';

/** The mailbox being filled: every thread kind appends to the same three tables. */
type Mailbox = {
  ctx: SeedContext;
  me: PersonRef;
  threads: Thread[];
  messages: Message[];
  attachments: Attachment[];
};

type ThreadOptions = { fromMe?: boolean; attach?: Omit<Attachment, 'id' | 'message_id'> };

/**
 * Mail threads of a few kinds that tasks build on: chatter, "your share" money reminders,
 * "new phone number" notices (from people who are phone contacts), shared documents with an
 * attachment, newsletters, and mail the supervisor sent. The kinds are seeded in this order
 * (the random draws follow it, so reordering changes every world).
 */
export function seedMail(ctx: SeedContext) {
  const box: Mailbox = {
    ctx,
    me: personRef(ctx.supervisor),
    threads: [],
    messages: [],
    attachments: [],
  };
  addChatter(box);
  addShareReminders(box);
  addNumberChanges(box);
  addSharedDocuments(box);
  addNewsletters(box);
  addSentMail(box);
  const { threads, messages, attachments } = box;
  threads.sort((a, b) => a.last_message_at.localeCompare(b.last_message_at));
  return { 'mail.threads': threads, 'mail.messages': messages, 'mail.attachments': attachments };
}

/** A thread between the supervisor and `other`; messages alternate, the first is `other`'s unless `fromMe`. */
function addThread(
  box: Mailbox,
  subject: string,
  other: PersonRef,
  bodies: string[],
  labels: string[],
  opts: ThreadOptions = {},
) {
  const { ctx } = box;
  const thread: Thread = {
    id: ctx.ids.next(),
    subject,
    participants: [box.me, other],
    labels,
    is_read: ctx.f.datatype.boolean(0.6),
    created_at: '',
    last_message_at: '',
  };
  let t = Date.parse(daysAgo(ctx, 200, 3));
  let prev: number | null = null;
  bodies.forEach((body, i) => {
    const mine = (i % 2 === 0) === Boolean(opts.fromMe);
    const msg: Message = {
      id: ctx.ids.next(),
      thread_id: thread.id,
      sender: mine ? box.me : other,
      recipients: [mine ? other : box.me],
      cc: [],
      body,
      attachment_ids: [],
      in_reply_to: prev,
      sent_at: new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    if (i === 0 && opts.attach) attach(box, msg, opts.attach);
    prev = msg.id;
    box.messages.push(msg);
    t += ctx.f.number.int({ min: 20, max: 1800 }) * 60_000;
  });
  const first = box.messages.find((m) => m.thread_id === thread.id) as Message;
  thread.created_at = first.sent_at;
  thread.last_message_at = (box.messages[box.messages.length - 1] as Message).sent_at;
  box.threads.push(thread);
}

function attach(box: Mailbox, msg: Message, file: Omit<Attachment, 'id' | 'message_id'>) {
  const a: Attachment = { id: box.ctx.ids.next(), message_id: msg.id, ...file };
  box.attachments.push(a);
  msg.attachment_ids.push(a.id);
}

function para(ctx: SeedContext): string {
  const { f } = ctx;
  return `${f.hacker.phrase()} ${f.company.catchPhrase()}. ${f.hacker.phrase()}`;
}

/** `n` message bodies alternating between the two people; each is signed by its author. */
function chatter(ctx: SeedContext, opener: Person, other: Person, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const [from, to] = i % 2 === 0 ? [opener, other] : [other, opener];
    return i === 0
      ? `Hi ${to.first_name},\n\n${para(ctx)}\n\n${para(ctx)}\n\nBest,\n${from.first_name}`
      : `${para(ctx)}\n\n${from.first_name}`;
  });
}

function addChatter(box: Mailbox) {
  const { ctx } = box;
  const { f } = ctx;
  for (const p of othersSample(ctx, 22)) {
    const subject = `${f.helpers.arrayElement(MAIL_SUBJECTS)}`;
    const labels = f.datatype.boolean(0.8) ? ['inbox'] : ['archived'];
    addThread(
      box,
      subject,
      personRef(p),
      chatter(ctx, p, ctx.supervisor, f.number.int({ min: 1, max: 4 })),
      labels,
    );
  }
}

function addShareReminders(box: Mailbox) {
  const { ctx } = box;
  for (const p of othersSample(ctx, 6)) {
    const reason = ctx.f.helpers.arrayElement(PAYMENT_REASONS);
    const amount = cents(ctx, 12, 140).toFixed(2);
    const body = `Hi ${ctx.supervisor.first_name},\n\nThanks for joining! I covered "${reason}" for everyone and your share comes to $${amount}. Could you send it to me on Wallet when you get a chance?\n\n${para(ctx)}\n\nCheers,\n${p.first_name}`;
    addThread(box, `Your share for ${reason.toLowerCase()}`, personRef(p), [body], ['inbox']);
  }
}

/** Phone contacts are people 1..45 (see seedPhone), so a new number always has a contact. */
function addNumberChanges(box: Mailbox) {
  const { ctx } = box;
  const { f } = ctx;
  for (const p of f.helpers.arrayElements(ctx.people.slice(1, 46), 4)) {
    const number = f.phone.number({ style: 'national' });
    const body = `Hey ${ctx.supervisor.first_name},\n\nQuick heads-up: I switched carriers and my new phone number is ${number}. The old one stops working next week, so please update your contacts.\n\nThanks,\n${p.first_name}`;
    addThread(box, 'My new phone number', personRef(p), [body], ['inbox']);
  }
}

function addSharedDocuments(box: Mailbox) {
  const { ctx } = box;
  const { f } = ctx;
  for (const p of othersSample(ctx, 8)) {
    const doc = f.helpers.arrayElement(ATTACHMENT_DOCS);
    const file_name = `${doc.title.toLowerCase().replace(/ /g, '_')}_${f.word.noun()}.${doc.ext}`;
    const content = Array.from({ length: 6 }, () => f.hacker.phrase()).join(' ');
    const body = `Hi ${ctx.supervisor.first_name},\n\nAttached is the ${doc.title.toLowerCase()} we talked about. Let me know if anything looks off.\n\n${para(ctx)}\n\n${p.first_name}`;
    addThread(
      box,
      `${doc.title}: ${f.word.adjective()} ${f.word.noun()}`,
      personRef(p),
      [body, para(ctx)],
      ['inbox'],
      {
        attach: { file_name, mime_type: doc.mime, size_bytes: content.length, content },
      },
    );
  }
}

function addNewsletters(box: Mailbox) {
  const { ctx } = box;
  const { f } = ctx;
  for (const n of f.helpers.arrayElements(NEWSLETTERS, 6)) {
    const domain = `${n.sender.toLowerCase().replace(/ /g, '')}.example`;
    for (let i = 0; i < 3; i++) {
      const body = `${n.subject}!\n\n${para(ctx)}\n\n${para(ctx)}\n\n${para(ctx)}\n\nUnsubscribe at https://${domain}/prefs`;
      addThread(
        box,
        `${n.subject} (#${f.number.int({ min: 100, max: 999 })})`,
        { name: n.sender, email: `news@${domain}` },
        [body],
        ['inbox', 'promotions'],
      );
    }
  }
}

function addSentMail(box: Mailbox) {
  const { ctx } = box;
  for (const p of othersSample(ctx, 8)) {
    addThread(
      box,
      ctx.f.helpers.arrayElement(MAIL_SUBJECTS),
      personRef(p),
      chatter(ctx, ctx.supervisor, p, 1),
      ['sent'],
      { fromMe: true },
    );
  }
}
