// The records every layer shares (ARCHITECTURE §2); each file holds one record and imports only zod.
export * from './compression-analysis.js';
export * from './compression-event.js';
export * from './evaluation.js';
export * from './guideline-text.js';
export * from './guideline-update.js';
export * from './infra-failure.js';
export * from './message.js';
export * from './rollout-metrics.js';
export * from './step.js';
export * from './trajectory.js';
export * from './utility-analysis.js';
export * from './trace.js';
export * from './replay-metrics.js';
export * from './condition-metrics.js';
export * from './provenance.js';
