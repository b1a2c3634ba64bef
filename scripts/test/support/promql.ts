// PromQL of alerting rules, read with Prometheus' own grammar (@prometheus-io/lezer-promql).
import { parser as promql } from "@prometheus-io/lezer-promql";

/** The metric names an expression selects. */
export function metricsOf(expr: string): string[] {
  const metrics: string[] = [];
  promql.parse(expr).iterate({
    enter(node) {
      if (node.name === "Identifier" && node.node.parent?.name === "VectorSelector") metrics.push(expr.slice(node.from, node.to));
    },
  });
  return metrics;
}

/** What is wrong with the rules' expressions: syntax errors, and metrics not among `known` (`source` names whose they are). */
export function promqlProblems(rules: { alert: string; expr: string }[], known: Set<string>, source: string): string[] {
  const problems: string[] = [];
  for (const { alert, expr } of rules) {
    promql.parse(expr).iterate({
      enter(node) {
        if (node.type.isError) problems.push(`${alert}: syntax error at ${node.from}`);
      },
    });
    for (const metric of metricsOf(expr)) if (!known.has(metric)) problems.push(`${alert}: ${metric} is not a metric of ${source}`);
  }
  return problems;
}
