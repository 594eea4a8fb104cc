/** Public API of the generate feature for the other features: queueing a generation (edit hands prompts over). */
export { generate, type GenerateAnswer, type GenerateDeps, type GenerateRequest } from './generate.js';
