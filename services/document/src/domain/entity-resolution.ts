import { NotFoundError, ValidationError } from "@docex/kit/errors";
import type { DocumentStore } from "../store/document-store.js";
import type { HierarchyStore } from "../store/hierarchy-store.js";
import { entityRefOf, isUuid } from "./humanized-id.js";
import type { OrganizationRef } from "./records.js";

export const ENTITY_TYPES = ["organization", "workspace", "queue", "document"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** An entity and its ancestors' ids; levels below it are empty. */
export interface ResolvedEntity {
  entityType: EntityType;
  id: string;
  humanizedId: string;
  organizationId: string;
  workspaceId: string;
  queueId: string;
  documentId: string;
}

/** Membership's answer for one organization, asked when the projection does not know it yet. */
export interface OrganizationSource {
  organization(ref: string, ctx?: { requestId?: string }): Promise<OrganizationRef | undefined>;
}

/**
 * ResolveEntity: turns "UUID or humanized id" (documents: UUID) into ids, for the gateway and every service
 * whose paths carry these ids. Organizations are membership's; they are found in this service's projection of
 * organization.created, or, for one created a moment ago whose event has not arrived yet, asked of membership
 * (and remembered), so that an organization can be used the moment it exists.
 */
export class EntityResolver {
  constructor(
    private readonly hierarchy: HierarchyStore,
    private readonly documents: DocumentStore,
    private readonly organizations: OrganizationSource,
  ) {}

  private async findOrganization(ref: string): Promise<OrganizationRef | undefined> {
    const known = await this.hierarchy.findOrganization(entityRefOf(ref));
    if (known) return known;
    const told = await this.organizations.organization(ref);
    if (told) await this.hierarchy.rememberOrganization(told);
    return told;
  }

  async resolve(entityType: string, idOrHumanized: string, organizationId?: string): Promise<ResolvedEntity> {
    if (!(ENTITY_TYPES as readonly string[]).includes(entityType)) {
      throw new ValidationError(`entity_type must be one of ${ENTITY_TYPES.join(", ")}.`);
    }
    const type = entityType as EntityType;
    const notFound = () => new NotFoundError(`No ${type} ${idOrHumanized}.`, `${type}_not_found`);
    const resolved = await this.find(type, idOrHumanized);
    if (!resolved) throw notFound();
    if (organizationId) {
      const scope = isUuid(organizationId) ? organizationId.toLowerCase() : (await this.findOrganization(organizationId))?.id;
      if (resolved.organizationId !== scope) throw notFound();
    }
    return resolved;
  }

  private async find(type: EntityType, idOrHumanized: string): Promise<ResolvedEntity | undefined> {
    const empty = { humanizedId: "", organizationId: "", workspaceId: "", queueId: "", documentId: "" };
    const ref = entityRefOf(idOrHumanized);
    switch (type) {
      case "organization": {
        const organization = await this.findOrganization(idOrHumanized);
        return (
          organization && {
            ...empty,
            entityType: type,
            id: organization.id,
            humanizedId: organization.humanizedId,
            organizationId: organization.id,
          }
        );
      }
      case "workspace": {
        const workspace = await this.hierarchy.findWorkspace(ref);
        return (
          workspace && {
            ...empty,
            entityType: type,
            id: workspace.id,
            humanizedId: workspace.humanizedId,
            organizationId: workspace.organizationId,
            workspaceId: workspace.id,
          }
        );
      }
      case "queue": {
        const queue = await this.hierarchy.findQueue(ref);
        return (
          queue && {
            ...empty,
            entityType: type,
            id: queue.id,
            humanizedId: queue.humanizedId,
            organizationId: queue.organizationId,
            workspaceId: queue.workspaceId,
            queueId: queue.id,
          }
        );
      }
      case "document": {
        const document = isUuid(idOrHumanized) ? await this.documents.find(idOrHumanized.toLowerCase()) : undefined;
        return (
          document && {
            ...empty,
            entityType: type,
            id: document.id,
            organizationId: document.organizationId,
            workspaceId: document.workspaceId,
            queueId: document.queueId,
            documentId: document.id,
          }
        );
      }
    }
  }
}
