import { z } from 'zod';
import {
  ApiError,
  defineApi,
  findOr404,
  matches,
  pageArgs,
  pageShape,
  paginate,
  rowShape,
  sortArg,
  sortBy,
  type App,
  searchApi,
} from '../api.js';
import type { World } from '../world.js';
import { brief, briefs } from './brief.js';
import { loginApi } from './auth.js';
import { AMOUNT, EMAIL, me, publicUser, ref, transfer, userByEmail } from './wallet-core.js';
import { requestApis } from './wallet-requests.js';

export const walletApp: App = {
  name: 'wallet',
  description:
    'A peer-to-peer payment app: your balance, friends, transaction history, and money requests to or from other users.',
  apis: [
    loginApi('wallet'),
    defineApi({
      name: 'show_account',
      description: 'Show your wallet account, including your current balance in US dollars.',
      args: {},
      returns: rowShape('wallet.users'),
      handler: ({ world }) => me(world),
    }),
    searchApi({
      name: 'search_users',
      description: 'Search all wallet users by name, email or phone number.',
      table: 'wallet.users',
      filters: {
        query: z.string().optional().describe('Text to look for in name, email or phone number.'),
      },
      where: (args) => (u) => matches(args.query, u.name, u.email, u.phone_number),
      view: (u) => brief('walletUser', publicUser(u)),
    }),
    defineApi({
      name: 'show_friends',
      description: 'List your wallet friends with their contact details.',
      args: {
        query: z.string().optional().describe("Text to look for in the friend's name or email."),
        sort_by: sortArg(['name', 'friends_since']),
        ...pageArgs,
      },
      returns: pageShape('wallet.friends', (f, w) =>
        brief('walletUser', friendView(w, f.user.email, f)),
      ),
      handler: ({ world }, args) => {
        const rows = world.data['wallet.friends']
          .filter((f) => matches(args.query, f.user.name, f.user.email, f.nickname ?? undefined))
          .map((f) => friendView(world, f.user.email, f));
        return paginate(sortBy(rows, args.sort_by), args, briefs('walletUser'));
      },
    }),
    defineApi({
      name: 'add_friend',
      description: 'Add a wallet user to your friends.',
      args: { user_email: EMAIL('user to befriend') },
      returns: { message: 'string', friend_id: 'integer' },
      handler: ({ world }, { user_email }) => {
        const user = userByEmail(world, user_email);
        if (world.data['wallet.friends'].some((f) => f.user.id === user.id)) {
          throw new ApiError(409, `${user.name} is already your friend.`);
        }
        const row = world.insert('wallet.friends', {
          user: ref(user),
          nickname: null,
          friends_since: world.now(),
        });
        return { message: `${user.name} is now your friend.`, friend_id: row.id };
      },
    }),
    defineApi({
      name: 'remove_friend',
      description: 'Remove a user from your wallet friends.',
      args: { user_email: EMAIL('friend to remove') },
      returns: { message: 'string' },
      handler: ({ world }, { user_email }) => {
        const row = world.data['wallet.friends'].find(
          (f) => f.user.email.toLowerCase() === user_email.toLowerCase(),
        );
        if (!row) throw new ApiError(404, `No friend with email '${user_email}'.`);
        world.remove('wallet.friends', row.id);
        return { message: `${row.user.name} was removed from your friends.` };
      },
    }),
    ...transactionApis(),
    ...requestApis(),
  ],
};

function friendView(
  world: World,
  email: string,
  f: { id: number; nickname: string | null; friends_since: string },
) {
  const u = userByEmail(world, email);
  return {
    friend_id: f.id,
    nickname: f.nickname,
    friends_since: f.friends_since,
    ...publicUser(u),
  };
}

function transactionApis() {
  return [
    searchApi({
      name: 'show_transactions',
      description:
        'List your transactions (money you sent or received), newest first unless sort_by says otherwise. Filter by direction, the other user, description text, amount range and date range.',
      table: 'wallet.transactions',
      filters: {
        direction: z
          .enum(['sent', 'received'])
          .optional()
          .describe('Only money you sent, or only money you received.'),
        user_email: z.string().optional().describe('Only transactions with this user.'),
        query: z.string().optional().describe('Text to look for in the description.'),
        min_amount: z.number().optional().describe('Smallest amount to include.'),
        max_amount: z.number().optional().describe('Largest amount to include.'),
        min_created_at: z
          .string()
          .optional()
          .describe('Earliest date/time to include (ISO 8601, e.g. 2025-03-01).'),
        max_created_at: z
          .string()
          .optional()
          .describe('Latest date/time to include (ISO 8601); a bare date includes that whole day.'),
      },
      sortFields: ['created_at', 'amount'],
      defaultSort: '-created_at',
      where: (args, world) => {
        const self = me(world);
        const maxAt =
          args.max_created_at && args.max_created_at.length === 10
            ? `${args.max_created_at}T23:59:59Z`
            : args.max_created_at;
        return (t) => {
          const other = t.sender.id === self.id ? t.receiver : t.sender;
          return (
            (!args.direction || (args.direction === 'sent') === (t.sender.id === self.id)) &&
            (!args.user_email || other.email.toLowerCase() === args.user_email.toLowerCase()) &&
            matches(args.query, t.description) &&
            (args.min_amount === undefined || t.amount >= args.min_amount) &&
            (args.max_amount === undefined || t.amount <= args.max_amount) &&
            (!args.min_created_at || t.created_at >= args.min_created_at) &&
            (!maxAt || t.created_at <= maxAt)
          );
        };
      },
      view: briefs('transaction'),
    }),
    defineApi({
      name: 'show_transaction',
      description: 'Show one transaction with its comments.',
      args: { transaction_id: z.number().int().describe('Id of the transaction.') },
      returns: rowShape('wallet.transactions'),
      handler: ({ world }, { transaction_id }) =>
        findOr404(world.data['wallet.transactions'], transaction_id, 'Transaction'),
    }),
    defineApi({
      name: 'send_money',
      description:
        'Send money to another wallet user, from your balance or, with payment_card_id, from one of your payment cards.',
      args: {
        receiver_email: EMAIL('user to pay'),
        amount: AMOUNT,
        description: z.string().min(1).describe('What the payment is for.'),
        payment_card_id: z
          .number()
          .int()
          .optional()
          .describe(
            'Pay with this card (see supervisor.show_payment_cards) instead of your balance.',
          ),
        privacy: z
          .enum(['public', 'friends', 'private'])
          .default('private')
          .describe('Who can see the transaction.'),
      },
      returns: { message: 'string', transaction_id: 'integer' },
      handler: ({ world }, a) => {
        const t = transfer(
          world,
          userByEmail(world, a.receiver_email),
          a.amount,
          a.description,
          a.payment_card_id,
          a.privacy,
        );
        return { message: `Sent $${t.amount} to ${t.receiver.name}.`, transaction_id: t.id };
      },
    }),
  ];
}
