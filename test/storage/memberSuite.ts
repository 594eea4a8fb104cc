/**
 * Part of the storage contract (run by ./sqlite.test.ts and ./postgres.test.ts beside ./suite.ts): an
 * organization's members (issue #28's people screen): the list with latest activity, role changes and removal,
 * which never leave an organization without an owner and end the removed member's keys and sessions at once.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newUuid, nowIso } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { Role } from '../../src/storage/types.js';

export function memberSuite(name: string, open: () => Promise<Storage>): void {
  const test = suite(`storage (members): ${name}`);
  let s: Storage;
  let ownerId: string;
  let orgId: string;

  /** A new user who joined the organization through an invite with `role`. */
  async function join(role: Role): Promise<string> {
    const id = newUuid();
    const invite = {
      id: newUuid(),
      organizationId: orgId,
      email: `${id}@example.com`,
      role,
      tokenHash: newUuid(),
      invitedBy: ownerId,
      createdAt: nowIso(),
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
    };
    await s.invites.create(invite);
    const user = { id, email: invite.email, name: 'N', createdAt: nowIso() };
    assert.ok(await s.invites.accept(invite.id, nowIso(), { userId: id, newUser: { user, passwordHash: 'x' } }));
    return id;
  }

  test.before.each(async () => {
    s = await open();
    ownerId = newUuid();
    await s.accounts.createUser({ id: ownerId, email: `o-${ownerId}@example.com`, name: 'O', createdAt: nowIso() });
    orgId = newUuid();
    await s.accounts.createOrganization({ id: orgId, name: 'Org', slug: `org-${orgId.slice(0, 8)}` }, ownerId);
  });
  test.after.each(async () => s.close());

  test('listMembers: every member with role, join time and latest session and key activity', async () => {
    const viewer = await join('viewer');
    const at = new Date(Date.now() - 5_000).toISOString();
    await s.sessions.create({
      id: newUuid(),
      userId: viewer,
      organizationId: orgId,
      secretHash: newUuid(),
      csrfToken: 'c',
      createdAt: at,
      lastSeenAt: at,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      revokedAt: null,
      userAgent: null,
      ip: null,
    });
    const keyId = newUuid();
    await s.accounts.createApiKey({
      id: keyId,
      organizationId: orgId,
      userId: ownerId,
      name: 'k',
      role: 'owner',
      keyHash: newUuid(),
      prefix: 'mlk_',
      createdAt: nowIso(),
      revokedAt: null,
    });
    assert.is((await s.accounts.getApiKey(keyId))!.lastUsedAt ?? null, null);
    const used = nowIso();
    await s.accounts.touchApiKey(keyId, used);
    assert.is((await s.accounts.getApiKey(keyId))!.lastUsedAt, used);
    await s.accounts.renameApiKey(keyId, 'renamed');
    assert.is((await s.accounts.getApiKey(keyId))!.name, 'renamed');
    const members = await s.accounts.listMembers(orgId);
    // In join order; the owner and the viewer may join in the same millisecond, so compare by role.
    const byRole = [...members].sort((a, b) => a.role.localeCompare(b.role));
    assert.equal(
      byRole.map((m) => [m.user.id, m.role, m.lastSeenAt, m.keyLastUsedAt]),
      [
        [ownerId, 'owner', null, used],
        [viewer, 'viewer', at, null],
      ],
    );
    assert.ok(members[0].joinedAt <= members[1].joinedAt);
    assert.equal(await s.accounts.listMembers(newUuid()), []);
  });

  test('setMemberRole: changes a role; never demotes the last owner; not_member for a stranger', async () => {
    const other = await join('member');
    assert.is(await s.accounts.setMemberRole(orgId, other, 'admin'), 'ok');
    assert.is(await s.accounts.getMembershipRole(orgId, other), 'admin');
    assert.is(await s.accounts.setMemberRole(orgId, ownerId, 'admin'), 'last_owner');
    assert.is(await s.accounts.getMembershipRole(orgId, ownerId), 'owner');
    assert.is(await s.accounts.setMemberRole(orgId, ownerId, 'owner'), 'ok', 'an owner staying owner is fine');
    assert.is(await s.accounts.setMemberRole(orgId, newUuid(), 'viewer'), 'not_member');
    assert.is(await s.accounts.setMemberRole(orgId, other, 'owner'), 'ok');
    assert.is(await s.accounts.setMemberRole(orgId, ownerId, 'viewer'), 'ok', 'another owner remains');
    assert.is(await s.accounts.setMemberRole(orgId, other, 'member'), 'last_owner');
  });

  test('two owners demoting each other at once: one wins, an owner remains', async () => {
    const other = await join('owner');
    const results = await Promise.all([
      s.accounts.setMemberRole(orgId, ownerId, 'admin'),
      s.accounts.setMemberRole(orgId, other, 'admin'),
    ]);
    assert.equal(results.sort(), ['last_owner', 'ok']);
    const owners = (await s.accounts.listMembers(orgId)).filter((m) => m.role === 'owner');
    assert.is(owners.length, 1);
  });

  test("removeMember: the membership goes, the member's keys and sessions there end; the last owner stays", async () => {
    const member = await join('member');
    const sessionId = newUuid();
    const future = new Date(Date.now() + 86_400_000).toISOString();
    await s.sessions.create({
      id: sessionId,
      userId: member,
      organizationId: orgId,
      secretHash: `h-${sessionId}`,
      csrfToken: 'c',
      createdAt: nowIso(),
      lastSeenAt: nowIso(),
      expiresAt: future,
      revokedAt: null,
      userAgent: null,
      ip: null,
    });
    const keyHash = `k-${newUuid()}`;
    await s.accounts.createApiKey({
      id: newUuid(),
      organizationId: orgId,
      userId: member,
      name: 'k',
      role: 'member',
      keyHash,
      prefix: 'mlk_',
      createdAt: nowIso(),
      revokedAt: null,
    });
    assert.is(await s.accounts.removeMember(orgId, ownerId, nowIso()), 'last_owner');
    assert.is(await s.accounts.removeMember(orgId, member, nowIso()), 'ok');
    assert.is(await s.accounts.getMembershipRole(orgId, member), null);
    assert.is(await s.accounts.findApiKeyByHash(keyHash), null, 'the key is revoked');
    assert.is(await s.sessions.findLive(`h-${sessionId}`, nowIso(), new Date(0).toISOString()), null);
    assert.is(await s.accounts.removeMember(orgId, member, nowIso()), 'not_member');
    assert.equal(
      (await s.accounts.listMembers(orgId)).map((m) => m.user.id),
      [ownerId],
    );
  });

  test.run();
}
