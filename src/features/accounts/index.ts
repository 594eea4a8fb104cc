/** Public API of the accounts feature for the request edge and the composition root. */
export { authenticate, hashKey } from './auth.js';
export { bootstrap } from './organizations.js';
// For share links (features/share): their passwords hash as users' do; their limits count per client address.
export { hashPassword, verifyPassword, PASSWORD_MAX_LENGTH } from './passwords.js';
export { clientAddress, createRateLimiter } from './guards.js';
