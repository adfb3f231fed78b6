import type { AccountInput } from './store.js';
import { StoreError } from './store-error.js';
import { requireId } from './validation.js';

/** An id for an account created without one: the name as a slug (the store adds -2, -3… if taken). */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug === '' ? 'account' : slug;
}

/** The id a new account gets: the given one (validated), or a free slug of its name. */
export function newAccountId(input: AccountInput, name: string, exists: (id: string) => boolean): string {
  if (input.id !== undefined) {
    const id = requireId('id', input.id);
    if (exists(id)) throw new StoreError('STORE_CONFLICT', `account ${id} already exists`);
    return id;
  }
  const base = slugFromName(name);
  if (!exists(base)) return base;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!exists(id)) return id;
  }
}
