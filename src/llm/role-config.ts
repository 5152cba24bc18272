import type { Config, RoleConfig } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { LLM_ROLES, type LlmRole } from './types.js';

/**
 * A role's settings. The five ACON roles always have them; `judge` only when `roles.judge` is
 * configured, and a judge call without it is a config error that says what to set (callers
 * check `configuredRoles` first, so this only fires on a caller's mistake).
 */
export function roleConfig(config: Config, role: LlmRole): RoleConfig {
  const r = config.roles[role];
  if (r === undefined) {
    throw new ConfigError(
      'acon.config.yaml',
      `roles.${role}`,
      `is not configured; set roles.${role}.model (and its provider and endpoint) to use it`,
    );
  }
  return r;
}

/** The roles this config can call: the five, and `judge` when it is configured. */
export function configuredRoles(config: Config): LlmRole[] {
  return config.roles.judge === undefined ? [...LLM_ROLES] : [...LLM_ROLES, 'judge'];
}
