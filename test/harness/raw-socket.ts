/**
 * HTTP/1.1 over a bare TCP socket: the test writes the exact request bytes (any method
 * spelling, duplicate header lines, NUL or non-ASCII bytes, oversized heads) and gets the
 * exact response back, parsed by hand. Node's own client refuses most of these inputs, which
 * is why hostile-input tests need this. Well-formed requests go through `http-client.ts`
 * (Node's client: exact headers, raw body bytes); this file is for bytes Node would refuse.
 */
import net from 'node:net';

export interface RawHttpResponse {
  readonly status: number;
  readonly reason: string;
  /** Header lines in order, names lower-cased. */
  readonly headerLines: ReadonlyArray<readonly [string, string]>;
  /** The value of a header (first line) or undefined. */
  header(name: string): string | undefined;
  readonly body: Buffer;
  /** Whether the body was framed by Transfer-Encoding: chunked. */
  readonly chunked: boolean;
}

export type RawOutcome =
  | { readonly kind: 'response'; readonly response: RawHttpResponse; readonly elapsedMs: number }
  | { readonly kind: 'closed'; readonly received: Buffer; readonly elapsedMs: number }
  | { readonly kind: 'timeout'; readonly received: Buffer; readonly elapsedMs: number };

const HEAD_END = Buffer.from('\r\n\r\n');

interface ParsedHead {
  readonly status: number;
  readonly reason: string;
  readonly headerLines: Array<[string, string]>;
  readonly bodyStart: number;
}

function parseHead(data: Buffer, from: number): ParsedHead | undefined {
  const end = data.indexOf(HEAD_END, from);
  if (end === -1) return undefined;
  const lines = data.subarray(from, end).toString('latin1').split('\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
  if (!statusLine) throw new Error(`not an HTTP status line: ${JSON.stringify(lines[0])}`);
  const headerLines: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`malformed response header line: ${JSON.stringify(line)}`);
    headerLines.push([line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return {
    status: Number(statusLine[1]),
    reason: statusLine[2] ?? '',
    headerLines,
    bodyStart: end + HEAD_END.length,
  };
}

/** Decodes a complete chunked body, or undefined while incomplete. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error('malformed chunk size');
    if (size === 0) return Buffer.concat(parts);
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Parses one final response starting at `from`; undefined while incomplete. */
function parseOne(
  data: Buffer,
  from: number,
  method: string,
): { response: RawHttpResponse; end: number } | undefined {
  for (;;) {
    const head = parseHead(data, from);
    if (!head) return undefined;
    // Interim responses (100 Continue) precede the final one.
    if (head.status >= 100 && head.status < 200 && head.status !== 101) {
      from = head.bodyStart;
      continue;
    }
    const header = (name: string) => head.headerLines.find(([n]) => n === name)?.[1];
    const rest = data.subarray(head.bodyStart);
    const bodiless = method === 'HEAD' || head.status === 204 || head.status === 304;
    const chunked = /chunked/i.test(header('transfer-encoding') ?? '');
    let body: Buffer | undefined;
    let end = head.bodyStart;
    if (bodiless) body = Buffer.alloc(0);
    else if (chunked) {
      body = dechunk(rest);
      end = data.length; // chunked answers are only read to the end of what arrived
    } else if (header('content-length') !== undefined) {
      const length = Number(header('content-length'));
      body = rest.length >= length ? rest.subarray(0, length) : undefined;
      end = head.bodyStart + length;
    }
    if (body === undefined) return undefined;
    return {
      response: {
        status: head.status,
        reason: head.reason,
        headerLines: head.headerLines,
        header,
        body,
        chunked,
      },
      end,
    };
  }
}

function tryComplete(data: Buffer, method: string): RawHttpResponse | undefined {
  return parseOne(data, 0, method)?.response;
}

/**
 * Writes `chunks` on one keep-alive connection (a pause between chunks, so a request may be
 * split across TCP segments) and reads responses until one per entry of `methods` arrived,
 * the server closed, or the timeout. `extra` is any byte that came after the last response.
 */
export function rawPipeline(
  port: number,
  chunks: readonly Buffer[],
  methods: readonly string[],
  options: { timeoutMs?: number; pauseMs?: number } = {},
): Promise<{ responses: RawHttpResponse[]; extra: Buffer; closed: boolean; timedOut: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const parseAll = () => {
      const responses: RawHttpResponse[] = [];
      let at = 0;
      while (responses.length < methods.length) {
        const one = parseOne(received, at, methods[responses.length]!.toUpperCase());
        if (!one) break;
        responses.push(one.response);
        at = one.end;
      }
      return { responses, extra: received.subarray(at) };
    };
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAll(), closed, timedOut });
    };
    const timer = setTimeout(() => finish(false, true), options.timeoutMs ?? 5000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      try {
        const { responses, extra } = parseAll();
        // Wait a moment after the last expected response for anything unexpected.
        if (responses.length === methods.length)
          setTimeout(() => finish(false, false), extra.length > 0 ? 0 : 15);
      } catch {
        finish(false, false);
      }
    });
    socket.on('close', () => finish(true, false));
    socket.on('error', () => finish(true, false));
    void (async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
      }
    })();
  });
}

/**
 * Sends `request` on a fresh connection and resolves with the first final response, the
 * connection closing without one, or a timeout. `method` tells whether a body is expected.
 * A response without framing (no Content-Length, not chunked) is read until the server closes.
 */
export function rawExchange(
  port: number,
  request: Buffer | string,
  options: { method?: string; timeoutMs?: number; host?: string } = {},
): Promise<RawOutcome> {
  const method = (options.method ?? 'GET').toUpperCase();
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, options.host ?? '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ kind: 'timeout', received, elapsedMs: Date.now() - started }),
      options.timeoutMs ?? 5000,
    );
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      try {
        const response = tryComplete(received, method);
        if (response) finish({ kind: 'response', response, elapsedMs: Date.now() - started });
      } catch {
        // Keep reading; a close will report what arrived.
      }
    });
    const onEnd = () => {
      if (settled) return;
      // Unframed bodies end at close: parse what arrived with everything as the body.
      try {
        const head = parseHead(received, 0);
        if (head && !(head.status >= 100 && head.status < 200)) {
          const header = (name: string) => head.headerLines.find(([n]) => n === name)?.[1];
          const full = tryComplete(received, method);
          const response: RawHttpResponse = full ?? {
            status: head.status,
            reason: head.reason,
            headerLines: head.headerLines,
            header,
            body: received.subarray(head.bodyStart),
            chunked: false,
          };
          finish({ kind: 'response', response, elapsedMs: Date.now() - started });
          return;
        }
      } catch {
        // fall through
      }
      finish({ kind: 'closed', received, elapsedMs: Date.now() - started });
    };
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', () => onEnd());
    socket.write(request);
  });
}

/** Builds request bytes; header values are written as given (latin1 for strings). */
export function buildRequest(
  method: string,
  target: string | Buffer,
  headers: ReadonlyArray<readonly [string, string | Buffer]>,
  options: { version?: string; close?: boolean } = {},
): Buffer {
  const parts: Buffer[] = [
    Buffer.from(`${method} `, 'latin1'),
    Buffer.isBuffer(target) ? target : Buffer.from(target, 'latin1'),
    Buffer.from(` ${options.version ?? 'HTTP/1.1'}\r\n`, 'latin1'),
  ];
  const all: Array<readonly [string, string | Buffer]> = [['Host', '127.0.0.1'], ...headers];
  if (options.close ?? true) all.push(['Connection', 'close']);
  for (const [name, value] of all) {
    parts.push(
      Buffer.from(`${name}: `, 'latin1'),
      Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from('\r\n'));
  return Buffer.concat(parts);
}

/**
 * Header values on the wire: characters up to U+00FF are sent as one byte (so NBSP is the
 * single byte 0xA0), anything above as UTF-8. Node decodes header bytes as latin1, so
 * `serverView` is exactly the string the service sees.
 */
export function toWire(text: string): Buffer {
  const parts: Buffer[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    parts.push(code <= 0xff ? Buffer.from([code]) : Buffer.from(ch, 'utf8'));
  }
  return Buffer.concat(parts);
}

export function serverView(wire: Buffer): string {
  return wire.toString('latin1');
}

/** Replaces bytes a request line or header value cannot carry (CTLs, CR, LF) with `x`. */
export function headerSafe(text: string): string {
  return [...text]
    .map((c) => (/[\t\x20-\x7e]/.test(c) || c.codePointAt(0)! > 0x7f ? c : 'x'))
    .join('');
}
