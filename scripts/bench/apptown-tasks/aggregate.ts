import type { Step, TaskBuilder } from './builder.js';
import { need } from './picker.js';
import type { Template } from './template.js';

/**
 * Aggregate templates (issue 13): each one reads a list, mostly across several pages, and computes
 * its answer or its target from the data (a declared `choose`), as AppWorld's aggregation tasks
 * do. Which of them only the test split uses is decided in index.ts (HELD_OUT).
 */

/** Every page of a list API, `limit` items a page. */
export function allPages(
  b: TaskBuilder,
  app: string,
  api: string,
  args: Record<string, unknown>,
  limit: number,
): Step[] {
  const pages: Step[] = [];
  for (let page_index = 0; ; page_index++) {
    const page = b.call(app, api, { ...args, page_index, page_limit: limit });
    pages.push(page);
    if (!page.at<boolean>('.has_more')) return pages;
  }
}

function monthName(month: string): string {
  return new Date(`${month}-01T00:00:00Z`).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

const FOLDERS = ['/Photos/2024', '/Photos/2025', '/Documents/Receipts', '/Projects/website'];

export const aggregateTemplates: Template[] = [
  {
    slug: 'files-folder-total-size',
    build: (b, p) => {
      const folder = p.pick(FOLDERS);
      const files = b.data['files.files'].filter((f) => f.directory === folder);
      need(files.length >= 11);
      const pages = allPages(
        b,
        'files',
        'show_directory',
        { access_token: b.token('files'), directory_path: folder },
        5,
      );
      const total = b.choose({
        from: pages,
        op: 'sum',
        by: 'size_bytes',
        where: { directory: folder, type: 'file' },
      });
      need(Number(total.value) === files.reduce((s, f) => s + f.size_bytes, 0));
      b.complete(total.value, undefined, [total]);
      return {
        instruction: `How many bytes do the files in my ${folder} folder take up together (not counting subfolders)? Answer with just the number.`,
        answer: Number(total.value),
      };
    },
  },
  {
    slug: 'files-newest-in-folder',
    build: (b, p) => {
      const folder = p.pick(FOLDERS);
      const files = b.data['files.files']
        .filter((f) => f.directory === folder)
        .sort((x, y) => (x.modified_at < y.modified_at ? 1 : -1));
      need(files.length >= 11 && files[0]?.modified_at !== files[1]?.modified_at);
      const pages = allPages(
        b,
        'files',
        'show_directory',
        { access_token: b.token('files'), directory_path: folder },
        5,
      );
      const newest = b.choose({
        from: pages,
        op: 'max',
        by: 'modified_at',
        take: 'name',
        where: { directory: folder },
      });
      need(newest.value === files[0]?.name);
      b.complete(newest.value, undefined, [newest]);
      return {
        instruction: `Which file in my ${folder} folder was modified most recently? Answer with its file name.`,
        answer: newest.value,
      };
    },
  },
  {
    slug: 'wallet-received-month-total',
    build: (b, p) => {
      const meId = b.data['wallet.users'][0]?.id;
      const month = p.pick(['2024-07', '2024-08', '2024-09', '2024-10', '2024-11', '2024-12']);
      const received = b.data['wallet.transactions'].filter(
        (t) => t.receiver.id === meId && t.created_at.startsWith(month),
      );
      need(received.length >= 5);
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
        3,
      );
      const total = b.choose({
        from: pages,
        op: 'sum',
        by: 'amount',
        where: { created_at: { prefix: month } },
      });
      const expected = Math.round(received.reduce((s, t) => s + t.amount, 0) * 100) / 100;
      need(Number(total.value) === expected);
      b.complete(total.value, undefined, [total]);
      return {
        instruction: `How much money did I receive on Wallet in ${monthName(month)} in total? Answer with just the number of dollars.`,
        answer: expected,
      };
    },
  },
  {
    slug: 'wallet-approve-largest-request',
    build: (b) => {
      const meId = b.data['wallet.users'][0]?.id;
      const pending = b.data['wallet.payment_requests']
        .filter((r) => r.payer.id === meId && r.status === 'pending')
        .sort((x, y) => y.amount - x.amount);
      need(pending.length >= 4 && pending[0]?.amount !== pending[1]?.amount);
      const top = need(pending[0]);
      const token = b.token('wallet');
      const account = b.call('wallet', 'show_account', { access_token: token });
      need(account.at<number>('.balance') >= top.amount);
      const pages = allPages(
        b,
        'wallet',
        'show_payment_requests',
        { access_token: token, direction: 'received', status: 'pending' },
        2,
      );
      const largest = b.choose({
        from: pages,
        op: 'max',
        by: 'amount',
        take: 'id',
        where: { status: 'pending' },
      });
      need(largest.value === String(top.id));
      b.call(
        'wallet',
        'approve_payment_request',
        { access_token: token, payment_request_id: top.id },
        undefined,
        [largest],
      );
      b.complete();
      return {
        instruction:
          'Of the payment requests I received on Wallet that are still pending, pay only the one asking for the most money.',
        changes: [
          {
            table: 'wallet.payment_requests',
            updated: 1,
            where: { id: top.id, status: 'approved' },
          },
        ],
      };
    },
  },
  {
    slug: 'music-most-played-across-playlists',
    build: (b, p) => {
      const lists = p.shuffle(b.data['music.playlists'].filter((pl) => pl.song_ids.length <= 12));
      const chosen = lists.slice(0, 3);
      need(chosen.length === 3);
      const byId = new Map(b.data['music.songs'].map((s) => [s.id, s]));
      const songs = [...new Set(chosen.flatMap((pl) => pl.song_ids))].map((id) =>
        need(byId.get(id)),
      );
      songs.sort((x, y) => y.play_count - x.play_count);
      need(songs[0]?.play_count !== songs[1]?.play_count);
      const token = b.token('music');
      const index = allPages(b, 'music', 'show_playlists', { access_token: token }, 4);
      const opened = chosen.map((pl) => {
        const page = need(
          index.find((s) => s.at<{ title: string }[]>('.items').some((x) => x.title === pl.title)),
        );
        return b.call('music', 'show_playlist', {
          access_token: token,
          playlist_id: page.ref(`.items[title=${pl.title}].id`),
        });
      });
      const top = b.choose({ from: opened, op: 'max', by: 'play_count', take: 'title' });
      need(top.value === songs[0]?.title);
      b.complete(top.value, undefined, [top]);
      const names = chosen.map((pl) => `"${pl.title}"`);
      return {
        instruction: `Across my music playlists ${names.slice(0, -1).join(', ')} and ${names[2]}, which song has been played the most times overall? Answer with the song title.`,
        answer: top.value,
      };
    },
  },
  {
    slug: 'music-library-longest-song',
    build: (b) => {
      const byId = new Map(b.data['music.songs'].map((s) => [s.id, s]));
      const library = b.data['music.library'].map((l) => need(byId.get(l.song_id)));
      library.sort((x, y) => y.duration_seconds - x.duration_seconds);
      need(library[0]?.duration_seconds !== library[1]?.duration_seconds);
      const pages = allPages(
        b,
        'music',
        'show_song_library',
        { access_token: b.token('music') },
        20,
      );
      const longest = b.choose({
        from: pages,
        op: 'max',
        by: 'duration_seconds',
        take: 'title',
        where: { added_at: { gte: '1900' } },
      });
      need(longest.value === library[0]?.title);
      b.complete(longest.value, undefined, [longest]);
      return {
        instruction: 'Which song saved in my music library is the longest? Answer with its title.',
        answer: longest.value,
      };
    },
  },
  {
    slug: 'shop-cheapest-in-category-to-cart',
    build: (b, p) => {
      const categories = [...new Set(b.data['shop.products'].map((x) => x.category))];
      const category = p.pick(
        categories.filter((c) => {
          const all = b.data['shop.products']
            .filter((x) => x.category === c)
            .sort((x, y) => x.price - y.price);
          return (
            all.length >= 7 && all[0]?.price !== all[1]?.price && (all[0]?.stock_quantity ?? 0) > 0
          );
        }),
      );
      const cheapest = need(
        b.data['shop.products']
          .filter((x) => x.category === category)
          .sort((x, y) => x.price - y.price)[0],
      );
      need(!b.data['shop.cart_items'].some((c) => c.product_id === cheapest.id));
      const token = b.token('shop');
      b.call('shop', 'show_categories', { access_token: token });
      const pages = allPages(b, 'shop', 'search_products', { access_token: token, category }, 3);
      const pick = b.choose({
        from: pages,
        op: 'min',
        by: 'price',
        take: 'id',
        where: { category },
      });
      need(pick.value === String(cheapest.id));
      b.call(
        'shop',
        'add_product_to_cart',
        { access_token: token, product_id: cheapest.id, quantity: 1 },
        undefined,
        [pick],
      );
      b.complete();
      return {
        instruction: `Add one of the cheapest product in the shop's "${category}" category to my cart.`,
        changes: [
          { table: 'shop.cart_items', added: 1, where: { product_id: cheapest.id, quantity: 1 } },
        ],
      };
    },
  },
  {
    slug: 'shop-delivered-orders-total',
    build: (b) => {
      const delivered = b.data['shop.orders'].filter((o) => o.status === 'delivered');
      need(delivered.length >= 5);
      const pages = allPages(
        b,
        'shop',
        'show_orders',
        { access_token: b.token('shop'), status: 'delivered' },
        3,
      );
      const total = b.choose({
        from: pages,
        op: 'sum',
        by: 'total',
        where: { status: 'delivered' },
      });
      const expected = Math.round(delivered.reduce((s, o) => s + o.total, 0) * 100) / 100;
      need(Number(total.value) === expected);
      b.complete(total.value, undefined, [total]);
      return {
        instruction:
          'How much did all my delivered shop orders cost together, taxes and shipping included? Answer with just the number of dollars.',
        answer: expected,
      };
    },
  },
  {
    slug: 'notes-oldest-with-tag',
    build: (b, p) => {
      const tag = p.pick(['work', 'personal', 'journal', 'health', 'recipes', 'ideas', 'finance']);
      const notes = b.data['notes.notes']
        .filter((n) => n.tags.includes(tag))
        .sort((x, y) => (x.created_at < y.created_at ? -1 : 1));
      need(notes.length >= 5 && notes[0]?.created_at !== notes[1]?.created_at);
      const pages = allPages(b, 'notes', 'show_notes', { access_token: b.token('notes'), tag }, 2);
      const oldest = b.choose({
        from: pages,
        op: 'min',
        by: 'created_at',
        take: 'title',
      });
      need(oldest.value === notes[0]?.title);
      b.complete(oldest.value, undefined, [oldest]);
      return {
        instruction: `Which of my notes tagged "${tag}" did I create first? Answer with its title.`,
        answer: oldest.value,
      };
    },
  },
  {
    slug: 'phone-count-relationship',
    build: (b, p) => {
      const relationship = p.pick(['coworker', 'friend', 'neighbor', 'family', 'classmate']);
      const contacts = b.data['phone.contacts'].filter((c) => c.relationship === relationship);
      need(contacts.length >= 6);
      const pages = allPages(
        b,
        'phone',
        'search_contacts',
        { access_token: b.token('phone'), relationship },
        3,
      );
      const count = b.choose({
        from: pages,
        op: 'count',
        take: 'phone_number',
        where: { relationship },
      });
      need(Number(count.value) === contacts.length);
      b.complete(count.value, undefined, [count]);
      return {
        instruction: `How many of my phone contacts are marked as "${relationship}"? Answer with just the number.`,
        answer: contacts.length,
      };
    },
  },
  {
    slug: 'files-delete-largest-download',
    build: (b) => {
      const folder = '/Downloads';
      const files = b.data['files.files']
        .filter((f) => f.directory === folder)
        .sort((x, y) => y.size_bytes - x.size_bytes);
      need(files.length >= 8 && files[0]?.size_bytes !== files[1]?.size_bytes);
      const top = need(files[0]);
      const token = b.token('files');
      const pages = allPages(
        b,
        'files',
        'show_directory',
        { access_token: token, directory_path: folder },
        4,
      );
      const largest = b.choose({
        from: pages,
        op: 'max',
        by: 'size_bytes',
        take: 'id',
        where: { directory: folder },
      });
      need(largest.value === String(top.id));
      b.call('files', 'delete_file', { access_token: token, file_id: top.id }, undefined, [
        largest,
      ]);
      b.complete();
      return {
        instruction: `Delete the largest file in my ${folder} folder to free some space.`,
        changes: [{ table: 'files.files', removed: 1, where: { id: top.id } }],
      };
    },
  },
  {
    slug: 'notes-pin-newest-with-tag',
    build: (b, p) => {
      const tag = p.pick(['work', 'personal', 'journal', 'health', 'recipes', 'ideas', 'finance']);
      const notes = b.data['notes.notes']
        .filter((n) => n.tags.includes(tag))
        .sort((x, y) => (x.created_at < y.created_at ? 1 : -1));
      const newest = need(notes[0]);
      need(notes.length >= 5 && newest.created_at !== notes[1]?.created_at && !newest.pinned);
      const token = b.token('notes');
      const pages = allPages(b, 'notes', 'show_notes', { access_token: token, tag }, 2);
      const pick = b.choose({
        from: pages,
        op: 'max',
        by: 'created_at',
        take: 'id',
      });
      need(pick.value === String(newest.id));
      b.call(
        'notes',
        'update_note',
        { access_token: token, note_id: newest.id, pinned: true },
        undefined,
        [pick],
      );
      b.complete();
      return {
        instruction: `Pin the note tagged "${tag}" that I created most recently.`,
        changes: [{ table: 'notes.notes', updated: 1, where: { id: newest.id, pinned: true } }],
      };
    },
  },
  {
    slug: 'phone-text-newest-contact',
    build: (b, p) => {
      const relationship = p.pick(['coworker', 'friend', 'neighbor', 'family', 'classmate']);
      const contacts = b.data['phone.contacts']
        .filter((c) => c.relationship === relationship)
        .sort((x, y) => (x.created_at < y.created_at ? 1 : -1));
      const newest = need(contacts[0]);
      need(contacts.length >= 5 && newest.created_at !== contacts[1]?.created_at);
      const message = 'Great to have you in my contacts! Let us catch up soon.';
      const token = b.token('phone');
      const pages = allPages(
        b,
        'phone',
        'search_contacts',
        { access_token: token, relationship },
        3,
      );
      const pick = b.choose({
        from: pages,
        op: 'max',
        by: 'created_at',
        take: 'phone_number',
        where: { relationship },
      });
      need(pick.value === newest.phone_number);
      b.call(
        'phone',
        'send_text_message',
        { access_token: token, phone_number: newest.phone_number, message },
        undefined,
        [pick],
      );
      b.complete();
      return {
        instruction: `Text the ${relationship} I added to my phone contacts most recently: "${message}"`,
        changes: [
          {
            table: 'phone.text_messages',
            added: 1,
            where: { 'receiver.phone_number': newest.phone_number, message },
          },
        ],
      };
    },
  },
  {
    slug: 'music-save-most-played-of-playlist',
    build: (b, p) => {
      const inLibrary = new Set(b.data['music.library'].map((l) => l.song_id));
      const byId = new Map(b.data['music.songs'].map((s) => [s.id, s]));
      const playlist = p.pick(
        b.data['music.playlists'].filter((pl) => {
          const songs = pl.song_ids.map((id) => need(byId.get(id)));
          songs.sort((x, y) => y.play_count - x.play_count);
          return (
            songs.length >= 6 &&
            songs[0]?.play_count !== songs[1]?.play_count &&
            !inLibrary.has(songs[0]?.id ?? -1)
          );
        }),
      );
      const top = need(
        playlist.song_ids
          .map((id) => need(byId.get(id)))
          .sort((x, y) => y.play_count - x.play_count)[0],
      );
      const token = b.token('music');
      const index = allPages(b, 'music', 'show_playlists', { access_token: token }, 4);
      const page = need(
        index.find((s) =>
          s.at<{ title: string }[]>('.items').some((x) => x.title === playlist.title),
        ),
      );
      const opened = b.call('music', 'show_playlist', {
        access_token: token,
        playlist_id: page.ref(`.items[title=${playlist.title}].id`),
      });
      const pick = b.choose({ from: [opened], op: 'max', by: 'play_count', take: 'id' });
      need(pick.value === String(top.id));
      b.call('music', 'add_song_to_library', { access_token: token, song_id: top.id }, undefined, [
        pick,
      ]);
      b.complete();
      return {
        instruction: `Save the most played song of my playlist "${playlist.title}" to my music library.`,
        changes: [{ table: 'music.library', added: 1, where: { song_id: top.id } }],
      };
    },
  },
];
