import type { z } from 'zod';
import { integer } from './fields.js';

/** The variables of the device authorization grant (RFC 8628), parsed by src/config/index.ts with the others. */

export const DEVICE_FIELDS = {
  DEVICE_CODE_TTL: integer('DEVICE_CODE_TTL', 60, 1800, 'seconds').default(600),
  DEVICE_USER_CODE_MAX_FAILURES: integer('DEVICE_USER_CODE_MAX_FAILURES', 1, 10_000).default(10),
};

type DeviceVariables = z.output<z.ZodObject<typeof DEVICE_FIELDS>>;

export interface DeviceConfig {
  readonly device: {
    /** How long a device code and its user code are good for, in seconds (RFC 8628 §3.2 `expires_in`). */
    readonly codeTtlSeconds: number;
    /** Wrong user codes one client address may enter per minute at /device (RFC 8628 §5.1). */
    readonly userCodeMaxFailures: number;
  };
}

export function deviceConfig(e: DeviceVariables): DeviceConfig {
  return {
    device: Object.freeze({ codeTtlSeconds: e.DEVICE_CODE_TTL, userCodeMaxFailures: e.DEVICE_USER_CODE_MAX_FAILURES }),
  };
}
