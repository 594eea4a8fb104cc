import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DomainError, invalid, notFound } from '../../platform/errors.js';
import { newUuid, nowIso } from '../../platform/ids.js';
import { hashKey, newKeySecret } from './auth.js';
import { ensureSetupLink } from './setup.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48) || 'org';

/**
 * First start on an empty database: organization "Default", its owner and an
 * API key (BOOTSTRAP_API_KEY when set, else a random one printed once and
 * written to DATA_DIR/initial-api-key, mode 0600). Later starts with
 * BOOTSTRAP_API_KEY set make sure that key exists, so an operator who lost
 * every key can get back in through the environment. Every start while the
 * owner has no password makes sure there is a setup link to set one (setup.ts).
 */
export async function bootstrap(
  deps: Pick<Services, 'config' | 'storage' | 'urls'>,
): Promise<{ created: boolean; apiKey?: string; setupLink: string | null }> {
  const accounts = deps.storage.accounts;
  if ((await accounts.countOrganizations()) > 0) {
    const wanted = deps.config.bootstrapApiKey;
    if (wanted && !(await accounts.findApiKeyByHash(hashKey(wanted)))) {
      const [org] = await accounts.listOrganizationsForUser((await accounts.getSetting('owner_user_id')) ?? '');
      if (org) await addKey(deps, org.id, (await accounts.getSetting('owner_user_id'))!, wanted, 'bootstrap key');
    }
    return { created: false, setupLink: await ensureSetupLink(deps) };
  }
  const userId = newUuid();
  await accounts.createUser({ id: userId, email: 'owner@localhost', name: 'Owner', createdAt: nowIso() });
  await accounts.setSettingIfAbsent('owner_user_id', userId);
  const org = await accounts.createOrganization({ id: newUuid(), name: 'Default', slug: 'default' }, userId);
  const secret = deps.config.bootstrapApiKey ?? newKeySecret();
  await addKey(deps, org.id, userId, secret, 'initial key');
  if (!deps.config.bootstrapApiKey) {
    const file = path.join(deps.config.dataDir, 'initial-api-key');
    await writeFile(file, secret + '\n', { mode: 0o600 });
    await chmod(file, 0o600);
    // Printed once, on the very first start, so the operator can copy it.
    process.stdout.write(`\nInitial API key (also in ${file}):\n\n  ${secret}\n\n`);
  }
  return { created: true, apiKey: secret, setupLink: await ensureSetupLink(deps) };
}

async function addKey(
  deps: Pick<Services, 'storage'>,
  organizationId: string,
  userId: string,
  secret: string,
  name: string,
) {
  await deps.storage.accounts.createApiKey({
    id: newUuid(),
    organizationId,
    userId,
    name,
    role: 'owner',
    keyHash: hashKey(secret),
    prefix: secret.slice(0, 8),
    createdAt: nowIso(),
    revokedAt: null,
  });
}

export async function createOrganization(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  input: { name: string; slug?: string },
) {
  // The new organization is reached through keys this key mints there, and minting keys takes admin.
  requireRole(principal, 'admin');
  const name = input.name.trim();
  if (!name) throw invalid('name must not be empty');
  const slug = input.slug ? input.slug.trim().toLowerCase() : slugify(name);
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) throw invalid('slug may hold lowercase letters, digits and hyphens');
  const create = (s: string) =>
    deps.storage.accounts.createOrganization(
      { id: newUuid(), name, slug: s, createdByKeyId: principal.keyId },
      principal.userId,
    );
  // A slug taken (or taken by a racing request: the store refuses it in its transaction) is the caller's conflict
  // when they chose it; one made from the name gets a random suffix instead.
  const org = await create(slug).catch((err: unknown) => {
    if (input.slug || !(err instanceof DomainError && err.code === 'conflict')) throw err;
    return create(`${slug}-${newUuid().slice(0, 6)}`);
  });
  return { organization: { id: org.id, name: org.name, slug: org.slug } };
}

export async function me(deps: Pick<Services, 'storage'>, principal: Principal) {
  const [user, org] = await Promise.all([
    deps.storage.accounts.getUser(principal.userId),
    deps.storage.accounts.getOrganization(principal.organizationId),
  ]);
  if (!user || !org) throw notFound('account not found');
  return {
    userId: user.id,
    email: user.email,
    name: user.name,
    organizationId: org.id,
    organizationName: org.name,
    role: principal.role,
    storageBytes: org.storageBytes,
  };
}

export async function listOrganizations(deps: Pick<Services, 'storage'>, principal: Principal) {
  const orgs = await deps.storage.accounts.listOrganizationsForUser(principal.userId);
  return orgs.map((o) => ({ id: o.id, name: o.name, slug: o.slug, role: o.role }));
}
