import type { Playlist, Song } from '../records.js';
import type { World } from '../world.js';
import { briefs } from './brief.js';

/** Views shared by the music APIs: rows joined with the songs they point to. */
export function songsById(world: World, ids: number[]) {
  // One pass over the catalogue keeping only the wanted songs: a list of playlists joins each
  // playlist's few songs, and indexing the whole catalogue per playlist was most of the
  // garbage an apptown step made (issue #16).
  const wanted = new Set(ids);
  const found = new Map<number, Song>();
  for (const s of world.data['music.songs']) if (wanted.has(s.id)) found.set(s.id, s);
  return ids.flatMap((id) => found.get(id) ?? []);
}

export function playlistView(world: World, p: Playlist, withSongs: boolean) {
  const songs = songsById(world, p.song_ids);
  const total = songs.reduce((s, x) => s + x.duration_seconds, 0);
  return {
    ...p,
    song_count: songs.length,
    total_duration_seconds: total,
    ...(withSongs ? { songs: songs.map(briefs('song')) } : {}),
  };
}
