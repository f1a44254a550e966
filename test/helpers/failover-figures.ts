import type { RedisProcess } from '../../harness/redis.js';

/** What the failover harness (test/helpers/failover-load.ts) is given, and what it measures. */

export interface FailoverFigures {
  readonly minReplicasAck: number;
  readonly requests: number;
  /** Seconds the load ran. */
  readonly loadS: number;
  readonly codeRedemptions: number;
  readonly rotations: number;
  readonly byStatus: Record<string, number>;
  readonly longestRequestMs: number;
  /** Requests started between the kill and the end of the last failed one. */
  readonly requestsDuringFailover: number;
  /** Seconds from the kill to the first failed request (undefined: none failed). */
  readonly firstFailureAfterS: number | undefined;
  /** Seconds from the kill to the end of the last failed request: when requests succeed again. */
  readonly recoveredAfterS: number;
  /** Seconds from the kill until the topology announced a promoted replica. */
  readonly promotedAfterS: number | undefined;
  /**
   * With REDIS_MIN_REPLICAS_ACK > 0: seconds from the kill until the promoted replica had
   * that many replicas online again (Redis re-attaching them is Redis's own time; until
   * then WAIT cannot succeed and the server rightly fails closed).
   */
  readonly acknowledgingAfterS: number | undefined;
  /** Seconds /readyz of one instance answered 503 after the kill, and when it was 200 again. */
  readonly readyzUnavailableS: number;
  readonly readyzBackAfterS: number | undefined;
  /** Successful redemptions that, presented again after the failover, were redeemed a second time. */
  readonly codesRedeemedTwice: number;
  /** Rotated refresh tokens that introspection called active again after the failover. */
  readonly rotatedTokensActive: number;
  /** Rotated refresh tokens that a refresh accepted again after the failover. */
  readonly rotatedTokensAccepted: number;
  /**
   * The answers (`<status> <error>`, counted) when the tokens each family had rotated before
   * the kill were presented again, after the promotion, as soon as /readyz answered 200 on
   * every server (while the load goes on).
   */
  readonly rotatedBeforeKillAnswers: Record<string, number>;
  /**
   * Why the store failed the requests that answered server_error, from the servers' error
   * logs (counted, the numbers in each reason replaced by N): when an answer is not what
   * the test expects, this says which store call failed and how.
   */
  readonly storeErrors: Record<string, number>;
}

export interface FailoverScenario {
  /** The environment that points the servers at the topology (REDIS_CLUSTER_NODES, REDIS_SENTINELS, ...). */
  readonly redisEnv: Record<string, string>;
  readonly minReplicasAck: number;
  /** The primary to kill, and its replicas. */
  readonly victim: () => Promise<{ primary: RedisProcess; replicas: RedisProcess[] }>;
  /** Whether a replica has taken the dead primary's place, as the topology announces it. */
  readonly promoted: (dead: RedisProcess) => Promise<boolean>;
  /** Resolves once the topology is healthy again. */
  readonly settled: () => Promise<void>;
}
