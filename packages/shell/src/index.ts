export { buildProgram, main, VERSION } from './program.js';
export { formatProgress, formatResults, formatSummary } from './format.js';
