export { probe } from './probe.js';
