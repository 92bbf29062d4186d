/**
 * The import graph of src/, read from the source text: every static `import … from`, `export …
 * from` and `import('…')` with a literal path, resolved to the file it names. Type-only imports
 * count: a type that points up a layer ties the layers together just the same.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface ImportEdge {
  /** Paths relative to the repository root, with `/`. */
  from: string;
  to: string;
}

const SPECIFIER = /(?:^|[\s;}])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const posix = (path: string): string => path.split(sep).join('/');

/** The edges between files of `srcDir` (imports of packages and of files outside it are left out). */
export function importEdges(root: string, srcDir = 'src'): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const base = resolve(root, srcDir);
  for (const file of sourceFiles(base)) {
    // Comments may quote import lines; they are no imports.
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (!specifier?.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (!target.startsWith(base + sep)) continue;
      edges.push({ from: posix(relative(root, file)), to: posix(relative(root, target)) });
    }
  }
  return edges;
}

/** The unit of a path: its folder right under src/ (`src/core`), or the file itself (`src/config.ts`). */
export function unitOf(path: string, srcDir = 'src'): string {
  const rest = path.slice(srcDir.length + 1);
  const slash = rest.indexOf('/');
  return `${srcDir}/${slash < 0 ? rest : rest.slice(0, slash)}`;
}

/** Groups of units that import each other in a circle (Tarjan's strongly connected components of two or more). */
export function cycles(edges: readonly ImportEdge[], unit: (path: string) => string): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = unit(from);
    const b = unit(to);
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Set());
    if (!next.has(b)) next.set(b, new Set());
    next.get(a)?.add(b);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}
