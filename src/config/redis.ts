import { z } from 'zod';
import { flag, integer } from './fields.js';
import type { RedisSettings } from '../store/open-store.js';
import type { RedisAddress, RedisTopology } from '../store/redis-connection.js';

/**
 * The Redis variables of src/config.ts: their zod fields, and the rules between them
 * (exactly one topology; what each topology requires and accepts). Messages name the
 * variables, never a value: a URL or a password may be in it.
 */

/** `host:port`, the host a name, an IPv4 address or a bracketed IPv6 address. */
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;

function addressList(name: string) {
  return z.string().transform((value, ctx): RedisAddress[] => {
    const addresses: RedisAddress[] = [];
    for (const entry of value.split(',').map((part) => part.trim())) {
      const match = HOST_PORT.exec(entry);
      const port = Number(match?.[2]);
      if (!match || port < 1 || port > 65535) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a comma-separated list of host:port (port 1-65535)` });
        return z.NEVER;
      }
      addresses.push({ host: (match[1] as string).replace(/^\[(.*)\]$/, '$1'), port });
    }
    return addresses;
  });
}

export const REDIS_FIELDS = {
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://')
    .optional(),
  REDIS_CLUSTER_NODES: addressList('REDIS_CLUSTER_NODES').optional(),
  REDIS_SENTINELS: addressList('REDIS_SENTINELS').optional(),
  REDIS_SENTINEL_NAME: z.string().min(1).optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  REDIS_TLS: flag('REDIS_TLS'),
  REDIS_USERNAME: z.string().min(1).optional(),
  REDIS_PASSWORD: z.string().min(1).optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .min(1)
    .max(64)
    .regex(
      /^[^{}]*$/,
      'REDIS_KEY_PREFIX must not contain { or }: Redis Cluster would hash every key by the tag in the prefix, one slot for all',
    )
    .default('oauth:'),
  REDIS_COMMAND_TIMEOUT_MS: integer('REDIS_COMMAND_TIMEOUT_MS', 50, 60_000, 'milliseconds').default(1000),
  REDIS_MIN_REPLICAS_ACK: integer('REDIS_MIN_REPLICAS_ACK', 0, 16).default(0),
  REDIS_REPLICAS_ACK_TIMEOUT_MS: integer('REDIS_REPLICAS_ACK_TIMEOUT_MS', 1, 60_000, 'milliseconds').default(500),
};

type RedisEnv = z.infer<z.ZodObject<typeof REDIS_FIELDS>>;

const TOPOLOGIES = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const;

/** Problems between the Redis variables, one line each; empty when they fit together. */
export function redisProblems(e: RedisEnv): string[] {
  const problems: string[] = [];
  const chosen = TOPOLOGIES.filter((name) => e[name] !== undefined);
  if (chosen.length > 1)
    problems.push(`set only one of REDIS_URL, REDIS_CLUSTER_NODES and REDIS_SENTINELS (found ${chosen.join(' and ')})`);
  if (e.REDIS_SENTINELS && !e.REDIS_SENTINEL_NAME) {
    problems.push('REDIS_SENTINEL_NAME is required with REDIS_SENTINELS: the name the sentinels monitor the primary under');
  }
  for (const name of ['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD'] as const) {
    if (e[name] !== undefined && !e.REDIS_SENTINELS) problems.push(`${name} is set but REDIS_SENTINELS is not`);
  }
  if (e.REDIS_TLS && e.REDIS_URL) problems.push('REDIS_TLS is for REDIS_CLUSTER_NODES and REDIS_SENTINELS: with REDIS_URL, use rediss://');
  if (e.REDIS_URL && (e.REDIS_USERNAME || e.REDIS_PASSWORD) && urlHasCredentials(e.REDIS_URL)) {
    problems.push('REDIS_URL carries credentials and REDIS_USERNAME or REDIS_PASSWORD is set: use one or the other');
  }
  if (chosen.length === 0) {
    const needsRedis = [
      ...(e.REDIS_TLS ? ['REDIS_TLS'] : []),
      ...(e.REDIS_USERNAME ? ['REDIS_USERNAME'] : []),
      ...(e.REDIS_PASSWORD ? ['REDIS_PASSWORD'] : []),
      ...(e.REDIS_MIN_REPLICAS_ACK > 0 ? ['REDIS_MIN_REPLICAS_ACK'] : []),
    ];
    for (const name of needsRedis) problems.push(`${name} is set but no Redis is: set REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS`);
  }
  if (e.REDIS_MIN_REPLICAS_ACK > 0 && e.REDIS_REPLICAS_ACK_TIMEOUT_MS >= e.REDIS_COMMAND_TIMEOUT_MS) {
    problems.push('REDIS_REPLICAS_ACK_TIMEOUT_MS must be less than REDIS_COMMAND_TIMEOUT_MS: the wait for replicas is part of the command');
  }
  return problems;
}

function urlHasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

/** The settings of a valid environment (redisProblems found nothing); undefined: no Redis, the in-memory store. */
export function redisSettings(e: RedisEnv): RedisSettings | undefined {
  let topology: RedisTopology;
  if (e.REDIS_URL) topology = { kind: 'standalone', url: e.REDIS_URL };
  else if (e.REDIS_CLUSTER_NODES) topology = { kind: 'cluster', nodes: e.REDIS_CLUSTER_NODES };
  else if (e.REDIS_SENTINELS && e.REDIS_SENTINEL_NAME) {
    topology = { kind: 'sentinel', sentinels: e.REDIS_SENTINELS, name: e.REDIS_SENTINEL_NAME, sentinelPassword: e.REDIS_SENTINEL_PASSWORD };
  } else return undefined;
  return Object.freeze({
    topology,
    tls: e.REDIS_TLS,
    username: e.REDIS_USERNAME,
    password: e.REDIS_PASSWORD,
    replicaAck: { minReplicas: e.REDIS_MIN_REPLICAS_ACK, timeoutMs: e.REDIS_REPLICAS_ACK_TIMEOUT_MS },
  });
}
