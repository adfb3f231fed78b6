/**
 * What a function that can refuse its input returns: the value, or why not. One shape for the
 * whole library, so that callers branch on `ok` the same way everywhere.
 */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** The success of a {@link Result}. */
export const ok = <T>(value: T): { readonly ok: true; readonly value: T } => ({ ok: true, value });
/** The failure of a {@link Result}: why not. */
export const err = <E>(error: E): { readonly ok: false; readonly error: E } => ({ ok: false, error });
