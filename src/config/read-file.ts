import { lstatSync, readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';

/**
 * The config file's text, or null when no file is there. A folder, a symlink loop or a file that
 * cannot be read is a ConfigError naming the path and the fix (issue #60: `mkdir acon.config.yaml`
 * gave "EISDIR: illegal operation on a directory, read", naming no file). `read` is injectable
 * because tests run as root, for whom no permission makes a file unreadable.
 */
export function readConfigText(
  file: string,
  read: (file: string) => string = (f) => readFileSync(f, 'utf8'),
): string | null {
  // lstat, not exists: a symlink loop or a dangling link "does not exist" for existsSync, and
  // the default file would then be skipped silently instead of reported.
  try {
    lstatSync(file);
  } catch {
    return null;
  }
  try {
    return read(file);
  } catch (err) {
    // The fixes name loadConfig's `file` option (the CLI's --config).
    throw new ConfigError(file, '(file)', fixFor(err), { cause: err, options: ['file'] });
  }
}

function fixFor(err: unknown): string {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const what = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  switch (code) {
    case 'EISDIR':
      return 'is a folder, not a config file; name the YAML file as `file` (e.g. path/acon.config.yaml) or remove the folder';
    case 'ELOOP':
      return 'is a symbolic link that points back to itself (a loop); point the link to a real file or remove it';
    case 'ENOENT':
      return 'is a symbolic link to a file that does not exist; point it to the config file or remove it';
    case 'EACCES':
    case 'EPERM':
      return `cannot be read (${what}); make it readable (chmod u+r) or pass another file with \`file\``;
    default:
      return `cannot be read (${what}); fix the file or pass another one with \`file\``;
  }
}
