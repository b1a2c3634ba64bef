import { EVENT_SERVICES, type EventService, eventSubject, SERVICE_EVENTS } from "@docex/events";

/** The services with a NATS user of their own, as the users are named. */
export { EVENT_SERVICES as NATS_SERVICE_USERS, type EventService as NatsServiceUser } from "@docex/events";

import { deadLetterPrefixOf, type EventNamespace, inboxPrefixOf, wireSubjectOf } from "./event-bus.js";

/** The subjects a NATS user may publish to and subscribe to (nats.conf `permissions`). */
export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
}

/**
 * The user of NATS that may do anything: for an operator's tools (`replay-dead-letters`), never for a service.
 * Its password lives only with the NATS servers' and the operator's secrets.
 */
export const NATS_OPERATOR_USER = "operator";

/**
 * What `service`'s user may do, from its entry in SERVICE_EVENTS (@docex/events) alone:
 * - publish its own events, and dead letters of its consumers;
 * - the JetStream API calls its EventBus makes: account info, look up, create and update the two streams (every
 *   service ensures them at start), create a consumer only with a filter on what it consumes, look up and pull from
 *   durable consumers, ack what it was given;
 * - subscribe to the events it hears, and to its own inbox.
 * Deleting or purging a stream, deleting a consumer or a message, and any other subject are refused.
 */
export function natsPermissionsOf(service: EventService, namespace: EventNamespace): NatsPermissions {
  const events = SERVICE_EVENTS[service];
  const { stream } = namespace;
  const deadLetterStream = `${stream}_DLQ`;
  const api = "$JS.API";
  const consumedFilters = events.consumes.map((type) =>
    type === ">" ? `${namespace.subjectPrefix}.>` : wireSubjectOf(eventSubject(type), namespace),
  );
  const publish = [
    ...events.publishes.map((type) => wireSubjectOf(eventSubject(type), namespace)),
    `${api}.INFO`,
    ...[stream, deadLetterStream].flatMap((name) => [
      `${api}.STREAM.INFO.${name}`,
      `${api}.STREAM.CREATE.${name}`,
      `${api}.STREAM.UPDATE.${name}`,
    ]),
  ];
  if (consumedFilters.length > 0) {
    publish.push(
      // The consumer's name is a token of its own; the filter that follows it is what JetStream checks against the
      // consumer's configuration, so a service can only ever read the subjects it consumes.
      ...consumedFilters.map((filter) => `${api}.CONSUMER.CREATE.${stream}.*.${filter}`),
      `${api}.CONSUMER.INFO.${stream}.*`,
      `${api}.CONSUMER.MSG.NEXT.${stream}.*`,
      "$JS.ACK.>",
      `${deadLetterPrefixOf(namespace)}.*`,
    );
  }
  const subscribe = [...events.hears.map((type) => wireSubjectOf(eventSubject(type), namespace)), `${inboxPrefixOf(service)}.>`];
  return { publish: unique(publish), subscribe: unique(subscribe) };
}

/** How a user's password is written in nats.conf: the password itself, or a variable NATS reads from its environment. */
export type NatsPassword = { value: string } | { environment: string };

/**
 * nats.conf's `authorization` block: one user per service with `natsPermissionsOf`, and the operator's user with
 * no limits when its password is given. Every deployment's configuration comes out of this function.
 */
export function natsAuthorizationConfig(options: {
  namespace: EventNamespace;
  passwords: Record<EventService, NatsPassword>;
  operatorPassword?: NatsPassword;
}): string {
  const users = EVENT_SERVICES.map((service) => {
    const { publish, subscribe } = natsPermissionsOf(service, options.namespace);
    return [
      "    {",
      `      user: ${quoted(service)}`,
      `      password: ${passwordIn(options.passwords[service])}`,
      "      permissions: {",
      `        publish: { allow: [${publish.map(quoted).join(", ")}] }`,
      `        subscribe: { allow: [${subscribe.map(quoted).join(", ")}] }`,
      "      }",
      "    }",
    ].join("\n");
  });
  if (options.operatorPassword)
    users.push(`    {\n      user: ${quoted(NATS_OPERATOR_USER)}\n      password: ${passwordIn(options.operatorPassword)}\n    }`);
  return [
    `# Generated from SERVICE_EVENTS (packages/events/src/service-events.ts) by natsAuthorizationConfig (@docex/kit);`,
    `# stream ${options.namespace.stream}, subjects ${options.namespace.subjectPrefix}.>. Do not edit: regenerate.`,
    "authorization {",
    "  users: [",
    users.join("\n"),
    "  ]",
    "}",
    "",
  ].join("\n");
}

function passwordIn(password: NatsPassword): string {
  if ("environment" in password) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(password.environment)) throw new Error(`not an environment variable's name: ${password.environment}`);
    return `$${password.environment}`;
  }
  return quoted(password.value);
}

/** A string of nats.conf: JSON's quoting is its own. */
function quoted(text: string): string {
  return JSON.stringify(text);
}

function unique(subjects: string[]): string[] {
  return [...new Set(subjects)];
}
