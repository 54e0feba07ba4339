/**
 * A `fetch` that delegates to the real global fetch (real requests to the real server) and
 * records what was sent and answered, so tests can check headers on every request.
 */
export interface RecordedRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  status?: number;
}

export function recordingFetch(): { fetch: typeof fetch; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const record: RecordedRequest = { url: String(input), headers };
    requests.push(record);
    const response = await fetch(input, init);
    record.status = response.status;
    return response;
  };
  return { fetch: wrapped, requests };
}
