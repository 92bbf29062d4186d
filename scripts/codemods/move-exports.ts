/**
 * A codemod that moves files and top-level exported declarations between modules and rewrites
 * every import of them (src, test, bench), so a reorganisation is mechanical and can be replayed.
 *
 *   npx tsx scripts/codemods/move-exports.ts PLAN STEP       apply one step of a plan (git mv, move text, rewrite imports)
 *   npx tsx scripts/codemods/move-exports.ts PLAN fix FILE…   rewrite only the imports of FILEs, through every step of the plan
 *
 * PLAN is a module whose default export is a `Plan` (e.g. scripts/codemods/store-roles.ts). `fix`
 * is for files written against the old layout after the plan ran (a branch merged later): their
 * imports of moved names are pointed at the names' new homes, nothing else changes.
 *
 * What a step does, in order:
 * 1. `files`: `git mv` each file; every relative import of it, and every relative import inside
 *    it, is rebased; its path in comments and docs (docs/*.md, README.md) is replaced.
 * 2. `declarations`: each named top-level statement (with its attached doc comment) is cut from
 *    its module and placed after the imports of its new one (created with `header` when new);
 *    the destination imports what the moved text uses, found in the source module's context;
 *    imports no longer used by a source module are dropped; a source left with no statement is
 *    deleted (`git rm`).
 * 3. Every import of a moved name, anywhere, is split by the name's new home; a name imported
 *    into its own home is dropped.
 * It writes no re-export shims: the old path of a moved name stops exporting it.
 */
import ts from 'typescript';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface DeclarationMove {
  /** Repository path of the module that declares them now. */
  from: string;
  /** Repository path of their new module. */
  to: string;
  names: readonly string[];
}

export interface Step {
  name: string;
  /** [from, to] repository paths. */
  files?: ReadonlyArray<readonly [string, string]>;
  declarations?: readonly DeclarationMove[];
  /** The opening comment of a module a step creates, by its path. */
  headers?: Readonly<Record<string, string>>;
}

export interface Plan {
  steps: readonly Step[];
}

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const CODE_DIRS = ['src', 'test', 'bench'];
/** Verbatim copies of the briefs: never edited. */
const FROZEN_DOCS = new Set(['docs/design.md', 'docs/interface-spec.md']);

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
const abs = (repoPath: string) => join(ROOT, repoPath);
const read = (repoPath: string) => readFileSync(abs(repoPath), 'utf8');
const codeFiles = () =>
  git('ls-files', ...CODE_DIRS)
    .split('\n')
    .filter((f) => f.endsWith('.ts') && existsSync(abs(f)));
const docFiles = () =>
  git('ls-files', 'docs', 'README.md', 'BENCHMARKS.md')
    .split('\n')
    .filter((f) => f.endsWith('.md') && !FROZEN_DOCS.has(f) && existsSync(abs(f)));

const parse = (path: string, text: string) => ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);

/** The repository path a relative specifier of `fromFile` names (`.js` → `.ts`); null for a bare one. */
function target(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  return posix.normalize(posix.join(posix.dirname(fromFile), specifier)).replace(/\.js$/, '.ts');
}

/** The specifier `fromFile` uses for the module at repository path `to`. */
function specifierFor(fromFile: string, to: string): string {
  let rel = posix.relative(posix.dirname(fromFile), to).replace(/\.ts$/, '.js');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
}

/** Where each (module, name) lives after a step: file moves first, then declaration moves. */
class Homes {
  private readonly fileMoves = new Map<string, string>();
  private readonly names = new Map<string, string>();
  constructor(step: Step) {
    for (const [from, to] of step.files ?? []) this.fileMoves.set(from, to);
    for (const move of step.declarations ?? []) for (const name of move.names) this.names.set(`${move.from}\n${name}`, move.to);
  }
  file(path: string): string {
    return this.fileMoves.get(path) ?? path;
  }
  of(path: string, name: string): string {
    const moved = this.file(path);
    return this.names.get(`${moved}\n${name}`) ?? moved;
  }
  movesNames(path: string): boolean {
    const moved = this.file(path);
    return [...this.names.keys()].some((k) => k.startsWith(`${moved}\n`));
  }
}

interface Specifier {
  name: string;
  alias: string | null;
  /** `type X` inside a value import. */
  inlineType: boolean;
}

interface ImportGroup {
  specifier: string;
  typeOnly: boolean;
  names: Specifier[];
  multiline: boolean;
}

function specifierText(s: Specifier): string {
  return `${s.inlineType ? 'type ' : ''}${s.name}${s.alias ? ` as ${s.alias}` : ''}`;
}

function importText(g: ImportGroup): string {
  const names = [...g.names].sort((a, b) => a.name.localeCompare(b.name));
  const head = g.typeOnly ? 'import type' : 'import';
  const one = `${head} { ${names.map(specifierText).join(', ')} } from '${g.specifier}';`;
  if (!g.multiline || one.length <= 160) return one;
  return `${head} {\n${names.map((s) => `  ${specifierText(s)},\n`).join('')}} from '${g.specifier}';`;
}

/** Identifiers used by the statements outside import declarations (over-approximates: property names count). */
function usedIdentifiers(sf: ts.SourceFile): Set<string> {
  const used = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) return;
    if (ts.isIdentifier(node)) used.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return used;
}

function topLevelNames(sf: ts.SourceFile): Map<string, ts.Statement> {
  const out = new Map<string, ts.Statement>();
  for (const st of sf.statements) {
    if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) {
      if (st.name) out.set(st.name.text, st);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) out.set(d.name.text, st);
    }
  }
  return out;
}

const isTypeDeclaration = (st: ts.Statement | undefined) => !!st && (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st));

/** The statement's text with the comments attached to it (no blank line between them and it). */
function statementRange(sf: ts.SourceFile, st: ts.Statement): { start: number; end: number } {
  const text = sf.text;
  let start = st.getStart(sf);
  const comments = ts.getLeadingCommentRanges(text, st.pos) ?? [];
  for (let i = comments.length - 1; i >= 0; i--) {
    const c = comments[i]!;
    const gap = text.slice(c.end, start);
    if ((gap.match(/\n/g) ?? []).length > 1) break;
    start = c.pos;
  }
  let end = st.getEnd();
  if (text[end] === '\n') end += 1;
  return { start, end };
}

/** Whether `node` sits where only a type can (so importing it as a type is enough). */
function inTypePosition(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n && !ts.isSourceFile(n); n = n.parent) {
    if (ts.isTypeNode(n)) return true;
    if (ts.isHeritageClause(n) && ts.isInterfaceDeclaration(n.parent)) return true;
  }
  return false;
}

/** Whether `node` names a member or a binding rather than referring to something declared elsewhere. */
function isOwnName(node: ts.Identifier): boolean {
  const p = node.parent;
  if (ts.isPropertyAccessExpression(p)) return p.name === node;
  if (ts.isQualifiedName(p)) return p.right === node;
  const named = p as ts.Node & { name?: ts.Node };
  return (
    (ts.isPropertySignature(p) || ts.isMethodSignature(p) || ts.isPropertyAssignment(p) || ts.isParameter(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isBindingElement(p) || ts.isVariableDeclaration(p) || ts.isFunctionDeclaration(p) || ts.isInterfaceDeclaration(p) || ts.isTypeAliasDeclaration(p) || ts.isTypeParameterDeclaration(p)) &&
    named.name === node
  );
}

interface FileState {
  path: string;
  text: string;
  /** Imports to add (merged into an existing declaration of the same module and kind when there is one). */
  additions: ImportGroup[];
}

/** Rewrites the import declarations of `file`: split by the names' homes, additions merged in. */
function rewriteImports(file: FileState, oldPath: string, homes: Homes, pruneUnused: boolean): boolean {
  const sf = parse(file.path, file.text);
  const used = pruneUnused ? usedIdentifiers(sf) : null;
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const produced: Array<{ group: ImportGroup; edit: { text: string } | null; decl: ts.ImportDeclaration | null }> = [];
  const imports = sf.statements.filter(ts.isImportDeclaration);
  let changed = false;
  for (const decl of imports) {
    const spec = (decl.moduleSpecifier as ts.StringLiteral).text;
    const from = target(oldPath, spec);
    const clause = decl.importClause;
    const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : null;
    const typeOnly = !!clause?.isTypeOnly;
    const multiline = decl.getText(sf).includes('\n');
    const groups = new Map<string, ImportGroup>();
    const keepWhole = !named || !!clause?.name; // default or namespace imports: only their path moves
    if (keepWhole) {
      if (from === null) continue;
      const to = homes.file(from);
      const newSpec = specifierFor(file.path, to);
      if (newSpec !== spec) {
        edits.push({ start: decl.moduleSpecifier.getStart(sf), end: decl.moduleSpecifier.getEnd(), text: `'${newSpec}'` });
        changed = true;
      }
      continue;
    }
    for (const el of named.elements) {
      const name = (el.propertyName ?? el.name).text;
      const local = el.name.text;
      if (used && !used.has(local)) {
        changed = true;
        continue;
      }
      const home = from === null ? null : homes.of(from, name);
      if (home === file.path) {
        changed = true; // it lives here now
        continue;
      }
      const newSpec = home === null ? spec : specifierFor(file.path, home);
      const key = newSpec;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { specifier: newSpec, typeOnly, names: [], multiline }));
      g.names.push({ name, alias: el.propertyName ? local : null, inlineType: el.isTypeOnly });
    }
    const list = [...groups.values()];
    const same = list.length === 1 && list[0]!.specifier === spec && list[0]!.names.length === named.elements.length;
    const range = statementRange(sf, decl);
    const leading = sf.text.slice(range.start, decl.getStart(sf));
    if (same) {
      produced.push({ group: list[0]!, edit: null, decl });
      continue;
    }
    changed = true;
    const edit = { start: range.start, end: range.end, text: '' };
    edits.push(edit);
    for (const g of list) produced.push({ group: g, edit, decl });
    edit.text = leading; // filled below, once additions are merged
  }
  for (const add of file.additions) {
    const existing = produced.find((p) => p.group.specifier === add.specifier && p.group.typeOnly === add.typeOnly);
    const fresh = add.names.filter((n) => !existing?.group.names.some((m) => m.name === n.name));
    if (fresh.length === 0) continue;
    changed = true;
    if (existing) {
      existing.group.names.push(...fresh);
      if (!existing.edit) {
        const decl = existing.decl!;
        const range = statementRange(sf, decl);
        const edit = { start: range.start, end: range.end, text: sf.text.slice(range.start, decl.getStart(sf)) };
        edits.push(edit);
        existing.edit = edit;
      }
    } else {
      const last = imports[imports.length - 1];
      const at = last ? statementRange(sf, last).end : afterHeader(sf.text);
      const edit = { start: at, end: at, text: '' };
      edits.push(edit);
      produced.push({ group: { ...add, names: fresh }, edit, decl: null });
    }
  }
  // Two declarations now naming the same module (and kind) become one.
  const byModule = new Map<string, (typeof produced)[number]>();
  for (const p of [...produced]) {
    const key = `${p.group.typeOnly}\n${p.group.specifier}`;
    const first = byModule.get(key);
    if (!first || (!first.edit && !p.edit)) {
      if (!first) byModule.set(key, p);
      continue;
    }
    changed = true;
    for (const n of p.group.names) if (!first.group.names.some((m) => m.name === n.name && m.alias === n.alias)) first.group.names.push(n);
    produced.splice(produced.indexOf(p), 1);
    if (!p.edit) {
      const decl = p.decl!;
      const range = statementRange(sf, decl);
      edits.push({ start: range.start, end: range.end, text: sf.text.slice(range.start, decl.getStart(sf)) });
    }
    if (!first.edit) {
      const decl = first.decl!;
      const range = statementRange(sf, decl);
      const edit = { start: range.start, end: range.end, text: sf.text.slice(range.start, decl.getStart(sf)) };
      edits.push(edit);
      first.edit = edit;
    }
  }
  if (!changed) return false;
  for (const p of produced) if (p.edit) p.edit.text += `${importText(p.group)}\n`;
  let text = file.text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  file.text = text;
  return true;
}

/** Where the first import goes in a module without one: after its opening comment. */
function afterHeader(text: string): number {
  const header = ts.getLeadingCommentRanges(text, 0)?.[0];
  if (!header) return 0;
  const eol = text.indexOf('\n', header.end);
  return eol === -1 ? text.length : eol + 1;
}

function gitMv(from: string, to: string): void {
  mkdirSync(dirname(abs(to)), { recursive: true });
  git('mv', from, to);
}

/** Replaces the moved files' paths in comments and docs (whole repository paths only). */
function replacePathMentions(moves: ReadonlyArray<readonly [string, string]>, files: string[]): void {
  for (const f of files) {
    let text = read(f);
    const before = text;
    for (const [from, to] of moves) text = text.split(from).join(to);
    if (text !== before) writeFileSync(abs(f), text);
  }
}

export function applyStep(step: Step): void {
  const homes = new Homes(step);
  // 1. Files: git mv, then every import rebased from the old layout.
  const beforeMove = codeFiles();
  const oldPathOf = new Map<string, string>(beforeMove.map((f) => [homes.file(f), f]));
  for (const [from, to] of step.files ?? []) gitMv(from, to);

  const state = new Map<string, FileState>();
  const original = new Map<string, string>();
  const load = (path: string): FileState => {
    let s = state.get(path);
    if (!s) {
      state.set(path, (s = { path, text: existsSync(abs(path)) ? read(path) : (step.headers?.[path] ?? ''), additions: [] }));
      original.set(path, s.text);
    }
    return s;
  };
  /** A name needed by `file`, found where `context` (a module as it was before this step) declares or imports it. */
  const need = (file: FileState, context: string, name: string, asValue: boolean): void => {
    const sf = parse(context, original.get(context)!);
    const oldContext = oldPathOf.get(context) ?? context;
    const declared = topLevelNames(sf);
    if (declared.has(name)) {
      const home = homes.of(context, name);
      if (home === file.path) return;
      const typeOnly = isTypeDeclaration(declared.get(name)) || !asValue;
      file.additions.push({ specifier: specifierFor(file.path, home), typeOnly, names: [{ name, alias: null, inlineType: false }], multiline: false });
      return;
    }
    for (const decl of sf.statements.filter(ts.isImportDeclaration)) {
      const named = decl.importClause?.namedBindings;
      if (!named || !ts.isNamedImports(named)) continue;
      const el = named.elements.find((e) => e.name.text === name);
      if (!el) continue;
      const spec = (decl.moduleSpecifier as ts.StringLiteral).text;
      const from = target(oldContext, spec);
      const imported = (el.propertyName ?? el.name).text;
      const home = from === null ? null : homes.of(from, imported);
      if (home === file.path) return;
      const typeOnly = !!decl.importClause?.isTypeOnly || el.isTypeOnly || !asValue;
      const alias = imported === name ? null : name;
      file.additions.push({ specifier: home === null ? spec : specifierFor(file.path, home), typeOnly, names: [{ name: imported, alias, inlineType: false }], multiline: false });
      return;
    }
  };

  // 2. Declarations: cut from their module, placed in the new one with what they need imported.
  const sources = new Set<string>();
  const blocks = new Map<string, string[]>();
  for (const move of step.declarations ?? []) {
    const source = load(move.from);
    const dest = load(move.to);
    sources.add(move.from);
    const sf = parse(move.from, source.text);
    const declared = topLevelNames(sf);
    const ranges: Array<{ start: number; end: number }> = [];
    const moved: string[] = [];
    const needs = new Map<string, boolean>(); // name → needed as a value
    for (const name of move.names) {
      const st = declared.get(name);
      if (!st) throw new Error(`${move.from} declares no ${name}`);
      const r = statementRange(sf, st);
      if (ranges.some((x) => x.start === r.start)) continue;
      ranges.push(r);
      moved.push(sf.text.slice(r.start, r.end));
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node) && !isOwnName(node)) {
          const asValue = !inTypePosition(node);
          needs.set(node.text, (needs.get(node.text) ?? false) || asValue);
        }
        ts.forEachChild(node, visit);
      };
      visit(st);
    }
    for (const r of [...ranges].sort((a, b) => b.start - a.start)) source.text = source.text.slice(0, r.start) + source.text.slice(r.end);
    source.text = source.text.replace(/\n{3,}/g, '\n\n');
    const destDeclared = topLevelNames(parse(move.to, original.get(move.to)!));
    const movedNames = new Set(move.names);
    for (const [name, asValue] of needs) if (!movedNames.has(name) && !destDeclared.has(name)) need(dest, move.from, name, asValue);
    blocks.set(move.to, [...(blocks.get(move.to) ?? []), ...moved]);
  }
  // After each destination's imports (its opening comment stays first), in the plan's order.
  for (const [to, moved] of blocks) {
    const dest = load(to);
    const dsf = parse(to, dest.text);
    const lastImport = dsf.statements.filter(ts.isImportDeclaration).pop();
    const at = lastImport ? statementRange(dsf, lastImport).end : dsf.statements[0] ? statementRange(dsf, dsf.statements[0]).start : dest.text.length;
    dest.text = `${dest.text.slice(0, at)}\n${moved.join('\n')}\n${dest.text.slice(at)}`.replace(/\n{3,}/g, '\n\n');
  }

  // What stays in a source and uses a name moved away imports it from its new home.
  for (const path of sources) {
    const file = load(path);
    const sf = parse(path, file.text);
    const movedAway = new Set((step.declarations ?? []).filter((m) => m.from === path).flatMap((m) => m.names));
    const uses = new Map<string, boolean>();
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node)) return;
      if (ts.isIdentifier(node) && movedAway.has(node.text) && !isOwnName(node)) uses.set(node.text, (uses.get(node.text) ?? false) || !inTypePosition(node));
      ts.forEachChild(node, visit);
    };
    visit(sf);
    for (const [name, asValue] of uses) need(file, path, name, asValue);
  }

  // 3. Every import, everywhere: split by the names' homes; sources and destinations drop what they no longer use.
  const touched = new Set([...sources, ...(step.declarations ?? []).map((m) => m.to)]);
  for (const path of new Set([...codeFiles(), ...state.keys()])) {
    const file = load(path);
    const oldPath = oldPathOf.get(path) ?? path;
    const wasChanged = rewriteImports(file, oldPath, homes, touched.has(path));
    if (wasChanged || state.get(path)!.text !== (existsSync(abs(path)) ? read(path) : null)) {
      mkdirSync(dirname(abs(path)), { recursive: true });
      writeFileSync(abs(path), file.text);
    }
  }
  for (const path of sources) {
    const sf = parse(path, read(path));
    if (sf.statements.every(ts.isImportDeclaration)) {
      git('rm', '-q', '-f', path);
      console.log(`removed ${path}: nothing left in it`);
    }
  }
  for (const path of touched) if (existsSync(abs(path))) git('add', path);
  if (step.files?.length) replacePathMentions(step.files, [...codeFiles(), ...docFiles()]);
}

/** Rewrites only the imports of `files` (written against the layout before the plan), step after step. */
export function fixImports(plan: Plan, files: readonly string[]): void {
  for (const step of plan.steps) {
    const homes = new Homes(step);
    for (const path of files) {
      const file: FileState = { path, text: read(path), additions: [] };
      if (rewriteImports(file, path, homes, false)) writeFileSync(abs(path), file.text);
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [planPath, stepName, ...rest] = process.argv.slice(2);
  if (!planPath || !stepName) throw new Error('usage: move-exports.ts PLAN STEP | PLAN fix FILE…');
  const plan = ((await import(pathToFileURL(resolve(planPath)).href)) as { default: Plan }).default;
  if (stepName === 'fix') fixImports(plan, rest.map((f) => relative(ROOT, resolve(f))));
  else {
    const step = plan.steps.find((s) => s.name === stepName);
    if (!step) throw new Error(`no step ${stepName} in ${planPath}`);
    applyStep(step);
  }
}
