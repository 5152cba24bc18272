export {
  ConfigSchema,
  EndpointSchema,
  LimitParamSchema,
  ProviderNameSchema,
  ReasoningEffortSchema,
  TokenizerNameSchema,
  LocalTokenizerNameSchema,
} from './schema.js';
export type {
  Config,
  Endpoint,
  LimitParam,
  Price,
  ProviderName,
  ReasoningEffort,
  RoleConfig,
  TokenizerName,
  LocalTokenizerName,
} from './schema.js';
export { loadConfig } from './load.js';
export { DEFAULT_CONFIG_FILE } from './default-file.js';
export type { LoadConfigOptions, LoadedConfig } from './load.js';
export { configTemplate, writeConfigTemplate } from './init.js';
export { applyCompressorFlags } from './compressor-flags.js';
export type { CompressorFlags } from './compressor-flags.js';
