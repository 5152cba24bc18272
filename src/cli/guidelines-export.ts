import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from './usage-error.js';
import { EXPORT_TARGETS, EXPORT_TARGET_NAMES } from '../runtime/catalog.js';

const TARGET_HELP = Object.entries(EXPORT_TARGETS)
  .map(([name, what]) => `  ${name.padEnd(10)} ${what}`)
  .join('\n');

/** `acon guidelines export VERSION --to TARGET`: a learned guideline for another framework. */
export function registerGuidelinesExport(group: Command, out: (text: string) => void): void {
  group
    .command('export')
    .description("a learned guideline as another framework's summary/compaction prompt")
    .argument('[versions]', 'versions, e.g. hist@3 or obs@2,hist@active', 'active')
    .requiredOption('--to <target>', `one of ${EXPORT_TARGET_NAMES.join(', ')}`)
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--dir <dir>', 'guideline directory', 'guidelines')
    .addHelpText(
      'after',
      `
Targets:
${TARGET_HELP}

Examples:
  $ acon guidelines export hist@active --to langchain > summary-prompt.txt
  $ acon guidelines export obs@3,hist@3 --to text --out guidelines.txt`,
    )
    .action(async (versions: string, opts: { to: string; out?: string; dir: string }) => {
      const { resolveGuidelinePair } = await import('../guidelines/index.js');
      const { GuidelineStore } = await import('../guidelines/index.js');
      const { ExportTargetSchema, exportGuidelines } = await import('../runtime/index.js');
      const target = ExportTargetSchema.safeParse(opts.to);
      if (!target.success) {
        throw new UsageError(
          `--to must be one of ${EXPORT_TARGET_NAMES.join(', ')}, got "${opts.to}"`,
        );
      }
      const pair = await resolveGuidelinePair(versions, new GuidelineStore({ dir: opts.dir }));
      const text = exportGuidelines(target.data, pair);
      if (opts.out) writeFileSync(opts.out, text);
      else out(text);
    });
}
