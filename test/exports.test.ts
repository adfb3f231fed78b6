/**
 * Every type a public function returns, or takes, is exported: a caller can name what it holds.
 * Read from the TypeScript checker over the packages' entry points.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRIES = [
  'packages/core/src/index.ts',
  'packages/core/src/api/index.ts',
  'packages/core/src/lineage/index.ts',
  'packages/core/src/audit/index.ts',
  'packages/core/src/proof/index.ts',
  'packages/core/src/anchor/index.ts',
  'packages/core/src/node.ts',
  'packages/service/src/index.ts',
].map((entry) => `${ROOT}${entry}`);

function program(): ts.Program {
  const config = ts.readConfigFile(`${ROOT}tsconfig.json`, (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return ts.createProgram(ENTRIES, { ...options, noEmit: true });
}

/** Our own named types that `type` mentions at its top: itself, union members, type arguments, array elements. */
function namedTypes(checker: ts.TypeChecker, type: ts.Type, seen = new Set<ts.Type>()): ts.Symbol[] {
  if (seen.has(type)) return [];
  seen.add(type);
  const found: ts.Symbol[] = [];
  const symbol = type.aliasSymbol ?? type.getSymbol();
  const anonymous =
    symbol === undefined ||
    symbol.flags & (ts.SymbolFlags.TypeLiteral | ts.SymbolFlags.ObjectLiteral | ts.SymbolFlags.TypeParameter) ||
    symbol.name.startsWith('__');
  if (!anonymous && !(type.flags & ts.TypeFlags.TypeParameter)) found.push(symbol);
  const inner = [
    ...(type.isUnion() || type.isIntersection() ? type.types : []),
    ...(type.aliasTypeArguments ?? []),
    ...(type.flags & ts.TypeFlags.Object && (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference
      ? checker.getTypeArguments(type as ts.TypeReference)
      : []),
  ];
  for (const t of inner) found.push(...namedTypes(checker, t, seen));
  return found;
}

const ours = (symbol: ts.Symbol) =>
  (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(`${ROOT}packages/`));

describe('the public API', () => {
  it('exports every type of its own that an exported function or class method returns or takes', () => {
    const p = program();
    const checker = p.getTypeChecker();
    const exported = new Set<ts.Symbol>();
    const functions: Array<{ name: string; symbol: ts.Symbol }> = [];
    for (const entry of ENTRIES) {
      const module = checker.getSymbolAtLocation(p.getSourceFile(entry)!)!;
      for (const member of checker.getExportsOfModule(module)) {
        const target = member.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(member) : member;
        exported.add(target);
        functions.push({ name: member.name, symbol: target });
      }
    }
    const missing = new Set<string>();
    for (const { name, symbol } of functions) {
      const declaration = symbol.valueDeclaration;
      if (declaration === undefined) continue;
      const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
      const signatures = [
        ...type.getCallSignatures(),
        ...type.getConstructSignatures(),
        ...(symbol.flags & ts.SymbolFlags.Class
          ? checker
              .getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))
              .filter(
                (m) =>
                  m.valueDeclaration !== undefined &&
                  !(
                    ts.getCombinedModifierFlags(m.valueDeclaration) &
                    (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)
                  ),
              )
              .flatMap((m) => checker.getTypeOfSymbolAtLocation(m, m.valueDeclaration!).getCallSignatures())
          : []),
      ];
      for (const signature of signatures) {
        const types = [
          signature.getReturnType(),
          ...signature.getParameters().map((p) => checker.getTypeOfSymbolAtLocation(p, declaration)),
        ];
        for (const named of types.flatMap((t) => namedTypes(checker, t))) {
          if (ours(named) && !exported.has(named)) missing.add(`${named.name} (used by ${name})`);
        }
      }
    }
    expect([...missing].sort()).toEqual([]);
  });
});
