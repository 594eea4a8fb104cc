import type { Context } from 'koa';
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { clearSessionCookie, CSRF_HEADER, readSessionCookie, setSessionCookie } from '../../http/sessionCookie.js';
import { clientAddress } from './guards.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.js';
import {
  currentSession,
  endSession,
  listSessions,
  signOut,
  switchOrganization,
  type ClientInfo,
  type SignedIn,
} from './sessions.js';
import { completeSetup } from './setup.js';
import { changePassword, signIn } from './signIn.js';

/** A password as sign-in takes it: anything up to the maximum (the length rule is for new passwords). */
export const signInPassword = z.string().min(1).max(PASSWORD_MAX_LENGTH);
/** A new password: the same rule in setup, invites and changes. */
export const newPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `at most ${PASSWORD_MAX_LENGTH} characters`);
const email = z.string().max(320);
const token = z.string().max(200);

/** Where a sign-in comes from, and the session cookie the browser had (rotated away). */
export const clientOf = (ctx: Context): ClientInfo => ({
  ip: clientAddress(ctx),
  userAgent: ctx.get('user-agent') || null,
  previousSecret: readSessionCookie(ctx),
});

/** Sets the new session's cookie and answers the session body. */
export function signedInReply(ctx: Context, signedIn: SignedIn) {
  setSessionCookie(ctx, signedIn.secret, signedIn.expiresAt);
  return signedIn.body;
}

const SESSION_BODY = 'signed in: {user, organizationId, role, organizations, csrfToken}; sets the lumen_session cookie';

/** Signing in and out, the signed-in session, its organization, password and other sessions. */
export const sessionRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/auth/login',
    tag: 'sign-in',
    summary: 'Sign in with email and password: a new session cookie (the old one presented is ended)',
    auth: 'none',
    body: z.object({ email, password: signInPassword }),
    responses: { 200: SESSION_BODY, 401: 'wrong email or password', 429: 'too many failures for this email' },
    handle: async ({ services, body, ctx }) => signedInReply(ctx, await signIn(services, body, clientOf(ctx))),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/logout',
    tag: 'sign-in',
    summary: `End the cookie's session (needs ${CSRF_HEADER} while it is live) and clear the cookie`,
    auth: 'none',
    responses: { 204: 'signed out (also when the session had ended already)', 403: 'missing or wrong csrf token' },
    handle: async ({ services, ctx }) => {
      await signOut(services, readSessionCookie(ctx), ctx.get(CSRF_HEADER) || undefined);
      clearSessionCookie(ctx);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/setup',
    tag: 'sign-in',
    summary: "First start: the setup link's token sets the owner's email and password, and signs in",
    auth: 'none',
    body: z.object({ token, email, password: newPassword, name: z.string().max(200).optional() }),
    responses: { 200: SESSION_BODY, 403: 'token not valid (used or replaced)', 409: 'email taken' },
    handle: async ({ services, body, ctx }) => signedInReply(ctx, await completeSetup(services, body, clientOf(ctx))),
  }),
  defineRoute({
    method: 'get',
    path: '/api/auth/session',
    tag: 'sign-in',
    summary: 'The signed-in session: the sign-in body again, with the csrf token (401 when not signed in)',
    responses: { 403: 'called with an API key or token, not a session' },
    handle: ({ services, principal }) => currentSession(services, principal),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/session/organization',
    tag: 'sign-in',
    summary: 'Switch the session to another organization of the user',
    body: z.object({ organizationId: z.string().max(64) }),
    responses: { 403: 'not a member', 404: 'no such organization' },
    handle: ({ services, principal, body }) => switchOrganization(services, principal, body.organizationId),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/password',
    tag: 'sign-in',
    summary: "Change the signed-in user's password; ends their other sessions",
    body: z.object({ currentPassword: signInPassword, newPassword }),
    responses: { 204: 'changed', 403: 'current password wrong', 429: 'too many failures' },
    handle: ({ services, principal, body }) => changePassword(services, principal, body),
  }),
  defineRoute({
    method: 'get',
    path: '/api/auth/sessions',
    tag: 'sign-in',
    summary: "The signed-in user's live sessions (`current` marks this one)",
    handle: async ({ services, principal }) => ({ sessions: await listSessions(services, principal) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/auth/sessions/:sessionId',
    tag: 'sign-in',
    summary: "End one of the signed-in user's sessions",
    params: z.object({ sessionId: z.string().max(64) }),
    responses: { 204: 'ended', 404: 'no such session of yours' },
    handle: async ({ services, principal, params, ctx }) => {
      await endSession(services, principal, params.sessionId);
      if (params.sessionId === principal.sessionId) clearSessionCookie(ctx);
    },
  }),
];
