import { randomUUID } from "node:crypto";
import type { MemberCheck } from "@docex/access";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx, UnitOfWork } from "@docex/kit/db";
import { ConflictError, type FieldError, NotFoundError, UpstreamError, ValidationError } from "@docex/kit/errors";
import { isUuid } from "@docex/kit/ids";
import type { RegisterStore } from "../store/register-store.js";
import type { RuleStore } from "../store/rule-store.js";
import type { SettingsStore } from "../store/settings-store.js";
import { type ConfigurationChange, configurationChanged, ruleState } from "./configuration-changed.js";
import type { Actor, QueueAccess } from "./queue-access.js";
import type { Conditions, QueueRecord, Rule, RuleAction, RuleKind, RuleParams } from "./records.js";
import { type RegisterLookup, RegisterUnavailableError } from "./register-lookup.js";
import { parseParams, type RuleContext, ruleProblems } from "./rule-definitions.js";

/** At most this many rules of one kind per queue: every document runs through all of them. */
export const MAX_RULES_PER_KIND = 100;

export interface RuleInput {
  name: string;
  action: RuleAction;
  params: unknown;
  conditions: Conditions;
}

export type RulePatch = Partial<RuleInput>;

export interface RulePage {
  items: Rule[];
  page: number;
  pageSize: number;
  total: number;
}

export interface AutomationRulesDependencies {
  sql: UnitOfWork;
  rules: RuleStore;
  settings: SettingsStore;
  registers: RegisterStore;
  registerLookup: RegisterLookup;
  access: QueueAccess;
  membership: MemberCheck;
  events: OutboxEvents;
}

const RESOURCE_OF: Readonly<Record<RuleKind, ConfigurationChange["resource"]>> = {
  accounting: "accounting_automation_rule",
  approval: "approval_automation_rule",
};

const ruleNotFound = (id: string) => new NotFoundError(`Automation rule ${id} does not exist in this queue.`, "rule_not_found");

/**
 * Accounting and approval rules of a queue: checked against the queue before anything is stored, kept in order.
 * Each change is announced as configuration.changed, with the rule (or the order) before and after, in the
 * transaction that makes it.
 */
export class AutomationRules {
  constructor(private readonly deps: AutomationRulesDependencies) {}

  private announce(tx: Tx, actor: Actor, queue: QueueRecord, kind: RuleKind, change: Omit<ConfigurationChange, "resource">): Promise<void> {
    return this.deps.events.add(tx, ...configurationChanged(actor, queue, { resource: RESOURCE_OF[kind], ...change }));
  }

  private context(actor: Actor, queue: QueueRecord): RuleContext {
    const { registers, registerLookup, membership } = this.deps;
    return {
      schema: queue.annotationSchema,
      async registerOfQueue(registerId) {
        const known = await registers.find(registerId);
        if (known) return known.queueId === queue.id;
        // Not announced yet (register.updated is on its way): the register service can at least say it exists in the organization.
        try {
          const answer = await registerLookup.lookup(registerId, queue.organizationId, [], { requestId: actor.requestId });
          return answer.kind === "found";
        } catch (error) {
          if (error instanceof RegisterUnavailableError)
            throw new UpstreamError(
              503,
              "The register service is unavailable, so the in_register condition cannot be checked now.",
              "register_unavailable",
            );
          throw error;
        }
      },
      isMember: (userId) => membership.isMember(userId, queue.organizationId, { requestId: actor.requestId }),
    };
  }

  /** Params checked against the action's schema, then the rule against the queue; one 400 lists every problem. */
  private async checked(
    actor: Actor,
    queue: QueueRecord,
    rule: { action: RuleAction; params?: unknown; conditions?: Conditions },
  ): Promise<RuleParams | undefined> {
    const errors: FieldError[] = [];
    let params: RuleParams | undefined;
    if (rule.params !== undefined) {
      const parsed = parseParams(rule.action, rule.params);
      errors.push(...parsed.errors);
      params = parsed.params;
    }
    errors.push(
      ...(await ruleProblems(
        { ...(params ? { params } : {}), ...(rule.conditions ? { conditions: rule.conditions } : {}) },
        this.context(actor, queue),
      )),
    );
    if (errors.length) throw new ValidationError("The rule does not fit the queue.", errors, "invalid_rule");
    return params;
  }

  async list(actor: Actor, queueRef: string, kind: RuleKind, page: number, pageSize: number): Promise<RulePage> {
    const queue = await this.deps.access.readable(actor, queueRef);
    const found = await this.deps.rules.page(queue.id, kind, (page - 1) * pageSize, pageSize);
    return { items: found.items, page, pageSize, total: found.total };
  }

  async create(actor: Actor, queueRef: string, kind: RuleKind, input: RuleInput): Promise<Rule> {
    const queue = await this.deps.access.manageable(actor, queueRef);
    const params = await this.checked(actor, queue, input);
    if (!params) throw new Error("params were checked");
    return this.deps.sql.transaction(async (tx) => {
      await this.deps.settings.lock(tx, queue.id, queue.organizationId);
      if ((await this.deps.rules.count(tx, queue.id, kind)) >= MAX_RULES_PER_KIND)
        throw new ConflictError(`A queue has at most ${MAX_RULES_PER_KIND} ${kind} rules; delete one first.`, "too_many_rules");
      const created = await this.deps.rules.insert(tx, {
        id: randomUUID(),
        queueId: queue.id,
        organizationId: queue.organizationId,
        kind,
        name: input.name,
        action: input.action,
        params,
        conditions: input.conditions,
      });
      await this.announce(tx, actor, queue, kind, {
        resourceId: created.id,
        change: "created",
        previous: null,
        current: ruleState(created),
      });
      return created;
    });
  }

  /**
   * Changes what is sent. A new action needs params that fit it: the rule's current params are checked
   * against it when none are sent.
   */
  async update(actor: Actor, queueRef: string, kind: RuleKind, ruleId: string, patch: RulePatch): Promise<Rule> {
    const queue = await this.deps.access.manageable(actor, queueRef);
    if (!isUuid(ruleId)) throw ruleNotFound(ruleId);
    const existing = await this.deps.rules.find(queue.id, kind, ruleId.toLowerCase());
    if (!existing) throw ruleNotFound(ruleId);
    const action = patch.action ?? existing.action;
    const paramsToCheck = patch.params ?? (patch.action && patch.action !== existing.action ? existing.params : undefined);
    const params = await this.checked(actor, queue, {
      action,
      ...(paramsToCheck !== undefined ? { params: paramsToCheck } : {}),
      ...(patch.conditions ? { conditions: patch.conditions } : {}),
    });
    return this.deps.sql.transaction(async (tx) => {
      const current = await this.deps.rules.find(queue.id, kind, existing.id, tx, true);
      if (!current) throw ruleNotFound(ruleId);
      const updated = await this.deps.rules.update(tx, {
        id: current.id,
        name: patch.name ?? current.name,
        action,
        params: params ?? current.params,
        conditions: patch.conditions ?? current.conditions,
      });
      await this.announce(tx, actor, queue, kind, {
        resourceId: updated.id,
        change: "updated",
        previous: ruleState(current),
        current: ruleState(updated),
      });
      return updated;
    });
  }

  async delete(actor: Actor, queueRef: string, kind: RuleKind, ruleId: string): Promise<void> {
    const queue = await this.deps.access.manageable(actor, queueRef);
    if (!isUuid(ruleId)) throw ruleNotFound(ruleId);
    await this.deps.sql.transaction(async (tx) => {
      await this.deps.settings.lock(tx, queue.id, queue.organizationId);
      const rule = await this.deps.rules.find(queue.id, kind, ruleId.toLowerCase(), tx, true);
      if (!rule) throw ruleNotFound(ruleId);
      await this.deps.rules.delete(tx, rule);
      await this.announce(tx, actor, queue, kind, { resourceId: rule.id, change: "deleted", previous: ruleState(rule), current: null });
    });
  }

  /** `ruleIds` must be a permutation of the queue's rules of this kind (each once, none missing, no others); else 400 and nothing moves. */
  async reorder(actor: Actor, queueRef: string, kind: RuleKind, ruleIds: string[]): Promise<Rule[]> {
    const queue = await this.deps.access.manageable(actor, queueRef);
    return this.deps.sql.transaction(async (tx) => {
      await this.deps.settings.lock(tx, queue.id, queue.organizationId);
      const current = await this.deps.rules.list(queue.id, kind, tx);
      const known = new Set(current.map((rule) => rule.id));
      const errors: FieldError[] = [];
      const seen = new Set<string>();
      ruleIds.forEach((id, index) => {
        if (seen.has(id)) errors.push({ path: `rule_ids.${index}`, message: `${id} appears more than once` });
        else if (!known.has(id)) errors.push({ path: `rule_ids.${index}`, message: `${id} is not a ${kind} rule of this queue` });
        seen.add(id);
      });
      const missing = current.filter((rule) => !seen.has(rule.id));
      if (missing.length)
        errors.push({
          path: "rule_ids",
          message: `must list every ${kind} rule of the queue; missing ${missing.map((rule) => rule.id).join(", ")}`,
        });
      if (errors.length)
        throw new ValidationError(`rule_ids must be a permutation of the queue's ${kind} rules.`, errors, "invalid_rule_order");
      await this.deps.rules.reorder(tx, queue.id, kind, ruleIds);
      const reordered = await this.deps.rules.list(queue.id, kind, tx);
      await this.announce(tx, actor, queue, kind, {
        resourceId: null,
        change: "reordered",
        previous: current.map((rule) => rule.id),
        current: reordered.map((rule) => rule.id),
      });
      return reordered;
    });
  }
}
