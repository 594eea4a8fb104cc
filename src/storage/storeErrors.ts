import { conflict, type DomainError } from '../platform/errors.js';

/** The error both engines give for a slug another organization already has. */
export const slugTaken = (slug: string): DomainError => conflict(`slug "${slug}" is taken`);
