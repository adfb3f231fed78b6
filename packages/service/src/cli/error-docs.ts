/**
 * Where the CLI's error envelopes point (`docs_url`): the error reference shipped in the
 * package, which exists wherever the CLI runs, unlike a server that may not be running.
 */
export const LOCAL_DOCS_URL = new URL('../../docs/errors.md', import.meta.url).href;
