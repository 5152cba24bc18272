export {
  TraceOptimizeParamsSchema,
  optimizeFromTraces,
  TraceOptimizeResultSchema,
} from './trace-optimize.js';
export type { TraceOptimizeParams, TraceOptimizeResult } from './trace-optimize.js';
export { OptimizeParamsSchema, PhaseSchema } from './params.js';
export type { OptimizeParams } from './params.js';
export { optimize, OptimizeResultSchema } from './optimize.js';
export { formatPlan, OptimizePlanSchema } from './plan.js';
export { DEFAULT_DECISION } from './decision-rule.js';
export type { OptimizeResult } from './optimize.js';
