import { z } from 'zod';
import {
  showRowApi,
  ApiError,
  defineApi,
  findOr404,
  matches,
  money,
  rowShape,
  type App,
  searchApi,
} from '../api.js';
import type { World } from '../world.js';
import { briefs } from './brief.js';
import { loginApi } from './auth.js';
import { orderApis } from './shop-orders.js';

const PRODUCT_ID = z.number().int().describe('Id of the product.');

export function cartView(world: World) {
  const items = world.data['shop.cart_items'].map((c) => ({
    ...c,
    line_total: money(c.unit_price * c.quantity),
  }));
  return {
    items,
    item_count: items.reduce((s, i) => s + i.quantity, 0),
    subtotal: money(items.reduce((s, i) => s + i.line_total, 0)),
  };
}

export const shopApp: App = {
  name: 'shop',
  description:
    'An online store: search products, manage your cart, place orders to a saved address with a saved card, track orders and return items.',
  apis: [
    loginApi('shop'),
    searchApi({
      name: 'search_products',
      description:
        'Search the product catalogue by text, category, price and rating, with sorting.',
      table: 'shop.products',
      filters: {
        query: z.string().optional().describe('Text to look for in the name, brand or tags.'),
        category: z.string().optional().describe('Only this category, e.g. "Garden".'),
        min_price: z.number().optional().describe('Lowest price to include.'),
        max_price: z.number().optional().describe('Highest price to include.'),
        min_rating: z.number().min(0).max(5).optional().describe('Lowest rating to include.'),
      },
      sortFields: ['name', 'price', 'rating', 'review_count', 'listed_at'],
      where: (a) => (p) =>
        matches(a.query, p.name, p.brand, ...p.tags) &&
        (!a.category || p.category.toLowerCase() === a.category.toLowerCase()) &&
        (a.min_price === undefined || p.price >= a.min_price) &&
        (a.max_price === undefined || p.price <= a.max_price) &&
        (a.min_rating === undefined || p.rating >= a.min_rating),
      view: briefs('product'),
    }),
    defineApi({
      name: 'show_categories',
      description: 'List the product categories with how many products each has.',
      args: {},
      returns: [{ category: 'string', product_count: 'integer' }],
      handler: ({ world }) => {
        const counts = new Map<string, number>();
        for (const p of world.data['shop.products']) {
          counts.set(p.category, (counts.get(p.category) ?? 0) + 1);
        }
        return [...counts].sort().map(([category, product_count]) => ({ category, product_count }));
      },
    }),
    showRowApi({
      name: 'show_product',
      description: 'Show one product with its seller, stock and description.',
      table: 'shop.products',
      id: { product_id: PRODUCT_ID },
      what: 'Product',
    }),
    defineApi({
      name: 'show_cart',
      description: 'Show your shopping cart with line totals and the subtotal.',
      args: {},
      returns: (w: World) => ({
        items: [rowShape('shop.cart_items', (c) => ({ ...c, line_total: 0.5 }))(w)],
        item_count: 'integer',
        subtotal: 'number',
      }),
      handler: ({ world }) => cartView(world),
    }),
    defineApi({
      name: 'add_product_to_cart',
      description: 'Put a product in your cart (adds to the quantity if it is already there).',
      args: {
        product_id: PRODUCT_ID,
        quantity: z.number().int().min(1).max(20).default(1).describe('How many to add.'),
      },
      returns: { message: 'string', cart_item_id: 'integer', quantity: 'integer' },
      handler: ({ world }, a) => {
        const p = findOr404(world.data['shop.products'], a.product_id, 'Product');
        const existing = world.data['shop.cart_items'].find((c) => c.product_id === p.id);
        const quantity = (existing?.quantity ?? 0) + a.quantity;
        if (quantity > p.stock_quantity) {
          throw new ApiError(409, `Only ${p.stock_quantity} of '${p.name}' in stock.`);
        }
        const row =
          existing ??
          world.insert('shop.cart_items', {
            product_id: p.id,
            product_name: p.name,
            unit_price: p.price,
            quantity: 0,
            added_at: world.now(),
          });
        row.quantity = quantity;
        return { message: `'${p.name}' is in your cart.`, cart_item_id: row.id, quantity };
      },
    }),
    defineApi({
      name: 'remove_product_from_cart',
      description: 'Take a product out of your cart.',
      args: { product_id: PRODUCT_ID },
      returns: { message: 'string' },
      handler: ({ world }, a) => {
        const row = world.data['shop.cart_items'].find((c) => c.product_id === a.product_id);
        if (!row) throw new ApiError(404, `Product ${a.product_id} is not in your cart.`);
        world.remove('shop.cart_items', row.id);
        return { message: `Removed '${row.product_name}' from your cart.` };
      },
    }),
    ...orderApis(),
  ],
};
