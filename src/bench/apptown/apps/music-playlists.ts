import { z } from 'zod';
import {
  ApiError,
  deleteRowApi,
  defineApi,
  findOr404,
  matches,
  rowShape,
  type App,
  searchApi,
} from '../api.js';
import type { World } from '../world.js';
import { brief, briefs } from './brief.js';
import { playlistView, songsById } from './music-views.js';

const PLAYLIST_ID = z.number().int().describe('Id of the playlist.');
const SONG_ID = z.number().int().describe('Id of the song.');

/** Playlists and the play queue: the music APIs that change state most. */
export function playlistApis(): App['apis'] {
  return [
    searchApi({
      name: 'show_playlists',
      description: 'List your playlists with their song ids, song count and total duration.',
      table: 'music.playlists',
      filters: {
        query: z.string().optional().describe('Text to look for in the playlist title or tags.'),
      },
      where: (a) => (p) => matches(a.query, p.title, ...p.tags),
      view: (p, w) => brief('playlist', playlistView(w, p, false)),
    }),
    defineApi({
      name: 'show_playlist',
      description: "Show one playlist with its songs (show_song has a song's details).",
      args: { playlist_id: PLAYLIST_ID },
      returns: rowShape('music.playlists', (p, w) =>
        playlistView(w, { ...p, song_ids: p.song_ids.slice(0, 1) }, true),
      ),
      handler: ({ world }, a) =>
        playlistView(
          world,
          findOr404(world.data['music.playlists'], a.playlist_id, 'Playlist'),
          true,
        ),
    }),
    defineApi({
      name: 'create_playlist',
      description: 'Create a new, empty playlist.',
      args: {
        title: z.string().min(1).describe('Title of the playlist.'),
        description: z.string().default('').describe('Optional description.'),
        is_public: z.boolean().default(false).describe('Whether other users can find it.'),
      },
      returns: { message: 'string', playlist_id: 'integer' },
      handler: ({ world }, a) => {
        const now = world.now();
        const p = world.insert('music.playlists', {
          title: a.title,
          description: a.description,
          owner: {
            name: world.supervisor.first_name + ' ' + world.supervisor.last_name,
            email: world.supervisor.email,
          },
          is_public: a.is_public,
          song_ids: [],
          tags: [],
          follower_count: 0,
          created_at: now,
          updated_at: now,
        });
        return { message: `Created playlist '${p.title}'.`, playlist_id: p.id };
      },
    }),
    deleteRowApi({
      name: 'delete_playlist',
      description: 'Delete one of your playlists.',
      table: 'music.playlists',
      id: { playlist_id: PLAYLIST_ID },
      what: 'Playlist',
      deleted: (p) => `Deleted playlist '${p.title}'.`,
    }),
    defineApi({
      name: 'add_song_to_playlist',
      description: 'Append a song to one of your playlists.',
      args: { playlist_id: PLAYLIST_ID, song_id: SONG_ID },
      returns: { message: 'string', song_count: 'integer' },
      handler: ({ world }, a) => {
        const p = findOr404(world.data['music.playlists'], a.playlist_id, 'Playlist');
        const song = findOr404(world.data['music.songs'], a.song_id, 'Song');
        if (p.song_ids.includes(song.id))
          throw new ApiError(409, `'${song.title}' is already in '${p.title}'.`);
        p.song_ids.push(song.id);
        p.updated_at = world.now();
        return { message: `Added '${song.title}' to '${p.title}'.`, song_count: p.song_ids.length };
      },
    }),
    defineApi({
      name: 'remove_song_from_playlist',
      description: 'Remove a song from one of your playlists.',
      args: { playlist_id: PLAYLIST_ID, song_id: SONG_ID },
      returns: { message: 'string', song_count: 'integer' },
      handler: ({ world }, a) => {
        const p = findOr404(world.data['music.playlists'], a.playlist_id, 'Playlist');
        if (!p.song_ids.includes(a.song_id))
          throw new ApiError(404, `Song ${a.song_id} is not in '${p.title}'.`);
        p.song_ids = p.song_ids.filter((id) => id !== a.song_id);
        p.updated_at = world.now();
        return { message: `Removed the song from '${p.title}'.`, song_count: p.song_ids.length };
      },
    }),
    defineApi({
      name: 'show_play_queue',
      description: 'Show the songs waiting in your play queue, in play order.',
      args: {},
      returns: (w: World) => [rowShape('music.songs', briefs('song'))(w)],
      handler: ({ world }) =>
        [...world.data['music.queue']]
          .sort((x, y) => x.position - y.position)
          .flatMap((q) =>
            songsById(world, [q.song_id]).map((s) => ({
              queue_item_id: q.id,
              position: q.position,
              ...brief('song', s),
            })),
          ),
    }),
    defineApi({
      name: 'add_song_to_queue',
      description: 'Add a song to the end of your play queue.',
      args: { song_id: SONG_ID },
      returns: { message: 'string', position: 'integer' },
      handler: ({ world }, a) => {
        const song = findOr404(world.data['music.songs'], a.song_id, 'Song');
        const position = Math.max(0, ...world.data['music.queue'].map((q) => q.position)) + 1;
        world.insert('music.queue', { song_id: song.id, position, added_at: world.now() });
        return { message: `Queued '${song.title}'.`, position };
      },
    }),
    defineApi({
      name: 'clear_play_queue',
      description: 'Remove every song from your play queue.',
      args: {},
      returns: { message: 'string' },
      handler: ({ world }) => {
        world.data['music.queue'].splice(0);
        return { message: 'Your play queue is empty.' };
      },
    }),
  ];
}
