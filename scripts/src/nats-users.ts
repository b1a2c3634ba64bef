import { NATS_SERVICE_USERS, type NatsServiceUser, natsAuthorizationConfig, PRODUCTION_NAMESPACE } from "@docex/kit/bus";

/** The variable of NATS's environment that holds `user`'s password in a deployment (Secret nats-secrets). */
export function natsPasswordVariable(user: NatsServiceUser | "operator"): string {
  return `NATS_${user.toUpperCase()}_PASSWORD`;
}

/** The users of docex as deployments' NATS servers have them (deploy/k8s, docker-compose.yml): passwords from the environment. */
export function deploymentNatsUsersConfig(): string {
  const passwords = {} as Record<NatsServiceUser, { environment: string }>;
  for (const user of NATS_SERVICE_USERS) passwords[user] = { environment: natsPasswordVariable(user) };
  return natsAuthorizationConfig({
    namespace: PRODUCTION_NAMESPACE,
    passwords,
    operatorPassword: { environment: natsPasswordVariable("operator") },
  });
}
