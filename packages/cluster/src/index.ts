export { HashRing } from './hash-ring.js';
