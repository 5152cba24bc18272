import { z } from 'zod';
import {
  showRowApi,
  ApiError,
  defineApi,
  findOr404,
  matches,
  pageArgs,
  pageShape,
  paginate,
  rowShape,
  sortBy,
  type App,
  searchApi,
} from '../api.js';
import { loginApi } from './auth.js';
import { playlistApis } from './music-playlists.js';
import { brief, briefs } from './brief.js';
import { songsById } from './music-views.js';

const SONG_ID = z.number().int().describe('Id of the song.');

export const musicApp: App = {
  name: 'music',
  description:
    'A music streaming app: search songs, albums and artists, manage your song library, your playlists and the play queue.',
  apis: [
    loginApi('music'),
    searchApi({
      name: 'search_songs',
      description: 'Search the catalogue of songs by title, artist, album or genre.',
      table: 'music.songs',
      filters: {
        query: z
          .string()
          .optional()
          .describe('Text to look for in the title, album title or artist names.'),
        artist_id: z.number().int().optional().describe('Only songs by this artist.'),
        album_id: z.number().int().optional().describe('Only songs on this album.'),
        genre: z.string().optional().describe('Only songs of this genre.'),
      },
      sortFields: [
        'title',
        'play_count',
        'like_count',
        'rating',
        'release_date',
        'duration_seconds',
      ],
      where: (a) => (s) =>
        matches(a.query, s.title, s.album.title, ...s.artists.map((x) => x.name)) &&
        (a.artist_id === undefined || s.artists.some((x) => x.id === a.artist_id)) &&
        (a.album_id === undefined || s.album.id === a.album_id) &&
        (!a.genre || s.genre.toLowerCase() === a.genre.toLowerCase()),
      view: briefs('song'),
    }),
    showRowApi({
      name: 'show_song',
      description: 'Show one song with its album, artists and statistics.',
      table: 'music.songs',
      id: { song_id: SONG_ID },
      what: 'Song',
    }),
    searchApi({
      name: 'search_albums',
      description: 'Search albums by title or artist.',
      table: 'music.albums',
      filters: {
        query: z
          .string()
          .optional()
          .describe('Text to look for in the album title or artist names.'),
        artist_id: z.number().int().optional().describe('Only albums by this artist.'),
      },
      sortFields: ['title', 'release_date', 'rating'],
      where: (a) => (x) =>
        matches(a.query, x.title, ...x.artists.map((y) => y.name)) &&
        (a.artist_id === undefined || x.artists.some((y) => y.id === a.artist_id)),
      view: briefs('album'),
    }),
    defineApi({
      name: 'show_album',
      description: "Show one album with its songs in track order (show_song has a song's details).",
      args: { album_id: z.number().int().describe('Id of the album.') },
      returns: rowShape('music.albums', (x, w) => ({
        ...x,
        songs: songsById(w, x.song_ids.slice(0, 1)).map(briefs('song')),
      })),
      handler: ({ world }, a) => {
        const album = findOr404(world.data['music.albums'], a.album_id, 'Album');
        return { ...album, songs: songsById(world, album.song_ids).map(briefs('song')) };
      },
    }),
    searchApi({
      name: 'search_artists',
      description: 'Search artists by name or genre.',
      table: 'music.artists',
      filters: {
        query: z.string().optional().describe('Text to look for in the artist name or genre.'),
      },
      sortFields: ['name', 'follower_count', 'formed_year'],
      where: (a) => (x) => matches(a.query, x.name, x.genre),
      view: briefs('artist'),
    }),
    defineApi({
      name: 'show_artist',
      description: 'Show one artist with their biography and album ids.',
      args: { artist_id: z.number().int().describe('Id of the artist.') },
      returns: rowShape('music.artists', (x) => ({ ...x, album_ids: [0] })),
      handler: ({ world }, a) => {
        const artist = findOr404(world.data['music.artists'], a.artist_id, 'Artist');
        const album_ids = world.data['music.albums']
          .filter((x) => x.artists.some((y) => y.id === artist.id))
          .map((x) => x.id);
        return { ...artist, album_ids };
      },
    }),
    defineApi({
      name: 'show_song_library',
      description: 'List the songs saved in your library, most recently added first.',
      args: {
        query: z
          .string()
          .optional()
          .describe('Text to look for in the song title or artist names.'),
        ...pageArgs,
      },
      returns: pageShape('music.library', (l, w) => ({
        added_at: l.added_at,
        ...brief('song', songsById(w, [l.song_id])[0] ?? {}),
      })),
      handler: ({ world }, a) => {
        const rows = sortBy(world.data['music.library'], '-added_at').flatMap((l) =>
          songsById(world, [l.song_id]).map((s) => ({ added_at: l.added_at, ...s })),
        );
        return paginate(
          rows.filter((s) => matches(a.query, s.title, ...s.artists.map((x) => x.name))),
          a,
          briefs('song'),
        );
      },
    }),
    defineApi({
      name: 'add_song_to_library',
      description: 'Save a song to your library.',
      args: { song_id: SONG_ID },
      returns: { message: 'string', library_entry_id: 'integer' },
      handler: ({ world }, a) => {
        const song = findOr404(world.data['music.songs'], a.song_id, 'Song');
        if (world.data['music.library'].some((l) => l.song_id === song.id)) {
          throw new ApiError(409, `'${song.title}' is already in your library.`);
        }
        const row = world.insert('music.library', { song_id: song.id, added_at: world.now() });
        return { message: `Added '${song.title}' to your library.`, library_entry_id: row.id };
      },
    }),
    defineApi({
      name: 'remove_song_from_library',
      description: 'Remove a song from your library.',
      args: { song_id: SONG_ID },
      returns: { message: 'string' },
      handler: ({ world }, a) => {
        const row = world.data['music.library'].find((l) => l.song_id === a.song_id);
        if (!row) throw new ApiError(404, `Song with id ${a.song_id} is not in your library.`);
        world.remove('music.library', row.id);
        return { message: 'Removed the song from your library.' };
      },
    }),
    ...playlistApis(),
  ],
};
