// What the Kubernetes tests read from the code's sources, parsed with the TypeScript compiler: the
// metrics a file registers, the functions it calls, its string constants and the HTTP routes it
// describes. Syntax only (no type checker): each question names the shape it accepts and fails
// loudly on a shape it cannot read, rather than missing it.
import { readFileSync } from "node:fs";
import ts from "typescript";

export function parseSource(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
}

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  ts.forEachChild(node, (child) => visit(child, each));
}

/** The text of a string literal or of a template without substitutions; undefined otherwise. */
function literalText(node: ts.Node | undefined): string | undefined {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
}

function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const element of object.properties)
    if (ts.isPropertyAssignment(element) && element.name.getText() === name) return element.initializer;
  return undefined;
}

const METRIC_CLASSES = new Set(["Counter", "Gauge", "Histogram", "Summary"]);

/** Names of the metrics a file constructs with prom-client's classes (`new Counter({ name: "…", … })`). */
export function promClientMetricNames(source: ts.SourceFile): string[] {
  const imported = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || literalText(statement.moduleSpecifier) !== "prom-client") continue;
    const bindings = statement.importClause?.namedBindings;
    if (statement.importClause?.isTypeOnly || !bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements)
      if (!element.isTypeOnly && METRIC_CLASSES.has((element.propertyName ?? element.name).text)) imported.add(element.name.text);
  }
  const names: string[] = [];
  visit(source, (node) => {
    if (!ts.isNewExpression(node) || !ts.isIdentifier(node.expression) || !imported.has(node.expression.text)) return;
    const [options] = node.arguments ?? [];
    const name = options && ts.isObjectLiteralExpression(options) ? literalText(property(options, "name")) : undefined;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    if (name === undefined) throw new Error(`${source.fileName}:${line + 1}: a metric whose name is not a string literal`);
    names.push(name);
  });
  return names;
}

/** What a file calls: `f`, `object.method` for calls and `new Class` for constructions, as written. */
export function callees(source: ts.SourceFile): Set<string> {
  const found = new Set<string>();
  visit(source, (node) => {
    if (ts.isCallExpression(node)) found.add(node.expression.getText());
    else if (ts.isNewExpression(node)) found.add(`new ${node.expression.getText()}`);
  });
  return found;
}

/** The value of a top-level `const NAME = "…"`. */
export function stringConstant(source: ts.SourceFile, name: string): string | undefined {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations)
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name) return literalText(declaration.initializer);
  }
  return undefined;
}

/**
 * The paths of the routes a file describes for an HTTP method: kit's ApiDescription objects
 * (`{ method: "patch", path: `${API}/…` }`) and Express's `router.patch(path, …)`. A template's
 * substitutions are resolved from the file's string constants.
 */
export function routePaths(source: ts.SourceFile, method: string): string[] {
  const resolve = (node: ts.Expression | undefined): string | undefined => {
    if (!node) return undefined;
    const literal = literalText(node);
    if (literal !== undefined) return literal;
    if (ts.isIdentifier(node)) return stringConstant(source, node.text);
    if (!ts.isTemplateExpression(node)) return undefined;
    let text = node.head.text;
    for (const span of node.templateSpans) {
      const value = resolve(span.expression);
      if (value === undefined) return undefined;
      text += value + span.literal.text;
    }
    return text;
  };
  const paths: string[] = [];
  visit(source, (node) => {
    if (ts.isObjectLiteralExpression(node) && literalText(property(node, "method")) === method) {
      const path = resolve(property(node, "path"));
      if (path !== undefined) paths.push(path);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === method) {
      const path = resolve(node.arguments[0]);
      if (path !== undefined) paths.push(path);
    }
  });
  return paths;
}
