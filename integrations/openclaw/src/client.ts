/** A small client of remem's REST API: JSON in, JSON out, two kinds of failure. */

/** remem could not be reached (down, wrong address, timed out): nothing was done. */
export class RememUnavailableError extends Error {}

/** remem answered with an error (its `{"error": ...}` sentence and the HTTP status). */
export class RememRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export class RememClient {
  constructor(readonly baseUrl: string) {}

  async post<T = Record<string, unknown>>(
    path: string,
    body: unknown,
    opts: { token?: string; timeoutMs: number },
  ): Promise<T> {
    return this.request<T>("POST", path, body, opts);
  }

  async get<T = unknown>(path: string, opts: { token?: string; timeoutMs: number }): Promise<T> {
    return this.request<T>("GET", path, undefined, opts);
  }

  async delete<T = unknown>(path: string, opts: { token?: string; timeoutMs: number }): Promise<T> {
    return this.request<T>("DELETE", path, undefined, opts);
  }

  private async request<T>(
    method: string,
    path: string,
    body: unknown,
    opts: { token?: string; timeoutMs: number },
  ): Promise<T> {
    const url = this.baseUrl + path;
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      throw new RememUnavailableError(
        `remem is not reachable at ${this.baseUrl} (${reason(err, opts.timeoutMs)}): start it ` +
          "with `remem serve`, or set the plugin's baseUrl to where it listens",
      );
    }
    const text = await response.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      throw new RememRequestError(
        `${method} ${path}: remem answered ${response.status} with a body that is not JSON ` +
          `(is ${this.baseUrl} a remem server?)`,
        response.status,
      );
    }
    if (!response.ok) {
      const said = (data as { error?: unknown }).error;
      throw new RememRequestError(
        `${method} ${path}: remem answered ${response.status}: ${typeof said === "string" ? said : text}`,
        response.status,
      );
    }
    return data as T;
  }
}

function reason(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; cause?: { code?: string; message?: string }; message?: string };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return `no answer in ${timeoutMs} ms`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
