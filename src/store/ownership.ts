import { hostname } from 'node:os';
import type { RunOwner } from '../domain/index.js';

/** The process working on a run. */
export type Owner = { pid: number; host: string };

/** How the store tells whether an owner is still there; tests pass fakes. */
export type OwnerProbe = {
  self: Owner;
  /** Epoch ms (the store's clock). */
  now(): number;
  /** Whether a process with this pid exists on this host. */
  pidAlive(pid: number): boolean;
};

/** The owner writes its heartbeat this often (ms). */
export const HEARTBEAT_MS = 10_000;
/** An owner silent for this long is gone, even on another host where its pid cannot be checked (ms). */
export const STALE_AFTER_MS = 6 * HEARTBEAT_MS;

export function currentOwner(): Owner {
  return { pid: process.pid, host: hostname() };
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function isSelf(owner: RunOwner, probe: OwnerProbe): boolean {
  return owner.pid === probe.self.pid && owner.host === probe.self.host;
}

/**
 * Whether the recorded owner still works on the run: its heartbeat is recent and, on this host,
 * its process exists (a SIGKILLed owner is gone at once, not only after the heartbeat goes stale).
 */
export function ownerAlive(owner: RunOwner, probe: OwnerProbe): boolean {
  if (owner.pid === null || owner.host === null || owner.heartbeatAt === null) return false;
  if (probe.now() - owner.heartbeatAt > STALE_AFTER_MS) return false;
  if (owner.host === probe.self.host) return isSelf(owner, probe) || probe.pidAlive(owner.pid);
  return true;
}

/** The one-line description of a live owner, for the refusal message. */
export function describeOwner(owner: RunOwner, probe: OwnerProbe): string {
  const ago =
    owner.heartbeatAt === null ? '?' : Math.round((probe.now() - owner.heartbeatAt) / 1000);
  return `pid ${owner.pid} on ${owner.host} (last heartbeat ${ago}s ago)`;
}
