import type { Command } from 'commander';
import { DEFAULT_CONFIG_FILE } from '../config/catalog.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('write a commented acon.config.yaml with every setting and its default')
    .option('--force', 'overwrite an existing file')
    .option('-o, --out <file>', 'where to write it', DEFAULT_CONFIG_FILE)
    .addHelpText(
      'after',
      `
Examples:
  $ acon init
  $ acon init --out configs/qwen.yaml --force`,
    )
    .action(async (opts: { force?: boolean; out: string }) => {
      const { writeConfigTemplate } = await import('../config/index.js');
      writeConfigTemplate(opts.out, opts.force ?? false);
      process.stdout.write(
        `wrote ${opts.out}: provider sim (offline); set provider: openai and a model to use a real LLM\n`,
      );
    });
}
