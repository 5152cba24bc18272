// The report's defaults that `acon report --help` states, without loading the renderers: this
// file and what it imports import no package and no other folder (test/architecture.test.ts).
export { DEFAULT_MAX_TRAJECTORIES } from './html/embedded-rollouts.js';
