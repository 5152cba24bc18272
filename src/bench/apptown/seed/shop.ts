import type { Address, CartItem, Order, PaymentCard, Product, ReturnRequest } from '../records.js';
import { RETURN_REASONS } from './phrases.js';
import { byTime, daysAgo, type SeedContext } from './context.js';

type Seller = Product['seller'];

/** The shop app: sellers and their products, the supervisor's past orders, returns and cart. */
export function seedShop(ctx: SeedContext, addresses: Address[], cards: PaymentCard[]) {
  const sellers = seedSellers(ctx);
  const products = seedProducts(ctx, sellers);
  const orders = seedOrders(ctx, products, addresses, cards);
  const returns = seedReturns(ctx, orders);
  const cart = seedCart(ctx, products);
  return {
    'shop.products': products,
    'shop.cart_items': cart,
    'shop.orders': orders,
    'shop.returns': returns,
  };
}

function seedSellers(ctx: SeedContext): Seller[] {
  const { f, ids } = ctx;
  return Array.from({ length: 12 }, () => ({
    id: ids.next(),
    name: f.company.name(),
    rating: f.number.float({ min: 3, max: 5, fractionDigits: 1 }),
    location: `${f.location.city()}, ${f.location.state({ abbreviated: true })}`,
  }));
}

/** 200 products with distinct names. */
function seedProducts(ctx: SeedContext, sellers: Seller[]): Product[] {
  const { f, ids } = ctx;
  const names = new Set<string>();
  const products: Product[] = [];
  while (products.length < 200) {
    const name = f.commerce.productName();
    if (names.has(name)) continue;
    names.add(name);
    const id = ids.next();
    products.push({
      id,
      name,
      brand: f.company.name().split(/[ ,-]/)[0] as string,
      category: f.commerce.department(),
      price: Number(f.commerce.price({ min: 5, max: 400 })),
      rating: f.number.float({ min: 2, max: 5, fractionDigits: 1 }),
      review_count: f.number.int({ min: 0, max: 4200 }),
      stock_quantity: f.number.int({ min: 0, max: 250 }),
      description: f.commerce.productDescription(),
      seller: f.helpers.arrayElement(sellers),
      tags: f.helpers.arrayElements(
        [f.commerce.productAdjective(), f.commerce.productMaterial(), f.color.human()],
        3,
      ),
      sku: f.string.alphanumeric({ length: 10, casing: 'upper' }),
      weight_grams: f.number.int({ min: 50, max: 9000 }),
      url: `https://shop.apptown.example/p/${id}-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
      listed_at: daysAgo(ctx, 1200, 10),
    });
  }
  return products;
}

/** 26 past orders, oldest first. */
function seedOrders(
  ctx: SeedContext,
  products: Product[],
  addresses: Address[],
  cards: PaymentCard[],
): Order[] {
  const orders = Array.from({ length: 26 }, () => seedOrder(ctx, products, addresses, cards));
  return orders.sort(byTime((o) => o.placed_at));
}

function seedOrder(
  ctx: SeedContext,
  products: Product[],
  addresses: Address[],
  cards: PaymentCard[],
): Order {
  const { f, ids } = ctx;
  const items = f.helpers.arrayElements(products, { min: 1, max: 3 }).map((p) => ({
    product_id: p.id,
    product_name: p.name,
    quantity: f.number.int({ min: 1, max: 3 }),
    unit_price: p.price,
  }));
  const subtotal = round(items.reduce((s, it) => s + it.quantity * it.unit_price, 0));
  const shipping_fee = subtotal > 50 ? 0 : 5.99;
  const tax = round(subtotal * 0.08);
  const placed_at = daysAgo(ctx, 300, 1);
  const status = f.helpers.weightedArrayElement([
    { weight: 6, value: 'delivered' as const },
    { weight: 2, value: 'shipped' as const },
    { weight: 1, value: 'processing' as const },
    { weight: 1, value: 'cancelled' as const },
  ]);
  const card = f.helpers.arrayElement(cards);
  const { is_default: _unused, ...address } = f.helpers.arrayElement(addresses);
  const eta = new Date(Date.parse(placed_at) + 5 * 86_400_000).toISOString().slice(0, 10);
  return {
    id: ids.next(),
    status,
    items,
    subtotal,
    shipping_fee,
    tax,
    total: round(subtotal + shipping_fee + tax),
    payment_card_id: card.id,
    payment_card_last4: card.card_number.slice(-4),
    shipping_address: address,
    tracking_number: `1Z${f.string.alphanumeric({ length: 16, casing: 'upper' })}`,
    placed_at,
    estimated_delivery_date: eta,
    delivered_at: status === 'delivered' ? `${eta}T15:00:00Z` : null,
  };
}

/** The three oldest delivered orders had their first item returned and refunded. */
function seedReturns(ctx: SeedContext, orders: Order[]): ReturnRequest[] {
  return orders
    .filter((o) => o.status === 'delivered')
    .slice(0, 3)
    .map((o) => {
      const item = o.items[0] as Order['items'][number];
      return {
        id: ctx.ids.next(),
        order_id: o.id,
        product_id: item.product_id,
        product_name: item.product_name,
        quantity: 1,
        reason: ctx.f.helpers.arrayElement(RETURN_REASONS),
        status: 'refunded' as const,
        refund_amount: item.unit_price,
        created_at: daysAgo(ctx, 30),
      };
    });
}

function seedCart(ctx: SeedContext, products: Product[]): CartItem[] {
  return ctx.f.helpers.arrayElements(products, 2).map((p) => ({
    id: ctx.ids.next(),
    product_id: p.id,
    product_name: p.name,
    unit_price: p.price,
    quantity: 1,
    added_at: daysAgo(ctx, 6),
  }));
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
