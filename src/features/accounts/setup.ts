import { randomBytes } from 'node:crypto';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { conflict, forbidden } from '../../platform/errors.js';
import { hashKey } from './auth.js';
import { firstOrganizationId } from './memberships.js';
import { hashPassword, normalizeEmail, requireNewPassword } from './passwords.js';
import { startSession, type ClientInfo, type SignedIn } from './sessions.js';
import type { Services } from '../kernel/services.js';

/** The setting that holds the sha256 of the unused setup token (the token itself is only in the link). */
const SETUP_SETTING = 'setup_token_hash';
const OWNER_SETTING = 'owner_user_id';
const linkFile = (dataDir: string) => path.join(dataDir, 'setup-link');
const tokenOf = (link: string) => /[?&]token=([A-Za-z0-9_-]{43})(?:&|$)/.exec(link.trim())?.[1];

/**
 * At every start while the owner has no password: a one-time setup link (`<origin>/setup?token=…`) in
 * DATA_DIR/setup-link (mode 0600) and on stdout, unless LOG_LEVEL is silent. The token stays the same across
 * restarts while the file still holds it (only its hash is in the database); a new one replaces it when the
 * file is gone. Once the owner has a password the link and its hash are removed. Returns the link or null.
 */
export async function ensureSetupLink(deps: Pick<Services, 'config' | 'storage' | 'urls'>): Promise<string | null> {
  const accounts = deps.storage.accounts;
  const file = linkFile(deps.config.dataDir);
  const ownerId = await accounts.getSetting(OWNER_SETTING);
  if (!ownerId || (await accounts.getPasswordHash(ownerId)) !== null) {
    await accounts.deleteSetting(SETUP_SETTING);
    await rm(file, { force: true });
    return null;
  }
  const stored = await accounts.getSetting(SETUP_SETTING);
  const previous = tokenOf(await readFile(file, 'utf8').catch(() => ''));
  let token = previous && stored === hashKey(previous) ? previous : undefined;
  if (!token) {
    token = randomBytes(32).toString('base64url');
    await accounts.setSetting(SETUP_SETTING, hashKey(token));
  }
  const link = `${deps.urls.origin()}/setup?token=${token}`;
  await writeFile(file, link + '\n', { mode: 0o600 });
  await chmod(file, 0o600);
  if (deps.config.logLevel !== 'silent') process.stdout.write(setupMessage(link, file, deps.config.publicUrl));
  return link;
}

/**
 * The lines printed at start: the link, and without PUBLIC_URL a word that its host part is a placeholder. The
 * server cannot know the address a browser reaches it by (a mapped port, another machine, a proxy), so it names
 * localhost and says to put the server's address in its place (issue #29: the link looked right and was not).
 */
export function setupMessage(link: string, file: string, publicUrl: string | undefined): string {
  const head = `\nSet the owner's email and password to sign in (also in ${file}):\n\n  ${link}\n\n`;
  if (publicUrl) return head;
  const { host } = new URL(link);
  return (
    head +
    `PUBLIC_URL is not set, so the link says ${host}: open it with this server's address as your browser reaches ` +
    `it in place of ${host} (e.g. the machine's name or IP, and the host port Docker maps), or set PUBLIC_URL ` +
    `to that address and start again.\n\n`
  );
}

/**
 * POST /api/auth/setup: the setup link's page sets the owner's email, password and name, and is signed in.
 * The token is taken atomically, so of two racing requests one wins; after that it is gone for good.
 */
export async function completeSetup(
  deps: Pick<Services, 'config' | 'storage'>,
  input: { token: string; email: string; password: string; name?: string },
  client: ClientInfo,
): Promise<SignedIn> {
  const accounts = deps.storage.accounts;
  const tokenHash = hashKey(input.token);
  const ownerId = await accounts.getSetting(OWNER_SETTING);
  const refused = () => forbidden('this setup link is not valid: it was used already or replaced');
  if (!ownerId || (await accounts.getSetting(SETUP_SETTING)) !== tokenHash) throw refused();
  const email = normalizeEmail(input.email);
  requireNewPassword(input.password);
  const holder = await accounts.findCredentials(email);
  if (holder && holder.user.id !== ownerId) throw conflict('another account has this email');
  const passwordHash = await hashPassword(input.password);
  if (!(await accounts.takeSetting(SETUP_SETTING, tokenHash))) throw refused();
  const name = input.name?.trim();
  await accounts.updateUser(ownerId, { email, passwordHash, ...(name ? { name } : {}) });
  await rm(linkFile(deps.config.dataDir), { force: true });
  return startSession(deps, ownerId, await firstOrganizationId(deps, ownerId), client);
}
