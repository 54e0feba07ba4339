/**
 * The kernel's queues of one local TCP connection, read with `ss` (iproute2): the bytes the
 * receiving end has not read yet (its Recv-Q) and the bytes the sending end has not had
 * acknowledged (its Send-Q). What a server's socket accepted and a client has not read lies
 * in exactly these two queues.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ConnectionQueues {
  /** Unread bytes queued at the client's socket. */
  readonly clientRecvQ: number;
  /** Unacknowledged bytes queued at the server's socket. */
  readonly serverSendQ: number;
}

/**
 * The queues of the connection between a client at local port `clientPort` and a server at
 * `serverPort`, both on this host; throws when `ss` does not list both ends.
 */
export async function connectionQueues(
  clientPort: number,
  serverPort: number,
): Promise<ConnectionQueues> {
  const { stdout } = await run('ss', [
    '-tnH',
    'state',
    'established',
    `( sport = :${clientPort} or dport = :${clientPort} )`,
  ]);
  let clientRecvQ: number | undefined;
  let serverSendQ: number | undefined;
  for (const line of stdout.trim().split('\n')) {
    const [recvQ, sendQ, local, peer] = line.trim().split(/\s+/);
    const port = (address: string | undefined) =>
      Number(address?.slice(address.lastIndexOf(':') + 1));
    if (port(local) === clientPort && port(peer) === serverPort) clientRecvQ = Number(recvQ);
    if (port(local) === serverPort && port(peer) === clientPort) serverSendQ = Number(sendQ);
  }
  if (clientRecvQ === undefined || serverSendQ === undefined)
    throw new Error(`ss lists no connection ${clientPort} <-> ${serverPort}:\n${stdout}`);
  return { clientRecvQ, serverSendQ };
}
