/**
 * The store's statements as named prepared statements. Every statement the store runs is a constant text with its
 * values as parameters, so each can be parsed and planned once per connection rather than on every call: on the
 * request path (authenticate, rate token, usage, reserve, settle) that parsing and planning cost PostgreSQL more
 * than running the statements did (bench/hostile.bench.ts, its PostgreSQL section), CPU taken from every request on
 * the machine. node-postgres keeps each connection's prepared statements and prepares a name the first time a
 * connection sees it.
 *
 * A prepared statement names the columns it returns when it is prepared, so none of these selects `*` from a table:
 * a column a later schema adds would fail the statement ("cached plan must not change result type") on every
 * connection that prepared it before.
 */
import type pg from 'pg';

/** The name of each statement text, in the order this process first ran them: names are never reused for another text. */
const names = new Map<string, string>();

/**
 * `sql` with `values`, as a query named after its text.
 *
 * @example
 * await client.query(named('SELECT 1 WHERE $1::int > 0', [1]));
 */
export function named(sql: string, values: unknown[]): pg.QueryConfig {
  let name = names.get(sql);
  if (name === undefined) names.set(sql, (name = `evmi_${names.size + 1}`));
  return { name, text: sql, values };
}
