import { type AccessTokenVerifier, authenticate, callerOf } from "@docex/kit/auth";
import { ApiDescription, dataOf, pageBody, pageOf, pageQuery } from "@docex/kit/http";
import type { Request, RequestHandler, Response, Router } from "express";
import { z } from "zod";
import type { MemberListing } from "../domain/member-listing.js";
import type { Organizations } from "../domain/organizations.js";
import type { PersonalDataErasure } from "../domain/personal-data-erasure.js";
import type { RoleAssignment } from "../domain/role-assignment.js";
import type { UserSchemas } from "../domain/user-schemas.js";
import {
  memberResponse,
  membershipSchema,
  organizationResponse,
  organizationSchema,
  userSchemaResponse,
  userSchemaSchema,
} from "./responses.js";
import { assignRolesBody, createOrganizationBody, manageUserSchemaBody, renameOrganizationBody } from "./schemas.js";

const ORGANIZATIONS = "/api/v2/organizations";
const ORGANIZATION = `${ORGANIZATIONS}/{organization_id}`;
const ORGANIZATION_ID = { organization_id: "UUID or humanized id of the organization" };
const ORGANIZATION_TAGS = ["Organizations"];
const MEMBERSHIP_TAGS = ["Memberships"];

export interface MembershipDomain {
  organizations: Organizations;
  listing: MemberListing;
  roleAssignment: RoleAssignment;
  userSchemas: UserSchemas;
  erasure: PersonalDataErasure;
}

type Visible = Awaited<ReturnType<Organizations["visibleTo"]>>;

function ctxOf(req: Request) {
  return { requestId: req.requestId, actorUserId: callerOf(req).userId };
}

function visibleOf(res: Response): Visible {
  return res.locals.visible as Visible;
}

export interface MembershipHttp {
  /** The operations below, published at GET /openapi.json. */
  api: ApiDescription;
  routes: (router: Router) => void;
}

/** Thin routes: parse with the schema, call the domain, shape the answer. Every path needs an access token. */
export function membershipHttp(domain: MembershipDomain, verifier: AccessTokenVerifier): MembershipHttp {
  const { organizations, listing, roleAssignment, userSchemas, erasure } = domain;
  const api = new ApiDescription("membership");

  /** Resolves the path's organization before any body is parsed: one the caller cannot see is 404 whatever the body. */
  const visibleOrganization: RequestHandler = async (req, res, next) => {
    res.locals.visible = await organizations.visibleTo(String(req.params.organization_id), callerOf(req).userId);
    next();
  };

  const routes = (router: Router) => {
    router.use(ORGANIZATIONS, authenticate(verifier));

    api.route(
      router,
      {
        method: "post",
        path: ORGANIZATIONS,
        operationId: "createOrganization",
        summary: "Create an organization; the caller becomes its owner",
        description: "Without humanized_id one is made from the name. Publishes organization.created and membership.changed.",
        tags: ORGANIZATION_TAGS,
        body: createOrganizationBody,
        responses: {
          201: {
            description: "The organization",
            schema: dataOf(organizationSchema),
            headers: { Location: "`/api/v2/organizations/{id}` of the new organization" },
          },
        },
        problems: [409],
      },
      async ({ body }, req, res) => {
        const caller = callerOf(req);
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
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: ORGANIZATIONS,
        operationId: "listOrganizations",
        summary: "List the organizations the caller belongs to",
        tags: ORGANIZATION_TAGS,
        query: pageQuery,
        responses: { 200: { description: "A page of organizations", schema: pageOf(organizationSchema) } },
      },
      async ({ query }, req, res) => {
        const { page, page_size } = query;
        const { organizations: found, total } = await organizations.ofUser(callerOf(req).userId, {
          offset: (page - 1) * page_size,
          limit: page_size,
        });
        res.json(pageBody(found, organizationResponse, { page, pageSize: page_size, total }));
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: ORGANIZATION,
        operationId: "getOrganization",
        summary: "Get an organization the caller belongs to",
        tags: ORGANIZATION_TAGS,
        params: ORGANIZATION_ID,
        responses: { 200: { description: "The organization", schema: dataOf(organizationSchema) } },
        problems: [404],
      },
      visibleOrganization,
      (_input, _req, res) => {
        res.json({ data: organizationResponse(visibleOf(res).organization) });
      },
    );

    api.route(
      router,
      {
        method: "patch",
        path: ORGANIZATION,
        operationId: "renameOrganization",
        summary: "Rename an organization",
        description: "Owners and supervisors. The humanized id stays. Publishes `configuration.changed`.",
        tags: ORGANIZATION_TAGS,
        params: ORGANIZATION_ID,
        body: renameOrganizationBody,
        responses: { 200: { description: "The organization", schema: dataOf(organizationSchema) } },
        problems: [403, 404],
      },
      visibleOrganization,
      async ({ body }, req, res) => {
        const organization = await organizations.rename(visibleOf(res), body.name, ctxOf(req));
        res.json({ data: organizationResponse(organization) });
      },
    );

    api.route(
      router,
      {
        method: "get",
        path: `${ORGANIZATION}/raw-memberships`,
        operationId: "listMemberships",
        summary: "List the members visible to the caller, each with whether the caller may manage them",
        tags: MEMBERSHIP_TAGS,
        params: ORGANIZATION_ID,
        // A list without filters: any query parameter is a 400 naming it (API.md), not silently dropped.
        query: z.strictObject({}),
        responses: { 200: { description: "MembershipResponseDto", schema: dataOf(z.array(membershipSchema)) } },
        problems: [404],
      },
      visibleOrganization,
      async (_input, req, res) => {
        const { organization, caller } = visibleOf(res);
        const members = await listing.visibleTo(organization, caller, ctxOf(req));
        res.json({ data: members.map(memberResponse) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${ORGANIZATION}/assign-roles`,
        operationId: "assignRoles",
        summary: "Invite, change the role of, or remove members, all or nothing",
        description:
          "The operations apply atomically: a forbidden or invalid entry changes nothing and the problem names its index. " +
          "`invite` creates the user if needed and mails an invitation token bound to this organization; the membership is " +
          "`invited` (email as invited, name null) whether or not the email is registered, and grants nothing until the invitee " +
          "accepts it (`POST /auth/accept-invitation`, or `POST /auth/change-password` when they have no password yet). " +
          "An invitation expires after `INVITATION_TTL_DAYS` (7). Quotas per organization: at most `INVITATION_MAX_PENDING` (50) " +
          "pending invitations (409 `invitation_quota_exceeded`) and `INVITATION_MAX_PER_DAY` (100) invitations sent per 24 hours " +
          "(429 with `Retry-After`); a refused batch changes nothing and mails nothing.",
        tags: MEMBERSHIP_TAGS,
        params: ORGANIZATION_ID,
        body: assignRolesBody,
        responses: {
          200: { description: "The members after the change (MembershipResponseDto)", schema: dataOf(z.array(membershipSchema)) },
        },
        problems: [403, 404, 409, 429, 502, 503, 504],
      },
      visibleOrganization,
      async ({ body }, req, res) => {
        const { organization } = visibleOf(res);
        await roleAssignment.apply(organization, callerOf(req).userId, body, ctxOf(req));
        const { caller } = await organizations.visibleTo(organization.id, callerOf(req).userId);
        const members = await listing.visibleTo(organization, caller, ctxOf(req));
        res.json({ data: members.map(memberResponse) });
      },
    );

    api.route(
      router,
      {
        method: "post",
        path: `${ORGANIZATION}/manage-user-schema`,
        operationId: "manageUserSchema",
        summary: "Set which annotation fields a member sees or may edit, organization-wide or in one queue",
        description: "Replaces the fields of that member and queue; an empty list clears them.",
        tags: MEMBERSHIP_TAGS,
        params: ORGANIZATION_ID,
        body: manageUserSchemaBody,
        responses: { 200: { description: "The stored user schema", schema: dataOf(userSchemaSchema) } },
        problems: [403, 404],
      },
      visibleOrganization,
      async ({ body }, req, res) => {
        const { organization, caller } = visibleOf(res);
        const change = { userId: body.user_id, queueId: body.queue_id, fields: body.fields };
        const saved = await userSchemas.manage(organization, caller, change, ctxOf(req));
        res.json({ data: userSchemaResponse(saved) });
      },
    );

    api.route(
      router,
      {
        method: "delete",
        path: `${ORGANIZATION}/members/{user_id}/personal-data`,
        operationId: "eraseMemberPersonalData",
        summary: "Erase what the organization holds of a member's personal data",
        description:
          "Owners. The membership stays, deactivated, and lists no email or name; the organization's audit entries of the " +
          "person keep their shape without values. When the person belongs to no other organization, their account is erased " +
          "too (as by `DELETE /auth/me`); otherwise it stays theirs. An owner's data is not erased (409 `owner_membership`: " +
          "change their role first). Publishes `member.personal_data_erased` and `membership.changed`.",
        tags: MEMBERSHIP_TAGS,
        params: { ...ORGANIZATION_ID, user_id: "UUID of the member" },
        responses: { 204: { description: "Erased" } },
        problems: [403, 404, 409],
      },
      visibleOrganization,
      async (_input, req, res) => {
        await erasure.eraseMember(visibleOf(res), String(req.params.user_id), ctxOf(req));
        res.status(204).end();
      },
    );

    api.refuseOtherMethods(router);
  };

  return { api, routes };
}
