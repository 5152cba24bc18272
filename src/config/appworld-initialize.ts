import { z } from 'zod';

const nullableInt = z.number().int().nullable();
const acon = (key: string) =>
  z
    .never({ error: `acon sets ${key} itself (appworld.experiment_prefix names experiments)` })
    .optional()
    .describe(`set by acon; not allowed here`);
/** One AppWorld option: optional (the server's default applies), described with that default. */
const option = <T extends z.ZodType>(type: T, appworldDefault: string, what: string) =>
  type.optional().describe(`${what} (AppWorld's default: ${appworldDefault})`);
/** Options AppWorld keeps for checking its own solutions; not for model runs. */
const testingOnly = (appworldDefault: string) =>
  option(
    z.boolean(),
    appworldDefault,
    "AppWorld's own solution checks only; leave unset for models",
  );

/**
 * The `/initialize` options of AppWorld's environment server (`AppWorldInitDefaults` in
 * `appworld/environment.py`), all optional: the server's defaults apply to what is left out.
 */
export const AppWorldInitializeSchema = z.strictObject({
  task_id: acon('task_id'),
  experiment_name: acon('experiment_name'),
  remote_apis_url: option(z.string().nullable(), 'null', 'a separate AppWorld APIs server'),
  remote_environment_url: option(z.string().nullable(), 'null', 'a further environment server'),
  remote_mcp_url: option(z.string().nullable(), 'null', "AppWorld's MCP server"),
  remote_docker: option(z.boolean(), 'false', 'run the remote servers in Docker'),
  max_interactions: option(z.number().int().positive(), '1000', 'most /execute calls per task'),
  max_api_calls_per_interaction: option(
    z.number().int().positive(),
    '1000',
    'most API calls in one /execute',
  ),
  raise_on_unsafe_syntax: option(z.boolean(), 'true', 'refuse code with unsafe syntax'),
  raise_on_unsafe_execution: option(z.boolean(), 'true', 'stop code doing unsafe things'),
  load_ground_truth: option(z.boolean(), 'true', 'load the task answers for /evaluate'),
  ground_truth_mode: option(z.string(), '"minimal"', 'how much of the ground truth to load'),
  raise_on_failure: option(z.boolean(), 'true', 'a failing API call raises in the code'),
  random_seed: option(nullableInt, '100', 'seed of the world'),
  timeout_seconds: option(
    z.number().int().positive().nullable(),
    '100',
    'per-execution time limit in seconds; null: none (acon then waits 30 min for an answer)',
  ),
  show_api_response_schemas: option(z.boolean(), 'true', 'api_docs show response schemas'),
  gc_threshold: option(nullableInt, '500000', "Python's garbage-collection threshold"),
  include_direct_functions: option(z.boolean(), 'false', 'also offer app__api functions'),
  direct_function_separator: option(z.string(), '"__"', 'separator of those functions'),
  raise_on_extra_parameters: option(z.boolean(), 'true', 'an unknown API argument is an error'),
  import_utils: testingOnly('false'),
  parse_datetimes: testingOnly('false'),
  allow_datetime_change: testingOnly('false'),
  add_login_shortcut: testingOnly('false'),
  wrap_response: testingOnly('false'),
  unwrap_response: testingOnly('false'),
  munchify_response: testingOnly('false'),
});
