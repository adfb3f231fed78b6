// What the service serves or links besides its code, copied into the package at build time:
// - Scalar's self-contained browser bundle (a devDependency) into dist/assets, with its license,
//   so the server serves the API reference UI itself and the page fetches nothing else;
// - the repository's reference pages (docs/) into docs/, which the CLI's docs_url points at, their links to the
//   repository's other files pointed at the repository.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

// The package exports no path to its browser bundle; the bundle sits beside its main entry (dist/).
const bundle = new URL('browser/standalone.js', import.meta.resolve('@scalar/api-reference'));
const { name, version } = JSON.parse(readFileSync(new URL('../../package.json', bundle), 'utf8'));
// The package ships no LICENSE file; @scalar/types, its dependency from the same repository, does.
const license = readFileSync(new URL('../LICENSE', import.meta.resolve('@scalar/types')), 'utf8');
const assets = new URL('../dist/assets/', import.meta.url);
mkdirSync(assets, { recursive: true });
copyFileSync(bundle, new URL('scalar-standalone.js', assets));
writeFileSync(
  new URL('scalar-standalone.LICENSE.txt', assets),
  `${name} ${version} (dist/browser/standalone.js), https://github.com/scalar/scalar\n\n${license}`,
);

const reference = new URL('../../../docs/', import.meta.url);
const docs = new URL('../docs/', import.meta.url);
mkdirSync(docs, { recursive: true });
// A page links the repository's other files (fixtures/, README.md) by relative paths; the package ships docs/ alone, so
// its copy points those links at the same files in the repository that package.json names.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
for (const page of readdirSync(reference).filter((file) => file.endsWith('.md'))) {
  const text = readFileSync(new URL(page, reference), 'utf8');
  writeFileSync(new URL(page, docs), text.replace(/\]\(\.\.\/([^)\s]+)\)/g, `](${repository}/blob/main/$1)`));
}
