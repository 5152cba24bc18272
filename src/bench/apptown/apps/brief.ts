/**
 * Short records for list APIs (issue 22, benchmark scale). AppWorld's list APIs return a short
 * record per item and leave the rest to the record's own show API: its `show_song_library` gives
 * `song_id, title, album_id, duration, artists, added_at`, and release date, genre, play and like
 * counts, rating and a link come from `show_song`. apptown's lists used to return whole rows (up to
 * 17 fields, about 200 tokens an item), so raw prompts peaked near 23K tokens where AppWorld's
 * (ACON paper v3, gpt-4.1) peak at 9.93K. Each list now leaves out the fields below; the record's
 * show API (show_song, show_product, show_thread, show_file, …) still returns them, and what a task
 * selects, compares or decides on stays in the list (ids, names and titles, amounts and prices,
 * counts and sizes, dates, status, relationship, category, tags).
 */
const DETAIL_ONLY = {
  song: ['genre', 'track_number', 'release_date', 'like_count', 'rating', 'bpm', 'stream_url'],
  album: ['label', 'cover_url'],
  artist: ['bio', 'country', 'formed_year', 'verified'],
  playlist: ['description', 'tags', 'follower_count', 'updated_at'],
  walletUser: ['first_name', 'last_name', 'verified', 'avatar_url', 'registered_at'],
  contact: ['first_name', 'last_name', 'birthday', 'notes', 'favorite'],
  thread: ['last_message_at', 'has_attachments', 'snippet'],
  product: [
    'brand',
    'review_count',
    'description',
    'seller',
    'tags',
    'sku',
    'weight_grams',
    'url',
    'listed_at',
  ],
  order: [
    'subtotal',
    'shipping_fee',
    'tax',
    'payment_card_id',
    'payment_card_last4',
    'shipping_address',
  ],
  file: ['owner', 'shared_with', 'created_at'],
  transaction: ['privacy', 'payment_source', 'payment_card_id', 'like_count', 'comments'],
  request: ['transaction_id', 'resolved_at'],
  note: ['color'],
} as const;

export type BriefKind = keyof typeof DETAIL_ONLY;

/** `row` as a list shows it: without the fields only its show API returns. */
export function brief<T extends object>(kind: BriefKind, row: T): Partial<T> {
  const omit: readonly string[] = DETAIL_ONLY[kind];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (!omit.includes(k)) out[k] = v;
  return out as Partial<T>;
}

/** A mapper for `.map`: `rows.map(briefs('song'))`. */
export function briefs(kind: BriefKind): <T extends object>(row: T) => Partial<T> {
  return (row) => brief(kind, row);
}
