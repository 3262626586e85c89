/**
 * Field checks cel-js 8.0.0 leaves out for schema object types, run over an AST after `check()`
 * succeeded (cel-go refuses all of these at compile time, so Kubernetes does):
 *  - `has(self.a.b)`: cel-js checks only the root identifier; every selected field must be declared
 *    (`undefined field 'b'`), and only objects and maps support selection;
 *  - `self.?x`: cel-js types an undeclared field as `optional<dyn>`; it must be declared;
 *  - `self["x"]`, `self[?"x"]`: cel-js indexes an object type like a map; CEL has no such overload.
 * Other selections (`self.x`) are already refused by cel-js when undeclared.
 */
import type { ASTNode, TypeDeclaration } from '@marcbachmann/cel-js';
import { CelCompileError } from '../errors.js';
import type { DeclType, ObjectDecl } from './decl-type.js';

/** What a selection can see of a type. */
type Shape =
  | { readonly kind: 'object'; readonly decl: ObjectDecl }
  | { readonly kind: 'map'; readonly value: Shape }
  | { readonly kind: 'dyn' }
  | { readonly kind: 'other'; readonly name: string };

const DYN: Shape = { kind: 'dyn' };

function shapeOfDecl(t: DeclType): Shape {
  switch (t.kind) {
    case 'object':
      return { kind: 'object', decl: t };
    case 'map':
      return { kind: 'map', value: shapeOfDecl(t.elem) };
    case 'int-or-string':
      return DYN;
    default:
      return { kind: 'other', name: t.celType };
  }
}

function shapeOfChecked(t: TypeDeclaration | undefined, types: ReadonlyMap<string, ObjectDecl>): Shape {
  if (!t) return DYN;
  switch (t.kind) {
    case 'message': {
      const decl = types.get(t.name);
      // A message we did not declare (a library type): leave it to cel-js.
      return decl ? { kind: 'object', decl } : DYN;
    }
    case 'map':
      return { kind: 'map', value: shapeOfChecked(t.valueType, types) };
    case 'primitive':
    case 'list':
      return { kind: 'other', name: t.name };
    default:
      return DYN;
  }
}

type Node = ASTNode & { readonly checkedType?: TypeDeclaration };

/** A node's operands, untyped (cel-js types them per operator). */
const argsOf = (n: Node): readonly unknown[] => n.args as unknown as readonly unknown[];

/**
 * Throws a CelCompileError at the first selection of an undeclared field of a schema object type, or an
 * index of one. `types` are the object types declared for the expression's variables
 * (`registerDeclTypes`' result, merged when there are several).
 */
export function checkFieldSelections(ast: ASTNode, types: ReadonlyMap<string, ObjectDecl>): void {
  visit(ast as Node, types);
}

function visit(node: Node, types: ReadonlyMap<string, ObjectDecl>): void {
  switch (node.op) {
    case 'call':
      if (node.args[0] === 'has' && node.args[1].length === 1) checkHas(node.args[1][0] as Node, types);
      break;
    case '.?': {
      const operand = node.args[0] as Node;
      const shape = shapeOfChecked(unwrapOptional(operand.checkedType), types);
      if (shape.kind === 'object' && !shape.decl.fields.has(node.args[1])) throw undefinedField(node, node.args[1]);
      break;
    }
    case '[]':
    case '[?]': {
      const operand = node.args[0] as Node;
      const shape = shapeOfChecked(unwrapOptional(operand.checkedType), types);
      if (shape.kind === 'object') {
        const index = (node.args[1] as Node).checkedType?.name ?? 'dyn';
        throw compileError(node, indexPosition(node), `found no matching overload for '_[_]' applied to '(${shape.decl.name}, ${index})'`);
      }
      break;
    }
  }
  forEachChild(node, (child) => visit(child, types));
}

/** `has(a.b.c)`: the selections from the root identifier down. */
function checkHas(arg: Node, types: ReadonlyMap<string, ObjectDecl>): void {
  const chain: Node[] = [];
  let n: Node = arg;
  while (n.op === '.' || n.op === '.?') {
    chain.push(n);
    n = n.args[0] as Node;
  }
  let shape = shapeOfChecked(n.checkedType, types);
  for (let i = chain.length - 1; i >= 0; i--) {
    const sel = chain[i]!;
    const field = argsOf(sel)[1] as string;
    if (sel.op === '.?') shape = DYN;
    switch (shape.kind) {
      case 'dyn':
        return;
      case 'map':
        shape = shape.value;
        break;
      case 'object': {
        const f = shape.decl.fields.get(field);
        if (!f) throw undefinedField(sel, field);
        shape = shapeOfDecl(f.type);
        break;
      }
      case 'other':
        throw compileError(sel, selectPosition(sel), `type '${shape.name}' does not support field selection`);
    }
  }
}

const unwrapOptional = (t: TypeDeclaration | undefined): TypeDeclaration | undefined => (t?.kind === 'optional' ? t.valueType : t);

function undefinedField(node: Node, field: string): CelCompileError {
  return compileError(node, selectPosition(node), `undefined field '${field}'`);
}

/** A selection is reported at its `.` (as cel-go does); cel-js positions the node at the field name. */
function selectPosition(node: Node): number {
  const input = node.input;
  let i = node.pos - 1;
  while (i > 0 && (input[i] === '?' || /\s/.test(input[i]!))) i--;
  return input[i] === '.' ? i : node.pos;
}

/** An index is reported at its `[`. */
function indexPosition(node: Node): number {
  const input = node.input;
  let i = (argsOf(node)[0] as Node).end;
  while (i < input.length && /\s/.test(input[i]!)) i++;
  return input[i] === '[' ? i : node.pos;
}

function compileError(node: Node, offset: number, detail: string): CelCompileError {
  const { line, column } = lineColumn(node.input, offset);
  return new CelCompileError(node.input, detail, line, column);
}

/** 1-based line and column (in code points) of a UTF-16 offset. */
export function lineColumn(input: string, offset: number): { line: number; column: number } {
  const before = input.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.split('\n').length;
  return { line, column: [...before.slice(lineStart)].length + 1 };
}

function forEachChild(node: Node, f: (child: Node) => void): void {
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === 'object' && 'op' in v && 'args' in v) f(v as Node);
  };
  if (node.op === 'value' || node.op === 'id') return;
  walk(node.args);
}
