import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BenchmarkError } from '../../errors.js';
import type { ResolvedServer } from './connection.js';
import type { ServerSpec } from './task-schema.js';

/** What `${…}` placeholders of a task file stand for in one rollout (task-schema.ts). */
export type PlaceholderScope = {
  workdir: string;
  memoryFile: string;
  /** The task file, so `${package:…}` finds packages of the user's project first. */
  taskFile: string;
  env: NodeJS.ProcessEnv;
};

const PLACEHOLDER = /\$\{([a-z_]+)(?::([^}]+))?\}/g;

export function resolvePlaceholders(text: string, scope: PlaceholderScope): string {
  return text.replace(PLACEHOLDER, (whole, kind: string, arg: string | undefined) => {
    switch (kind) {
      case 'workdir':
        return scope.workdir;
      case 'memory_file':
        return scope.memoryFile;
      case 'task_dir':
        return dirname(scope.taskFile);
      case 'node':
        return process.execPath;
      case 'package':
        return packageBin(arg ?? '', scope.taskFile);
      case 'env': {
        const value = scope.env[arg ?? ''];
        if (value === undefined) {
          throw new BenchmarkError(
            `${scope.taskFile}: ${whole} names an environment variable that is not set; set ${arg} or change the task's servers`,
          );
        }
        return value;
      }
      default:
        throw new BenchmarkError(
          `${scope.taskFile}: unknown placeholder ${whole}; use \${workdir}, \${memory_file}, \${task_dir}, \${node}, \${package:NAME} or \${env:VAR}`,
        );
    }
  });
}

/**
 * The bin script of an installed npm package (`${package:@modelcontextprotocol/server-memory}`),
 * looked up from the task file's folder, then from acon's own dependencies: servers start from
 * what `npm ci` installed, with no download at run time.
 */
export function packageBin(name: string, taskFile: string): string {
  const [pkg, binName] = name.split('#') as [string, string | undefined];
  let manifest: string | undefined;
  for (const from of [taskFile, import.meta.url]) {
    try {
      manifest = createRequire(from).resolve(`${pkg}/package.json`);
      break;
    } catch {
      // try the next place
    }
  }
  if (manifest === undefined) {
    throw new BenchmarkError(
      `${taskFile}: \${package:${name}}: the package ${pkg} is not installed; install it (npm install ${pkg}) or start the server with its own command`,
    );
  }
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const script =
    typeof bin === 'string' ? bin : bin && (binName ? bin[binName] : Object.values(bin)[0]);
  if (!script) {
    throw new BenchmarkError(
      `${taskFile}: the package ${pkg} has no bin${binName ? ` ${binName}` : ''} to start`,
    );
  }
  return join(dirname(manifest), script);
}

export function resolveServer(spec: ServerSpec, scope: PlaceholderScope): ResolvedServer {
  const r = (s: string) => resolvePlaceholders(s, scope);
  const map = (o: Record<string, string>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, r(v)]));
  if ('url' in spec) return { kind: 'http', url: r(spec.url), headers: map(spec.headers) };
  return {
    kind: 'stdio',
    command: r(spec.command),
    args: spec.args.map(r),
    env: map(spec.env),
    cwd: spec.cwd ? r(spec.cwd) : scope.workdir,
  };
}
