export { renderPrompt, unresolvedPlaceholders } from './template.js';
