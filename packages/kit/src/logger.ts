import { type Logger, pino } from "pino";

export type { Logger };

/** Paths whose values are never written: credentials, tokens, keys, one-time secrets. */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-totp"]',
  'req.headers["x-otp-trusted-source"]',
  'req.headers["x-service-signature"]',
  "headers.authorization",
  "*.password",
  "*.token",
  "*.access_token",
  "*.refresh_token",
  "*.id_token",
  "*.otp_trusted_source",
  "*.pin",
  "*.secret",
  "*.key",
  "*.signing_key",
  "*.private_key",
  "*.privateKey",
  "*.invitation_token",
];

export function createLogger(service: string, level = "info", destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    },
    destination,
  );
}
