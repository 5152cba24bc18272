import { allPages } from './aggregate.js';
import { need } from './picker.js';
import { NOTES, sum, type Template } from './template.js';

const SINCE = '2024-12-01';

export const walletTemplates: Template[] = [
  {
    slug: 'wallet-pay-friend',
    build: (b, p) => {
      const friend = p.pick(b.data['wallet.friends']).user;
      const amount = p.dollars(8, 95);
      const note = p.pick(NOTES);
      const token = b.token('wallet');
      const { page } = b.browse(
        'wallet',
        'show_friends',
        { access_token: token, sort_by: 'name' },
        (u) => u.name === friend.name,
        10,
      );
      b.docs('wallet', 'send_money');
      b.call('wallet', 'send_money', {
        access_token: token,
        receiver_email: page.ref(`.items[name=${friend.name}].email`),
        amount,
        description: note,
      });
      b.complete();
      return {
        instruction: `Send $${amount} to my Wallet friend ${friend.name} with the note "${note}".`,
        changes: [
          {
            table: 'wallet.transactions',
            added: 1,
            where: { 'receiver.email': friend.email, amount, description: note },
          },
        ],
      };
    },
  },
  {
    slug: 'wallet-total-sent',
    build: (b, p) => {
      const meId = b.data['wallet.users'][0]?.id;
      const candidates = b.data['wallet.friends'].filter(
        (f) =>
          b.data['wallet.transactions'].filter(
            (t) => t.receiver.id === f.user.id && t.sender.id === meId && t.created_at >= SINCE,
          ).length >= 2,
      );
      const friend = p.pick(candidates).user;
      const token = b.token('wallet');
      const friends = b.call('wallet', 'show_friends', { access_token: token, query: friend.name });
      b.docs('wallet', 'show_transactions');
      const txs = b.call('wallet', 'show_transactions', {
        access_token: token,
        direction: 'sent',
        user_email: friends.ref(`.items[name=${friend.name}].email`),
        min_created_at: SINCE,
        page_limit: 20,
      });
      const amounts = txs.at<{ amount: number }[]>('.items').map((t) => t.amount);
      need(txs.at<boolean>('.has_more') === false);
      const total = sum(amounts);
      b.complete(String(total), { [txs.id]: amounts });
      return {
        instruction: `How much money have I sent in total to ${friend.name} on Wallet since ${SINCE}? Answer with just the number of dollars.`,
        answer: total,
      };
    },
  },
  {
    slug: 'wallet-settle-requests',
    build: (b) => {
      const token = b.token('wallet');
      const list = b.call('wallet', 'show_payment_requests', {
        access_token: token,
        direction: 'received',
        status: 'pending',
        page_limit: 20,
      });
      const items = list.at<{ id: number; amount: number }[]>('.items');
      need(items.length >= 3 && items.length <= 12 && list.at<boolean>('.has_more') === false);
      const changes = items.map((r, i) => {
        const pay = r.amount < 50;
        // The agent decides per request from the amount it can see (issue 22).
        b.call(
          'wallet',
          pay ? 'approve_payment_request' : 'deny_payment_request',
          { access_token: token, payment_request_id: list.ref(`.items[${i}].id`) },
          undefined,
          undefined,
          {
            arg: 'payment_request_id',
            if: { amount: { lt: 50 } },
            then: 'approve_payment_request',
            else: 'deny_payment_request',
          },
        );
        return {
          table: 'wallet.payment_requests' as const,
          updated: 1,
          where: { id: r.id, status: pay ? 'approved' : 'denied' },
        };
      });
      need(changes.some((c) => c.where.status === 'approved'));
      b.complete();
      return {
        instruction:
          'Go through the payment requests I have received on Wallet that are still pending: pay every one under $50 from my balance and decline the others.',
        changes,
      };
    },
  },
  {
    slug: 'wallet-request-money',
    build: (b, p) => {
      const [a, c] = p.shuffle(b.data['wallet.friends']).map((f) => f.user);
      const first = need(a);
      const second = need(c);
      const amount = p.dollars(12, 60);
      const note = p.pick(NOTES);
      const token = b.token('wallet');
      const changes = [first, second].map((friend) => {
        const { page: found } = b.browse(
          'wallet',
          'show_friends',
          { access_token: token },
          (u) => u.name === friend.name,
        );
        if (friend === first) b.docs('wallet', 'create_payment_request');
        b.call('wallet', 'create_payment_request', {
          access_token: token,
          user_email: found.ref(`.items[name=${friend.name}].email`),
          amount,
          description: note,
        });
        return {
          table: 'wallet.payment_requests' as const,
          added: 1,
          where: { 'payer.email': friend.email, amount, description: note, status: 'pending' },
        };
      });
      b.complete();
      return {
        instruction: `Request $${amount} on Wallet from each of my friends ${first.name} and ${second.name}, with the note "${note}".`,
        changes,
      };
    },
  },
  {
    slug: 'wallet-balance',
    build: (b) => {
      const account = b.call('wallet', 'show_account', { access_token: b.token('wallet') });
      b.complete(account.ref('.balance'));
      return {
        instruction: 'What is my current Wallet balance in dollars? Answer with just the number.',
        answer: account.ref('.balance'),
      };
    },
  },
  {
    slug: 'wallet-largest-received',
    build: (b, p) => {
      const month = p.pick(['2025-01', '2025-02', '2025-03', '2025-04']);
      const meId = b.data['wallet.users'][0]?.id;
      const received = b.data['wallet.transactions']
        .filter((t) => t.receiver.id === meId && t.created_at.startsWith(month))
        .sort((x, y) => y.amount - x.amount);
      need(received.length >= 2 && received[0]?.amount !== received[1]?.amount);
      const [year, mon] = month.split('-');
      const last = new Date(Date.UTC(Number(year), Number(mon), 0)).getUTCDate();
      const pages = allPages(
        b,
        'wallet',
        'show_transactions',
        {
          access_token: b.token('wallet'),
          direction: 'received',
          min_created_at: `${month}-01`,
          max_created_at: `${month}-${last}`,
        },
        2,
      );
      const largest = b.choose({
        from: pages,
        op: 'max',
        by: 'amount',
        where: { created_at: { prefix: month } },
      });
      need(Number(largest.value) === received[0]?.amount);
      b.complete(largest.value, undefined, [largest]);
      const monthName = new Date(`${month}-01T00:00:00Z`).toLocaleString('en-US', {
        month: 'long',
        year: 'numeric',
        timeZone: 'UTC',
      });
      return {
        instruction: `What was the largest single payment I received on Wallet in ${monthName}? Answer with the amount in dollars.`,
        answer: received[0]?.amount ?? null,
      };
    },
  },
];
