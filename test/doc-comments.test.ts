/**
 * Every exported class and function of both packages has a doc comment of its own, right above
 * it: what an editor shows on hover. A comment that stands above another declaration (a helper
 * placed between a comment and the class it describes) does not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['packages/core/src', 'packages/service/src'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const isExported = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasOwnDoc = (node: ts.Node) => ts.getJSDocCommentsAndTags(node).some((doc) => ts.isJSDoc(doc));

/**
 * The exported classes and functions of a file (a `const` bound to an arrow or function expression counts), by name and
 * line.
 */
function undocumented(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const missing: string[] = [];
  const report = (node: ts.Node, name: string) => {
    if (!hasOwnDoc(node))
      missing.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${name}`);
  };
  for (const statement of source.statements) {
    if (!isExported(statement)) continue;
    if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name !== undefined)
      report(statement, statement.name.text);
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (init !== undefined && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)))
          report(statement, declaration.name.getText(source));
      }
  }
  return missing;
}

describe('doc comments', () => {
  it('every exported class and function has its own', () => {
    const missing = SOURCES.flatMap((dir) => sourceFiles(dir)).flatMap((file) =>
      undocumented(file, readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(missing).toEqual([]);
  });

  it('a comment above a helper placed before the class is not the class’s', () => {
    const text =
      '/** Collects blocks. */\nfunction upsert() {}\n\nexport class Recorder {}\n/** Adds. */\nexport const add = (a: number) => a;\n';
    expect(undocumented('x.ts', text)).toEqual(['x.ts:4 Recorder']);
  });
});
