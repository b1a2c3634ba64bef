/**
 * What Kubernetes needs to know of each process that the service list (`SERVICE_PORTS` in @docex/kit) and the
 * config schemas do not say: what it does, its sizes, who sets its replica count, the Secret keys it reads beyond
 * the shared ones, and what only it has. `generate.ts` writes deploy/k8s's per-process files and lists from it; add
 * a service to `SERVICE_PORTS` and the compiler asks for its entry here (deploy/README.md, "Adding a service or a
 * setting").
 */
import type { ServiceName } from "@docex/kit/config";

export interface Resources {
  cpu: string;
  memory: string;
  ephemeralStorage?: string;
}
export interface Sizes {
  requests: Resources;
  limits: Resources;
}

/** A Secret key the container reads as a variable of the same name (from `<service>-secrets`). */
export interface SecretVariable {
  name: string;
  /** Unset unless the Secret has the key. */
  optional?: boolean;
  /** A comment line above it in the manifest. */
  comment?: string;
}

export interface ServiceDeployment {
  /** The first comment line of its manifest (after "<name>: "), and any lines after it. */
  about: string[];
  /** Requests and limits of both the migrating init container and the service's container. */
  sizes: Sizes;
  /** A comment over the service container's resources. */
  sizesComment?: string[];
  /** A fixed count (also production's, under `production.replicas`), or a HorizontalPodAutoscaler's bounds. */
  replicas: { fixed: number } | { autoscaled: { min: number; max: number } };
  /** Secret keys beyond DATABASE_URL and NATS_PASSWORD. */
  secrets?: SecretVariable[];
  /** The container's command, with the comment that says why it is not the image's. */
  command?: { args: string[]; comment: string[] };
  /** The /tmp emptyDir's size limit (default 64Mi) and a comment on the volume or on the limit. */
  tmp?: { sizeLimit: string; volumeComment?: string[]; limitComment?: string[] };
  /** Production's sizes and its fixed replica count (none when an autoscaler sets it). */
  production: { sizes: Sizes; replicas?: number; env?: { comment: string[]; secrets: SecretVariable[] } };
  /** docker-compose.yml: a comment over its block, environment beyond the shared, what follows its environment. */
  compose?: { about?: string; environment?: string; after?: string };
  /** What this service alone has, as YAML at the place it goes (see intake's). */
  extra?: {
    ports?: string;
    env?: string;
    volumeMounts?: string;
    volumes?: string;
    /** Whole objects after its PodDisruptionBudget. */
    objects?: string;
  };
}

const small: Sizes = {
  requests: { cpu: "100m", memory: "192Mi", ephemeralStorage: "64Mi" },
  limits: { cpu: '"1"', memory: "384Mi", ephemeralStorage: "128Mi" },
};
const medium: Sizes = {
  requests: { cpu: "200m", memory: "256Mi", ephemeralStorage: "64Mi" },
  limits: { cpu: '"1"', memory: "512Mi", ephemeralStorage: "128Mi" },
};
const autoscaled = { autoscaled: { min: 2, max: 6 } };
const productionSmall: Sizes = { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: '"1"', memory: "512Mi" } };
const productionLarge: Sizes = { requests: { cpu: "500m", memory: "384Mi" }, limits: { cpu: '"2"', memory: "768Mi" } };
const productionUploads: Sizes = { requests: { cpu: "250m", memory: "384Mi" }, limits: { cpu: '"1"', memory: "1Gi" } };

/** The gateway's production sizes (its base manifest, base/gateway.yaml, is written by hand: it is no service). */
export const GATEWAY_PRODUCTION: Sizes = { requests: { cpu: "500m", memory: "256Mi" }, limits: { cpu: '"2"', memory: "512Mi" } };

export const SERVICE_DEPLOYMENTS = {
  auth: {
    compose: {
      environment: `      AUTH_KEY_ENCRYPTION_KEY: \${AUTH_KEY_ENCRYPTION_KEY:?set AUTH_KEY_ENCRYPTION_KEY to a 32-byte base64 key (openssl rand -base64 32), see deploy/README.md}
      # Passed through from the shell or .env when set, left unset otherwise.
      SMTP_URL:
      SOCIAL_OIDC_ISSUERS:
      BOOTSTRAP_OWNER_EMAIL:
      BOOTSTRAP_OWNER_PASSWORD:
`,
    },
    about: ["users, credentials, sessions, JWT signing keys (JWKS)."],
    sizes: medium,
    replicas: { fixed: 2 },
    secrets: [
      { name: "AUTH_KEY_ENCRYPTION_KEY" },
      { name: "SMTP_URL", optional: true, comment: "unset: mail is only logged and published" },
      { name: "BOOTSTRAP_OWNER_EMAIL", optional: true, comment: "both set: start-up creates this owner if missing" },
      { name: "BOOTSTRAP_OWNER_PASSWORD", optional: true },
    ],
    production: { sizes: { requests: { cpu: "500m", memory: "384Mi" }, limits: { cpu: '"2"', memory: "768Mi" } }, replicas: 3 },
  },
  membership: {
    about: ["organizations, memberships, roles, user annotation schemas."],
    sizes: small,
    replicas: { fixed: 2 },
    production: { sizes: productionSmall, replicas: 3 },
  },
  document: {
    compose: {
      environment: `      DOCUMENT_VALIDATION_TIMEOUT_MS:
      INITIAL_VALIDATION_TIMEOUT_MS:
`,
    },
    about: ["workspaces, queues, documents, annotations, validation."],
    sizes: {
      requests: { cpu: "200m", memory: "256Mi", ephemeralStorage: "160Mi" },
      limits: { cpu: '"1"', memory: "512Mi", ephemeralStorage: "256Mi" },
    },
    sizesComment: [
      "ephemeral-storage covers the /tmp emptyDir below at its size limit plus the container's logs: the kubelet",
      "evicts a pod whose emptyDirs, writable layers and logs together pass its containers' limits.",
    ],
    replicas: autoscaled,
    tmp: {
      sizeLimit: "128Mi",
      volumeComment: [
        'The upload spool (services/document DECISIONS.md, "Uploads in flight"): with FILE_STORE_URL=s3://..., an',
        "upload of unknown length is counted here first, one file of at most DOCUMENT_MAX_FILE_BYTES (25 MiB) per",
        "upload in flight, and DOCUMENT_MAX_CONCURRENT_UPLOADS (document.env: 4) are in flight at most: 100 MiB, plus",
        "room for the runtime's own temporary files. The Postgres store streams and spools nothing.",
      ],
    },
    production: {
      sizes: productionLarge,
      env: {
        comment: [
          "The S3 file store's key (file-store.yaml), from document's own Secret. Optional: with a workload",
          "identity (IRSA, EKS Pod Identity, GKE or Azure workload identity through an S3-compatible gateway)",
          "the SDK finds its credentials without them.",
        ],
        secrets: [
          { name: "AWS_ACCESS_KEY_ID", optional: true },
          { name: "AWS_SECRET_ACCESS_KEY", optional: true },
        ],
      },
    },
  },
  automation: {
    about: ["automation switches and rules per queue."],
    sizes: small,
    replicas: { fixed: 2 },
    production: { sizes: productionSmall, replicas: 2 },
  },
  learning: {
    about: ["learn feedback, relearn, supplier field memory."],
    sizes: small,
    replicas: { fixed: 2 },
    production: { sizes: productionSmall, replicas: 2 },
  },
  register: {
    about: ["registers and their items."],
    sizes: {
      requests: { cpu: "100m", memory: "256Mi", ephemeralStorage: "64Mi" },
      limits: { cpu: '"1"', memory: "768Mi", ephemeralStorage: "128Mi" },
    },
    replicas: { fixed: 2 },
    command: {
      args: ["node", "--max-old-space-size=384", "--import", "@docex/kit/tracing/register", "services/register/dist/main.js"],
      comment: [
        "The image's command with a V8 heap for two of the largest uploads (50 MiB each) at once,",
        "twice what they need; the memory limit adds their raw bodies and texts, which live outside",
        'the heap (deploy/README.md, "Register uploads"; kubernetes-workloads.test.ts reads them).',
      ],
    },
    production: { sizes: productionUploads, replicas: 2 },
  },
  webhook: {
    compose: {
      environment: `      WEBHOOK_KEY_ENCRYPTION_KEY: \${WEBHOOK_KEY_ENCRYPTION_KEY:?set WEBHOOK_KEY_ENCRYPTION_KEY to a 32-byte base64 key (openssl rand -base64 32), see deploy/README.md}
      # Receivers must be public addresses: the other containers of this stack are private.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "false"
      WEBHOOK_RETRY_SCHEDULE:
      DOCUMENT_VALIDATION_TIMEOUT_MS:
      INITIAL_VALIDATION_TIMEOUT_MS:
`,
    },
    about: ["webhooks, signing keys, external validation, deliveries to integrators."],
    sizes: medium,
    replicas: autoscaled,
    secrets: [{ name: "WEBHOOK_KEY_ENCRYPTION_KEY" }],
    production: { sizes: productionLarge },
  },
  extraction: {
    compose: {
      about: "Reads uploaded files (e-invoices, PDFs, scans by OCR) and hands the results to document.",
      after: `    # OCR writes rasterized pages to /tmp; the default tmpfs of the other processes is too small for them.
    tmpfs:
      - /tmp:size=512m
`,
    },
    about: ["the built-in extraction engine (reads uploaded files, hands results to document). OCR needs memory and CPU."],
    sizes: {
      requests: { cpu: "250m", memory: "512Mi", ephemeralStorage: "512Mi" },
      limits: { cpu: '"2"', memory: "2Gi", ephemeralStorage: "576Mi" },
    },
    replicas: autoscaled,
    tmp: { sizeLimit: "512Mi", limitComment: ["Rasterized pages for OCR live here while a scan is read."] },
    production: { sizes: { requests: { cpu: '"1"', memory: "1Gi" }, limits: { cpu: '"2"', memory: "2Gi" } } },
  },
  audit: {
    compose: {
      about: "The audit log: every event of the stream, read by owners and supervisors through the gateway.",
      environment: `      AUDIT_RETENTION_DAYS:
      AUDIT_PURGE_INTERVAL_MS:
`,
    },
    about: ["organizations, audits, roles, user annotation schemas."],
    sizes: small,
    replicas: { fixed: 2 },
    production: { sizes: productionUploads, replicas: 2 },
  },
  intake: {
    compose: {
      about: "The queues' inboxes: mail to a queue's inbox_email on localhost:2526 becomes documents of the queue.",
      environment: `      INTAKE_SMTP_PORT: "2526"
      INTAKE_MAIL_AUTH: \${INTAKE_MAIL_AUTH:-dns}
      INTAKE_MAX_MESSAGE_BYTES:
      INTAKE_MESSAGES_PER_SENDER_PER_MINUTE:
`,
      after: `    ports:
      - "127.0.0.1:2526:2526"
`,
    },
    about: [
      "the SMTP server of the queues' inboxes (mail's attachments become documents through document's gRPC).",
      "Mail reaches it through the LoadBalancer Service intake-smtp on port 25 (the container listens on 2526: it runs as",
      "a user that may not bind port 25); STARTTLS with the cert-manager certificate intake-smtp-tls.",
    ],
    sizes: small,
    replicas: { fixed: 2 },
    production: { sizes: productionUploads, replicas: 2 },
    extra: {
      ports: `            - name: smtp
              containerPort: 2526
`,
      env: `            - name: INTAKE_SMTP_PORT
              value: "2526"
            - name: INTAKE_TLS_CERT_FILE
              value: /var/run/docex/smtp-tls/tls.crt
            - name: INTAKE_TLS_KEY_FILE
              value: /var/run/docex/smtp-tls/tls.key
`,
      volumeMounts: `            - name: smtp-tls
              mountPath: /var/run/docex/smtp-tls
              readOnly: true
`,
      volumes: `        # The public certificate of the mail domain, for STARTTLS (cert-manager renews it; a restart picks it up).
        - name: smtp-tls
          secret:
            secretName: intake-smtp-tls
            defaultMode: 288 # 0440
            items:
              - key: tls.crt
                path: tls.crt
              - key: tls.key
                path: tls.key
`,
      objects: `# Mail from the internet: port 25 of a load balancer to the pods' SMTP port. Local traffic policy keeps the client's
# address (SPF judges it).
apiVersion: v1
kind: Service
metadata:
  name: intake-smtp
  labels:
    app.kubernetes.io/name: intake
    app.kubernetes.io/part-of: docex
    # Not "service": the ServiceMonitor scrapes the Service intake, not this one.
    app.kubernetes.io/component: mail
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector:
    app.kubernetes.io/name: intake
  ports:
    - name: smtp
      port: 25
      targetPort: smtp
      protocol: TCP
---
# The certificate of the inbox domain (INTAKE_MAIL_DOMAIN's MX host) for STARTTLS. The issuer is the installation's
# public one (ACME): name it and the host in an overlay.
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: intake-smtp-tls
  labels:
    app.kubernetes.io/name: intake
    app.kubernetes.io/part-of: docex
spec:
  secretName: intake-smtp-tls
  commonName: mail.docex.example.com
  dnsNames:
    - mail.docex.example.com
  usages:
    - digital signature
    - key encipherment
    - server auth
  privateKey:
    algorithm: ECDSA
    size: 256
    rotationPolicy: Always
  issuerRef:
    name: docex-public
    kind: ClusterIssuer
    group: cert-manager.io
---
# Anyone may deliver mail (port 25 of the Service, the pods' smtp port); everything else is as for every service.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: intake-smtp
  labels:
    app.kubernetes.io/part-of: docex
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/name: intake
  policyTypes: ["Ingress"]
  ingress:
    - ports:
        - port: smtp
`,
    },
  },
} satisfies Record<ServiceName, ServiceDeployment>;
