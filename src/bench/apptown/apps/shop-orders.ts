import { z } from 'zod';
import { briefs } from './brief.js';
import { showRowApi, ApiError, defineApi, findOr404, money, type App, searchApi } from '../api.js';

const ORDER_ID = z.number().int().describe('Id of the order.');

/** Tax rate and free-shipping threshold of the store; the seeded orders use the same. */
const TAX_RATE = 0.08;
const FREE_SHIPPING_FROM = 50;
const SHIPPING_FEE = 5.99;

/** Checkout, order history, cancellation and returns. */
export function orderApis(): App['apis'] {
  return [
    defineApi({
      name: 'place_order',
      description:
        'Buy everything in your cart, shipped to one of your saved addresses and paid with one of your saved cards (ids from the supervisor app). Empties the cart.',
      args: {
        payment_card_id: z
          .number()
          .int()
          .describe('Id of the card to pay with (supervisor.show_payment_cards).'),
        address_id: z
          .number()
          .int()
          .describe('Id of the shipping address (supervisor.show_addresses).'),
      },
      returns: { message: 'string', order_id: 'integer', total: 'number' },
      handler: ({ world }, a) => {
        const cart = world.data['shop.cart_items'];
        if (cart.length === 0) throw new ApiError(409, 'Your cart is empty.');
        const card = findOr404(world.data['supervisor.payment_cards'], a.payment_card_id, 'Card');
        const address = findOr404(world.data['supervisor.addresses'], a.address_id, 'Address');
        const items = cart.map((c) => ({
          product_id: c.product_id,
          product_name: c.product_name,
          quantity: c.quantity,
          unit_price: c.unit_price,
        }));
        const subtotal = money(items.reduce((s, i) => s + i.quantity * i.unit_price, 0));
        const shipping_fee = subtotal > FREE_SHIPPING_FROM ? 0 : SHIPPING_FEE;
        const tax = money(subtotal * TAX_RATE);
        const placed_at = world.now();
        const { is_default: _unused, ...shipping_address } = address;
        const order = world.insert('shop.orders', {
          status: 'processing',
          items,
          subtotal,
          shipping_fee,
          tax,
          total: money(subtotal + shipping_fee + tax),
          payment_card_id: card.id,
          payment_card_last4: card.card_number.slice(-4),
          shipping_address,
          // Two fresh ids: unique, deterministic and as unguessable as any other id.
          tracking_number: `1Z${world.ids.next()}${world.ids.next()}`,
          placed_at,
          estimated_delivery_date: new Date(Date.parse(placed_at) + 5 * 86_400_000)
            .toISOString()
            .slice(0, 10),
          delivered_at: null,
        });
        for (const c of [...cart]) world.remove('shop.cart_items', c.id);
        return { message: 'Order placed.', order_id: order.id, total: order.total };
      },
    }),
    searchApi({
      name: 'show_orders',
      description: 'List your orders, newest first, optionally only those in one status.',
      table: 'shop.orders',
      filters: {
        status: z
          .enum(['processing', 'shipped', 'delivered', 'cancelled'])
          .optional()
          .describe('Only orders in this status.'),
      },
      defaultSort: '-placed_at',
      where: (a) => (o) => !a.status || o.status === a.status,
      view: briefs('order'),
    }),
    showRowApi({
      name: 'show_order',
      description: 'Show one order with its items, totals, address and tracking number.',
      table: 'shop.orders',
      id: { order_id: ORDER_ID },
      what: 'Order',
    }),
    defineApi({
      name: 'cancel_order',
      description: 'Cancel an order that has not shipped yet.',
      args: { order_id: ORDER_ID },
      returns: { message: 'string' },
      handler: ({ world }, a) => {
        const o = findOr404(world.data['shop.orders'], a.order_id, 'Order');
        if (o.status !== 'processing') {
          throw new ApiError(
            409,
            `Only processing orders can be cancelled; this one is ${o.status}.`,
          );
        }
        o.status = 'cancelled';
        return { message: `Order ${o.id} cancelled.` };
      },
    }),
    defineApi({
      name: 'initiate_return',
      description:
        'Start a return of a product from a delivered order; the refund goes to the card.',
      args: {
        order_id: ORDER_ID,
        product_id: z.number().int().describe('Id of the product to return.'),
        quantity: z.number().int().min(1).default(1).describe('How many to return.'),
        reason: z.string().min(1).describe('Why you are returning it.'),
      },
      returns: { message: 'string', return_id: 'integer', refund_amount: 'number' },
      handler: ({ world }, a) => {
        const o = findOr404(world.data['shop.orders'], a.order_id, 'Order');
        if (o.status !== 'delivered') {
          throw new ApiError(
            409,
            `Only delivered orders can be returned; this one is ${o.status}.`,
          );
        }
        const item = o.items.find((i) => i.product_id === a.product_id);
        if (!item) throw new ApiError(404, `Product ${a.product_id} is not in order ${o.id}.`);
        const returned = world.data['shop.returns']
          .filter((r) => r.order_id === o.id && r.product_id === item.product_id)
          .reduce((s, r) => s + r.quantity, 0);
        if (returned + a.quantity > item.quantity) {
          throw new ApiError(
            422,
            `quantity: only ${item.quantity - returned} of this item can still be returned.`,
          );
        }
        const r = world.insert('shop.returns', {
          order_id: o.id,
          product_id: item.product_id,
          product_name: item.product_name,
          quantity: a.quantity,
          reason: a.reason,
          status: 'requested',
          refund_amount: money(item.unit_price * a.quantity),
          created_at: world.now(),
        });
        return { message: 'Return requested.', return_id: r.id, refund_amount: r.refund_amount };
      },
    }),
    searchApi({
      name: 'show_returns',
      description: 'List your return requests, newest first.',
      table: 'shop.returns',
      filters: {},
      defaultSort: '-created_at',
    }),
  ];
}
