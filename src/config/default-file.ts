/** The config file read when --config is not given, and the one `acon init` writes. */
export const DEFAULT_CONFIG_FILE = 'acon.config.yaml';
