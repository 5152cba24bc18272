import { connect as tcpConnect } from 'node:net';
import { AppWorldUnreachableError } from './errors.js';

/** Resolves once a TCP connection to the URL's host and port opens; rejects on refusal or timeout. */
export function probeTcp(url: string, timeoutMs: number): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    return Promise.reject(new AppWorldUnreachableError(url, 'not a valid URL', { cause: err }));
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new AppWorldUnreachableError(url, `no connection within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new AppWorldUnreachableError(url, err.code ?? err.message, { cause: err }));
    });
  });
}
