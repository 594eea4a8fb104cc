import { randomUUID } from 'node:crypto';
import { invalid } from './errors.js';

/** Media and folder ids: a UUID without hyphens (32 lowercase hex characters). */
export const newMediaId = (): string => randomUUID().replace(/-/g, '');
/** Organization, collection, user and key ids: a UUID with hyphens. */
export const newUuid = (): string => randomUUID();

const HEX32 = /^[0-9a-f]{32}$/;

/** Accepts a UUID with or without hyphens (any case) and returns the hyphenated lowercase form, or null. */
export function parseUuid(input: string): string | null {
  const hex = input.toLowerCase().replace(/-/g, '');
  if (!HEX32.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Like parseUuid but throws a 400-mapped error naming the field. */
export function requireUuid(input: string, field: string): string {
  const id = parseUuid(input);
  if (!id) throw invalid(`${field} must be a UUID (with or without hyphens)`);
  return id;
}

/** The collection's id as it appears as the first label of every ltree path. */
export const pathLabel = (uuid: string): string => uuid.replace(/-/g, '').toLowerCase();

export const isMediaId = (s: string): boolean => HEX32.test(s);

/** Ltree-style path: dot-separated 32-hex labels. */
export const isLtreePath = (s: string): boolean => /^[0-9a-f]{32}(\.[0-9a-f]{32})*$/.test(s);

/** ISO 8601 with milliseconds, UTC. */
export const nowIso = (): string => new Date().toISOString();
