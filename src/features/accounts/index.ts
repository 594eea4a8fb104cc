/** Public API of the accounts feature for the request edge and the composition root. */
export { authenticate, hashKey } from './auth.js';
export { bootstrap } from './organizations.js';
