import { authenticate, callerOf, MethodNotAllowedError, parseInput, type TokenVerifier } from "@docex/kit";
import type { Request, Router } from "express";
import type { MemberListing } from "../domain/member-listing.js";
import type { Organizations } from "../domain/organizations.js";
import type { RoleAssignment } from "../domain/role-assignment.js";
import type { UserSchemas } from "../domain/user-schemas.js";
import { memberResponse, organizationResponse, userSchemaResponse } from "./responses.js";
import { assignRolesBody, createOrganizationBody, manageUserSchemaBody, pageQuery } from "./schemas.js";

const ORGANIZATIONS = "/api/v2/organizations";
const ORGANIZATION = `${ORGANIZATIONS}/:organization_id`;

export interface MembershipDomain {
  organizations: Organizations;
  listing: MemberListing;
  roleAssignment: RoleAssignment;
  userSchemas: UserSchemas;
}

function ctxOf(req: Request) {
  return { requestId: req.requestId };
}

function organizationRef(req: Request): string {
  return String(req.params.organization_id);
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every path needs an access token. */
export function membershipRoutes(domain: MembershipDomain, verifier: TokenVerifier): (router: Router) => void {
  const { organizations, listing, roleAssignment, userSchemas } = domain;

  return (router) => {
    router.use(ORGANIZATIONS, authenticate(verifier));

    router.post(ORGANIZATIONS, async (req, res) => {
      const caller = callerOf(req);
      const body = parseInput(createOrganizationBody, req.body);
      const { organization } = await organizations.create(
        {
          name: body.name,
          ownerUserId: caller.userId,
          ...(body.humanized_id ? { humanizedId: body.humanized_id } : {}),
          ...(caller.email ? { ownerEmail: caller.email } : {}),
        },
        ctxOf(req),
      );
      res
        .status(201)
        .location(`${ORGANIZATIONS}/${organization.id}`)
        .json({ data: organizationResponse(organization) });
    });

    router.get(ORGANIZATIONS, async (req, res) => {
      const { page, page_size } = parseInput(pageQuery, req.query, "query");
      const { organizations: found, total } = await organizations.ofUser(callerOf(req).userId, {
        offset: (page - 1) * page_size,
        limit: page_size,
      });
      res.json({
        data: found.map(organizationResponse),
        pagination: { page, page_size, total, total_pages: Math.ceil(total / page_size) },
      });
    });

    router.get(ORGANIZATION, async (req, res) => {
      const { organization } = await organizations.visibleTo(organizationRef(req), callerOf(req).userId);
      res.json({ data: organizationResponse(organization) });
    });

    router.get(`${ORGANIZATION}/raw-memberships`, async (req, res) => {
      const { organization, caller } = await organizations.visibleTo(organizationRef(req), callerOf(req).userId);
      const members = await listing.visibleTo(organization, caller, ctxOf(req));
      res.json({ data: members.map(memberResponse) });
    });

    router.post(`${ORGANIZATION}/assign-roles`, async (req, res) => {
      const { organization } = await organizations.visibleTo(organizationRef(req), callerOf(req).userId);
      const operations = parseInput(assignRolesBody, req.body);
      await roleAssignment.apply(organization, callerOf(req).userId, operations, ctxOf(req));
      const { caller } = await organizations.visibleTo(organization.id, callerOf(req).userId);
      const members = await listing.visibleTo(organization, caller, ctxOf(req));
      res.json({ data: members.map(memberResponse) });
    });

    router.post(`${ORGANIZATION}/manage-user-schema`, async (req, res) => {
      const { organization, caller } = await organizations.visibleTo(organizationRef(req), callerOf(req).userId);
      const body = parseInput(manageUserSchemaBody, req.body);
      const saved = await userSchemas.manage(organization, caller, { userId: body.user_id, queueId: body.queue_id, fields: body.fields });
      res.json({ data: userSchemaResponse(saved) });
    });

    const methods: Array<[string, string[]]> = [
      [ORGANIZATIONS, ["GET", "POST"]],
      [ORGANIZATION, ["GET"]],
      [`${ORGANIZATION}/raw-memberships`, ["GET"]],
      [`${ORGANIZATION}/assign-roles`, ["POST"]],
      [`${ORGANIZATION}/manage-user-schema`, ["POST"]],
    ];
    for (const [path, allowed] of methods) {
      router.all(path, (_req, res) => {
        res.setHeader("allow", allowed.join(", "));
        throw new MethodNotAllowedError(allowed);
      });
    }
  };
}
