// deploy/monitoring: every alert and dashboard query is valid PromQL over metrics the code defines,
// the ServiceMonitor scrapes every process, and the alerts cover what operators must hear about.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Metrics } from "@docex/kit/metrics";
import { parser as promql } from "@prometheus-io/lezer-promql";
import { expect } from "chai";
import { parse } from "yaml";
import {
  type KubernetesFacts,
  k8sDir,
  loadDeployment,
  monitoringDir,
  type ProcessFacts,
  root,
  serviceFolders,
} from "./support/kubernetes.js";
import { renderKustomization } from "./support/kustomize.js";
import { find, type K8sObject, type LabelSelector, ofKind, readManifests, type ServiceObject, selects } from "./support/manifests.js";
import { parseSource, promClientMetricNames, routePaths } from "./support/typescript-source.js";

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
const GRAFANA_DATASOURCE = "${datasource}";

// ---------------------------------------------------------------------------------------------
// PromQL

interface PromqlFacts {
  error?: string;
  metrics: string[];
}

function analysePromql(expression: string): PromqlFacts {
  // Grafana's variables are not PromQL; give them values of the right kind first.
  const query = expression.replace(/\$__rate_interval|\$__interval|\$__range/g, "5m");
  const metrics: string[] = [];
  let error: string | undefined;
  promql.parse(query).iterate({
    enter(node) {
      if (node.type.isError && !error)
        error = `syntax error at ${node.from}: …${query.slice(Math.max(0, node.from - 20), node.from + 20)}…`;
      if (node.name === "Identifier" && node.node.parent?.name === "VectorSelector") metrics.push(query.slice(node.from, node.to));
    },
  });
  return { error, metrics };
}

/** Every metric name the code registers: the kit's (with Node's default metrics) and each service's own. */
async function metricNamesOfTheCode(): Promise<Set<string>> {
  const metrics = new Metrics("kubernetes-test");
  const names = new Set<string>([
    "up",
    "scrape_duration_seconds",
    "scrape_samples_scraped",
    // kube-state-metrics: a process with no pod at all has no metrics of its own (DocexProcessUnavailable).
    "kube_deployment_spec_replicas",
    "kube_deployment_status_replicas_available",
  ]);
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${metric.name}${suffix}`);
  }
  const sources = [path.join(root, "gateway/src"), ...serviceFolders().map((name) => path.join(root, "services", name, "src"))];
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : [],
    );
  for (const file of sources.filter(existsSync).flatMap(files)) {
    for (const name of promClientMetricNames(parseSource(file))) {
      names.add(name);
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${name}${suffix}`);
    }
  }
  return names;
}

describe("Kubernetes monitoring (deploy/monitoring)", function () {
  this.timeout(60_000);

  let renders = {} as KubernetesFacts["renders"];
  let monitoring: K8sObject[] = [];
  let processes: ProcessFacts[] = [];
  const processNames = () => processes.map((process) => process.name);

  before(async () => {
    ({ renders, monitoring, processes } = await loadDeployment());
  });

  describe("monitoring", () => {
    const rulesOf = (objects: K8sObject[]) =>
      ofKind<
        K8sObject & {
          spec: {
            groups: { rules: { alert?: string; expr: string; labels?: Record<string, string>; annotations?: Record<string, string> }[] }[];
          };
        }
      >(objects, "PrometheusRule").flatMap((rule) => rule.spec.groups.flatMap((group) => group.rules));
    const dashboard = () =>
      JSON.parse(readFileSync(path.join(monitoringDir, "grafana/docex-overview.json"), "utf8")) as {
        panels: { id: number; type: string; title: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
      };
    // NATS's rules (docex-nats) query the exporter's metrics: kubernetes-nats.test.ts checks them; the certificates'
    // (docex-certificates) cert-manager's: kubernetes-certificates.test.ts.
    const queries = () => [
      ...rulesOf(monitoring.filter((object) => !["docex-nats", "docex-certificates"].includes(object.metadata.name))).map((rule) => ({
        where: `alert ${rule.alert}`,
        expr: rule.expr,
      })),
      ...dashboard().panels.flatMap((panel) =>
        (panel.targets ?? []).map((target) => ({ where: `panel ${panel.title}`, expr: target.expr })),
      ),
    ];

    it("the ServiceMonitor scrapes /metrics on the http port of the gateway's and every service's Service, as job docex", () => {
      const monitor = ofKind<
        K8sObject & { spec: { jobLabel: string; selector: LabelSelector; endpoints: { port: string; path: string }[] } }
      >(monitoring, "ServiceMonitor")[0];
      if (!monitor) throw new Error("no ServiceMonitor in deploy/monitoring");
      const selected = ofKind<ServiceObject>(renders.production, "Service").filter((service) =>
        selects(monitor.spec.selector, service.metadata.labels),
      );
      expect(selected.map((service) => service.metadata.name).sort()).to.deep.equal([...processNames()].sort());
      expect(monitor.spec.endpoints).to.deep.include({ port: "http", path: "/metrics", interval: "30s", honorLabels: true });
      for (const service of selected) {
        expect(service.spec.ports.map((port) => port.name)).to.include("http");
        expect(service.metadata.labels?.[monitor.spec.jobLabel], `${service.metadata.name} job label`).to.equal("docex");
      }
    });

    it("every alert and dashboard query parses as PromQL and uses only metrics the code defines", async () => {
      const known = await metricNamesOfTheCode();
      expect(known, "the webhook service's delivery metrics").to.include("webhook_deliveries_due");
      const problems: string[] = [];
      for (const { where, expr } of queries()) {
        const { error, metrics } = analysePromql(expr);
        if (error) problems.push(`${where}: ${error}`);
        if (metrics.length === 0) problems.push(`${where}: names no metric`);
        for (const metric of metrics) if (!known.has(metric)) problems.push(`${where}: ${metric} is not a metric of the code`);
      }
      expect(problems, problems.join("\n")).to.deep.equal([]);
    });

    it("the alerts cover the error rate, p99 of PATCH annotations, the delivery backlog, open breakers and outbox lag, each with a severity and a summary", () => {
      const rules = rulesOf(monitoring);
      const uses = (rule: { expr: string }, pattern: RegExp) => pattern.test(rule.expr);
      const required: [string, RegExp][] = [
        ["error rate", /http_request_duration_seconds_count\{[^}]*status_code=~"5\.\."/],
        ["validation p99", /histogram_quantile\(0\.99,[\s\S]*http_request_duration_seconds_bucket\{[^}]*method="PATCH"/],
        ["delivery backlog", /webhook_deliveries_due/],
        ["breaker open", /circuit_breaker_state\{[^}]*\}\)?\s*==\s*2/],
        ["outbox lag", /outbox_pending_events/],
      ];
      for (const [what, pattern] of required)
        expect(
          rules.some((rule) => uses(rule, pattern)),
          what,
        ).to.equal(true);
      for (const rule of rules) {
        expect(rule.alert, rule.expr).to.match(/^Docex[A-Z]\w+$/);
        expect(rule.labels?.severity, `${rule.alert} severity`).to.be.oneOf(["critical", "warning", "info"]);
        expect(rule.annotations?.summary, `${rule.alert} summary`).to.be.a("string");
      }
    });

    it("the validation alert watches the document service's PATCH annotations route, at a latency bucket boundary at or above the validation budget", async () => {
      // Described with kit's ApiDescription (OpenAPI path, mounted as its Express form) or mounted with router.patch.
      const route = routePaths(parseSource(path.join(root, "services/document/src/http/routes.ts")), "patch")
        .map((template) => template.replace(/\{(\w+)\}/g, ":$1"))
        .find((template) => /^\/api\/v\d+\/documents\/:document_id\/annotations$/.test(template));
      // The label kit's HTTP app records: the Express route path.
      expect(route, "PATCH annotations in services/document/src/http/routes.ts").to.be.a("string");
      const rule = rulesOf(monitoring).find(
        (candidate) => candidate.expr.includes('method="PATCH"') && candidate.expr.includes("histogram_quantile(0.99"),
      );
      expect(rule?.expr).to.include(`route="${route}"`).and.to.include('service="document"');
      const threshold = Number(rule?.expr.match(/>\s*([\d.]+)\s*$/)?.[1]);
      const document = processes.find((process) => process.name === "document");
      const budgetMs = Number(document?.defaults.DOCUMENT_VALIDATION_TIMEOUT_MS ?? 200); // API.md's default until the code reads it
      expect(threshold * 1000).to.be.at.least(budgetMs);
      const metrics = new Metrics("kubernetes-test", { defaultMetrics: false });
      metrics.httpDuration.observe({ route, method: "PATCH", status_code: "200" }, 0.001);
      const buckets = (await metrics.httpDuration.get()).values.flatMap((value) => {
        const le = (value.labels as Record<string, string | number | undefined>).le;
        return le === undefined ? [] : [Number(le)];
      });
      expect(buckets, "buckets of http_request_duration_seconds").to.include(threshold);

      const { ROUTES, API_PREFIX } = await import("@docex/gateway");
      const gatewayTemplates = ROUTES.filter((candidate) => candidate.method === "PATCH").map(
        (candidate) => `${API_PREFIX}${candidate.path}`,
      );
      const gatewayPanels = dashboard()
        .panels.flatMap((panel) => panel.targets ?? [])
        .flatMap((target) =>
          [...target.expr.matchAll(/service="gateway", method="PATCH", route="([^"]+)"/g)].map(([, template]) => template),
        );
      expect(gatewayPanels.length).to.be.greaterThan(0);
      for (const template of gatewayPanels) expect(gatewayTemplates, "the gateway's route template").to.include(template);
    });

    it("the dashboard has gateway, validation and delivery rows with unique panel ids on a chosen Prometheus, and its ConfigMap carries the file", () => {
      const { panels } = dashboard();
      const rows = panels.filter((panel) => panel.type === "row").map((panel) => panel.title);
      for (const row of ["Gateway", "Validation", "Delivery"])
        expect(
          rows.some((title) => title.startsWith(row)),
          row,
        ).to.equal(true);
      expect(new Set(panels.map((panel) => panel.id)).size).to.equal(panels.length);
      for (const panel of panels.filter((candidate) => candidate.type !== "row"))
        expect(panel.datasource?.uid, panel.title).to.equal(GRAFANA_DATASOURCE);
      const configMap = find(monitoring, "ConfigMap", "docex-grafana-dashboard");
      expect(configMap?.metadata.labels?.grafana_dashboard).to.equal("1");
      expect(configMap?.data?.["docex-overview.json"]).to.equal(
        readFileSync(path.join(monitoringDir, "grafana/docex-overview.json"), "utf8"),
      );
    });

    describe("every alert: a runbook and a promtool test", () => {
      type Rule = { alert?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
      /** Every alerting rule there is: deploy/monitoring's and CloudNativePG's (infra/postgres-cnpg), as kustomize renders them. */
      const allRules = () =>
        ofKind<K8sObject & { spec: { groups: { rules: Rule[] }[] } }>(
          [...monitoring, ...renderKustomization(path.join(k8sDir, "infra/postgres-cnpg"))],
          "PrometheusRule",
        ).flatMap((rule) => rule.spec.groups.flatMap((group) => group.rules.filter((candidate) => candidate.alert)));
      /** The sections of deploy/README.md by their anchor, as Git hosts make them from the headings. */
      const sections = () => {
        const text = readFileSync(path.join(root, "deploy/README.md"), "utf8").replace(/```[\s\S]*?```/g, "");
        const found = new Map<string, string>();
        const headings = [...text.matchAll(/^#{2,4} (.+)$/gm)];
        headings.forEach((heading, index) => {
          const anchor = (heading[1] ?? "")
            .toLowerCase()
            .replace(/[^a-z0-9 _-]/g, "")
            .replace(/ /g, "-");
          found.set(anchor, text.slice(heading.index, headings[index + 1]?.index ?? text.length));
        });
        return found;
      };

      it("each has a runbook_url: the README address of deploy/monitoring/runbooks and a section of deploy/README.md that names the alert", () => {
        const [runbooks] = readManifests(path.join(monitoringDir, "runbooks/runbooks.yaml"));
        const base = runbooks?.data?.base ?? "";
        expect(base).to.match(/^https:\/\/[^#\s]+\/README\.md$/);
        const known = sections();
        const problems: string[] = [];
        for (const rule of allRules()) {
          const url = rule.annotations?.runbook_url ?? "";
          const [address, anchor = ""] = url.split("#");
          if (address !== base) problems.push(`${rule.alert}: runbook_url ${url || "missing"}`);
          else if (!known.has(anchor)) problems.push(`${rule.alert}: deploy/README.md has no section #${anchor}`);
          else if (!known.get(anchor)?.includes(`\`${rule.alert}\``)) problems.push(`${rule.alert}: section #${anchor} does not name it`);
        }
        expect(problems, problems.join("\n")).to.deep.equal([]);
      });

      it("each, at each severity, is fired by a promtool test of deploy/monitoring/rule-tests", () => {
        const testsDir = path.join(monitoringDir, "rule-tests");
        const fired = new Set(
          readdirSync(testsDir)
            .filter((name) => name.endsWith(".test.yaml"))
            .flatMap((name) => {
              const { tests } = parse(readFileSync(path.join(testsDir, name), "utf8")) as {
                tests: { alert_rule_test?: { alertname: string; exp_alerts: { exp_labels?: Record<string, string> }[] }[] }[];
              };
              return tests.flatMap((test) =>
                (test.alert_rule_test ?? []).flatMap((check) =>
                  check.exp_alerts.map((expected) => `${check.alertname}/${expected.exp_labels?.severity}`),
                ),
              );
            }),
        );
        const unfired = [...new Set(allRules().map((rule) => `${rule.alert}/${rule.labels?.severity}`))].filter(
          (alert) => !fired.has(alert),
        );
        expect(unfired, "alerts no promtool test fires").to.deep.equal([]);
      });
    });
  });
});
