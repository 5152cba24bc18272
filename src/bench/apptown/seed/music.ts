import type { Album, Artist, LibrarySong, Playlist, QueueItem, Song } from '../records.js';
import { PLAYLIST_TITLES } from './phrases.js';
import { byTime, daysAgo, personRef, type SeedContext } from './context.js';

const GENRES = ['indie rock', 'jazz', 'hip hop', 'electronic', 'folk', 'pop', 'soul', 'classical'];

/** The music app: artists, their albums and songs, then the supervisor's library, playlists and queue. */
export function seedMusic(ctx: SeedContext) {
  const artists = seedArtists(ctx);
  const { albums, songs } = seedAlbums(ctx, artists);
  const library = seedLibrary(ctx, songs);
  const playlists = seedPlaylists(ctx, songs);
  const queue = seedQueue(ctx, songs);
  return {
    'music.artists': artists,
    'music.albums': albums,
    'music.songs': songs,
    'music.library': library,
    'music.playlists': playlists,
    'music.queue': queue,
  };
}

/** 24 artists with distinct names. */
function seedArtists(ctx: SeedContext): Artist[] {
  const { f, ids } = ctx;
  const names = new Set<string>();
  const artists: Artist[] = [];
  while (artists.length < 24) {
    const name = f.datatype.boolean(0.6)
      ? f.music.artist()
      : `The ${capitalize(f.word.adjective())} ${capitalize(f.word.noun())}s`;
    if (names.has(name)) continue;
    names.add(name);
    artists.push({
      id: ids.next(),
      name,
      genre: f.helpers.arrayElement(GENRES),
      bio: `${f.company.catchPhrase()}. Formed in ${f.location.city()}, known for ${f.word.adjective()} live shows and ${f.word.adjective()} lyrics.`,
      country: f.location.country(),
      formed_year: f.number.int({ min: 1965, max: 2021 }),
      follower_count: f.number.int({ min: 800, max: 4_000_000 }),
      verified: f.datatype.boolean(0.7),
    });
  }
  return artists;
}

/** 40 albums with distinct titles, dealt round the artists, each with 6 to 10 songs. */
function seedAlbums(ctx: SeedContext, artists: Artist[]): { albums: Album[]; songs: Song[] } {
  const { f, ids } = ctx;
  const albums: Album[] = [];
  const songs: Song[] = [];
  const titles = new Set<string>();
  for (let i = 0; i < 40; i++) {
    const artist = artists[i % artists.length] as Artist;
    const release_date = daysAgo(ctx, 9000, 20).slice(0, 10);
    let title = f.music.album();
    while (titles.has(title)) title = `${f.music.album()} (${f.word.adjective()} edition)`;
    titles.add(title);
    const album: Album = {
      id: ids.next(),
      title,
      artists: [{ id: artist.id, name: artist.name }],
      genre: artist.genre,
      label: `${f.company.name()} Records`,
      release_date,
      rating: f.number.float({ min: 2.5, max: 5, fractionDigits: 1 }),
      song_ids: [],
      cover_url: `https://img.music.apptown.example/covers/${f.string.alphanumeric(20)}.jpg`,
    };
    const count = f.number.int({ min: 6, max: 10 });
    for (let track = 1; track <= count; track++) {
      const song = seedSong(ctx, artists, artist, album, track);
      album.song_ids.push(song.id);
      songs.push(song);
    }
    albums.push(album);
  }
  return { albums, songs };
}

/** Track `track` of `album`; sometimes another artist is featured. */
function seedSong(
  ctx: SeedContext,
  artists: Artist[],
  artist: Artist,
  album: Album,
  track: number,
): Song {
  const { f, ids } = ctx;
  const featured = f.datatype.boolean(0.15) ? f.helpers.arrayElement(artists) : null;
  return {
    id: ids.next(),
    title: f.music.songName(),
    album: { id: album.id, title: album.title },
    artists: [
      { id: artist.id, name: artist.name },
      ...(featured && featured.id !== artist.id ? [{ id: featured.id, name: featured.name }] : []),
    ],
    genre: artist.genre,
    track_number: track,
    duration_seconds: f.number.int({ min: 120, max: 420 }),
    release_date: album.release_date,
    play_count: f.number.int({ min: 1_000, max: 9_000_000 }),
    like_count: f.number.int({ min: 10, max: 400_000 }),
    rating: f.number.float({ min: 1, max: 5, fractionDigits: 1 }),
    explicit: f.datatype.boolean(0.2),
    bpm: f.number.int({ min: 60, max: 180 }),
    stream_url: `https://stream.music.apptown.example/t/${f.string.alphanumeric(24)}`,
  };
}

function seedLibrary(ctx: SeedContext, songs: Song[]): LibrarySong[] {
  return ctx.f.helpers
    .arrayElements(songs, 60)
    .map((s) => ({ id: ctx.ids.next(), song_id: s.id, added_at: daysAgo(ctx, 700) }))
    .sort(byTime((l) => l.added_at));
}

function seedPlaylists(ctx: SeedContext, songs: Song[]): Playlist[] {
  const { f, ids } = ctx;
  return f.helpers.arrayElements(PLAYLIST_TITLES, 10).map((title) => {
    const created_at = daysAgo(ctx, 600, 30);
    return {
      id: ids.next(),
      title,
      description: `${f.company.catchPhrase()}. Curated for ${title.toLowerCase()} moments.`,
      owner: personRef(ctx.supervisor),
      is_public: f.datatype.boolean(0.6),
      song_ids: f.helpers.arrayElements(songs, f.number.int({ min: 6, max: 18 })).map((s) => s.id),
      tags: f.helpers.arrayElements(['chill', 'energy', 'focus', 'party', 'mellow', 'classic'], 2),
      follower_count: f.number.int({ min: 0, max: 900 }),
      created_at,
      updated_at: daysAgo(ctx, 29),
    };
  });
}

function seedQueue(ctx: SeedContext, songs: Song[]): QueueItem[] {
  return ctx.f.helpers.arrayElements(songs, 4).map((s, i) => ({
    id: ctx.ids.next(),
    song_id: s.id,
    position: i + 1,
    added_at: daysAgo(ctx, 1),
  }));
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
