export { formatProgress, formatResults, formatSummary } from './format.js';
export { buildProgram, main, VERSION } from './program.js';
