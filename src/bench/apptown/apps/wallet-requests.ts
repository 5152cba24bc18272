import { z } from 'zod';
import { ApiError, defineApi, findOr404, money, type App, searchApi } from '../api.js';
import type { World } from '../world.js';
import { briefs } from './brief.js';
import { AMOUNT, EMAIL, me, ref, transfer, userByEmail } from './wallet-core.js';

/** Payment requests: asking others for money and answering their requests. */
export function requestApis(): App['apis'] {
  return [
    searchApi({
      name: 'show_payment_requests',
      description: 'List payment requests you received (others asking you for money) or sent.',
      table: 'wallet.payment_requests',
      filters: {
        direction: z
          .enum(['received', 'sent'])
          .default('received')
          .describe('Requests you received or requests you sent.'),
        status: z
          .enum(['pending', 'approved', 'denied'])
          .optional()
          .describe('Only requests in this status.'),
        user_email: z.string().optional().describe('Only requests with this user.'),
      },
      defaultSort: '-created_at',
      where: (args, world) => {
        const self = me(world);
        return (r) => {
          const mine = args.direction === 'received' ? r.payer : r.requester;
          const other = args.direction === 'received' ? r.requester : r.payer;
          return (
            mine.id === self.id &&
            (!args.status || r.status === args.status) &&
            (!args.user_email || other.email.toLowerCase() === args.user_email.toLowerCase())
          );
        };
      },
      view: briefs('request'),
    }),
    defineApi({
      name: 'create_payment_request',
      description: 'Ask another wallet user to pay you an amount.',
      args: {
        user_email: EMAIL('user who should pay'),
        amount: AMOUNT,
        description: z.string().min(1).describe('What the money is for.'),
      },
      returns: { message: 'string', payment_request_id: 'integer' },
      handler: ({ world }, a) => {
        const payer = userByEmail(world, a.user_email);
        const self = me(world);
        if (payer.id === self.id)
          throw new ApiError(422, 'user_email: you cannot request money from yourself.');
        const r = world.insert('wallet.payment_requests', {
          requester: ref(self),
          payer: ref(payer),
          amount: money(a.amount),
          description: a.description,
          status: 'pending',
          transaction_id: null,
          created_at: world.now(),
          resolved_at: null,
        });
        return { message: `Requested $${r.amount} from ${payer.name}.`, payment_request_id: r.id };
      },
    }),
    defineApi({
      name: 'approve_payment_request',
      description:
        'Pay a pending payment request you received, from your balance or a payment card.',
      args: {
        payment_request_id: z.number().int().describe('Id of the request.'),
        payment_card_id: z
          .number()
          .int()
          .optional()
          .describe('Pay with this card instead of your balance.'),
      },
      returns: { message: 'string', transaction_id: 'integer' },
      handler: ({ world }, a) => {
        const r = pendingReceived(world, a.payment_request_id);
        const t = transfer(
          world,
          userByEmail(world, r.requester.email),
          r.amount,
          r.description,
          a.payment_card_id,
          'private',
        );
        Object.assign(r, { status: 'approved', transaction_id: t.id, resolved_at: t.created_at });
        return { message: `Paid $${r.amount} to ${r.requester.name}.`, transaction_id: t.id };
      },
    }),
    defineApi({
      name: 'deny_payment_request',
      description: 'Decline a pending payment request you received.',
      args: { payment_request_id: z.number().int().describe('Id of the request.') },
      returns: { message: 'string' },
      handler: ({ world }, a) => {
        const r = pendingReceived(world, a.payment_request_id);
        Object.assign(r, { status: 'denied', resolved_at: world.now() });
        return { message: `Declined the request from ${r.requester.name}.` };
      },
    }),
  ];
}

function pendingReceived(world: World, id: number) {
  const r = findOr404(world.data['wallet.payment_requests'], id, 'Payment request');
  if (r.payer.id !== me(world).id)
    throw new ApiError(403, 'This payment request was not sent to you.');
  if (r.status !== 'pending')
    throw new ApiError(409, `This payment request is already ${r.status}.`);
  return r;
}
