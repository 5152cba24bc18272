import { z } from 'zod';
import {
  deleteRowApi,
  showRowApi,
  ApiError,
  defineApi,
  findOr404,
  matches,
  pageArgs,
  pageShape,
  paginate,
  type App,
  searchApi,
} from '../api.js';
import type { FileEntry } from '../records.js';
import type { World } from '../world.js';
import { loginApi } from './auth.js';
import { brief } from './brief.js';

const FILE_ID = z.number().int().describe('Id of the file.');

/** Listings leave the content out, and the owner and sharing (brief.ts); show_file returns them. */
function meta(f: FileEntry) {
  const { content: _content, ...rest } = f;
  return brief('file', rest);
}

function normalizePath(p: string): string {
  const clean = `/${p}`.replace(/\/+/g, '/').replace(/\/$/, '');
  return clean === '' ? '/' : clean;
}

function splitPath(path: string): { directory: string; name: string } {
  const i = path.lastIndexOf('/');
  return { directory: i <= 0 ? '/' : path.slice(0, i), name: path.slice(i + 1) };
}

function assertFree(world: World, path: string) {
  if (world.data['files.files'].some((f) => f.path === path)) {
    throw new ApiError(409, `A file already exists at '${path}'.`);
  }
}

const MIME_BY_EXT: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
};

export const filesApp: App = {
  name: 'files',
  description:
    'A cloud file storage app with folders: browse, search, read, create, move and delete files.',
  apis: [
    loginApi('files'),
    defineApi({
      name: 'show_directory',
      description:
        'List the folders and files directly inside a folder (files without their content).',
      args: {
        directory_path: z
          .string()
          .default('/')
          .describe('Absolute folder path, e.g. /Documents/Taxes.'),
        ...pageArgs,
      },
      returns: pageShape('files.files', (f) => ({ type: 'file', ...meta(f) })),
      handler: ({ world }, a) => {
        const dir = normalizePath(a.directory_path);
        const prefix = dir === '/' ? '/' : `${dir}/`;
        const subdirs = new Map<string, number>();
        const files: unknown[] = [];
        for (const f of world.data['files.files']) {
          if (!f.path.startsWith(prefix)) continue;
          const rest = f.path.slice(prefix.length);
          const slash = rest.indexOf('/');
          if (slash < 0) files.push({ type: 'file', ...meta(f) });
          else subdirs.set(rest.slice(0, slash), (subdirs.get(rest.slice(0, slash)) ?? 0) + 1);
        }
        if (files.length === 0 && subdirs.size === 0 && dir !== '/') {
          throw new ApiError(404, `No folder at '${dir}'.`);
        }
        const folders = [...subdirs].sort().map(([name, count]) => ({
          type: 'directory',
          name,
          path: `${prefix}${name}`,
          item_count: count,
        }));
        return { directory_path: dir, ...paginate([...folders, ...files], a) };
      },
    }),
    searchApi({
      name: 'search_files',
      description:
        'Search all files by name, with optional type and size filters (files without their content).',
      table: 'files.files',
      filters: {
        query: z.string().optional().describe('Text to look for in the file name or path.'),
        mime_type: z
          .string()
          .optional()
          .describe('Only files of this MIME type, e.g. application/pdf.'),
        min_size_bytes: z.number().int().optional().describe('Only files at least this large.'),
      },
      sortFields: ['name', 'size_bytes', 'created_at', 'modified_at'],
      where: (a) => (f) =>
        matches(a.query, f.name, f.path) &&
        (!a.mime_type || f.mime_type === a.mime_type) &&
        (a.min_size_bytes === undefined || f.size_bytes >= a.min_size_bytes),
      view: meta,
    }),
    showRowApi({
      name: 'show_file',
      description: 'Show one file with its full content.',
      table: 'files.files',
      id: { file_id: FILE_ID },
      what: 'File',
    }),
    defineApi({
      name: 'create_file',
      description: 'Create a text file at a path; missing folders are created.',
      args: {
        file_path: z
          .string()
          .min(2)
          .describe('Absolute path of the new file, e.g. /Documents/plan.txt.'),
        content: z.string().describe('Text content.'),
      },
      returns: { message: 'string', file_id: 'integer' },
      handler: ({ world }, a) => {
        const path = normalizePath(a.file_path);
        assertFree(world, path);
        const { directory, name } = splitPath(path);
        const now = world.now();
        const s = world.supervisor;
        const f = world.insert('files.files', {
          path,
          name,
          directory,
          mime_type: MIME_BY_EXT[name.split('.').pop() ?? ''] ?? 'text/plain',
          size_bytes: Buffer.byteLength(a.content),
          content: a.content,
          owner: { name: `${s.first_name} ${s.last_name}`, email: s.email },
          shared_with: [],
          created_at: now,
          modified_at: now,
        });
        return { message: `Created ${path}.`, file_id: f.id };
      },
    }),
    defineApi({
      name: 'move_file',
      description:
        'Move or rename a file. The destination is a full file path, or a folder path ending in "/".',
      args: {
        file_id: FILE_ID,
        destination_path: z
          .string()
          .min(1)
          .describe('New path, e.g. /Documents/Taxes/ or /Documents/Taxes/w2.pdf.'),
      },
      returns: { message: 'string', path: 'string' },
      handler: ({ world }, a) => {
        const f = findOr404(world.data['files.files'], a.file_id, 'File');
        const path = a.destination_path.endsWith('/')
          ? normalizePath(`${a.destination_path}${f.name}`)
          : normalizePath(a.destination_path);
        if (path === f.path)
          throw new ApiError(422, 'destination_path: the file is already there.');
        assertFree(world, path);
        Object.assign(f, { path, ...splitPath(path), modified_at: world.now() });
        return { message: `Moved to ${path}.`, path };
      },
    }),
    deleteRowApi({
      name: 'delete_file',
      description: 'Delete a file.',
      table: 'files.files',
      id: { file_id: FILE_ID },
      what: 'File',
      deleted: (f) => `Deleted ${f.path}.`,
    }),
  ],
};
