import type { TestIssuer } from "@docex/testkit";

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  body: any;
  headers: Headers;
}

/** One user's view of a service's HTTP API, with a fresh access token from the test issuer on each call. */
export class UserApi {
  constructor(
    private readonly baseUrl: string,
    private readonly issuer: TestIssuer,
    readonly userId: string,
  ) {}

  async call(method: string, path: string, body?: unknown, options: { token?: string | null } = {}): Promise<Reply> {
    const token = options.token === undefined ? this.issuer.mint({ sub: this.userId }) : options.token;
    const response = await fetch(`${this.baseUrl}/api/v2${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  get = (path: string) => this.call("GET", path);
  post = (path: string, body?: unknown) => this.call("POST", path, body ?? {});
  patch = (path: string, body: unknown) => this.call("PATCH", path, body);

  /** The same user against another service (learning, document and membership each have their own port). */
  on(baseUrl: string): UserApi {
    return new UserApi(baseUrl, this.issuer, this.userId);
  }
}
