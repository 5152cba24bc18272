import { resolveGuidelinePair } from '../../src/guidelines/resolve.js';
import {
  startProxy,
  type RunningProxy,
  type StartProxyOptions,
} from '../../src/runtime/proxy/start-proxy.js';

/**
 * `acon proxy` on 127.0.0.1 (a free port) with the active guidelines, in front of a fake
 * upstream; `compressor` names a fake compressor server and the variable its key is read from.
 */
export async function startLocalProxy(
  opts: Pick<StartProxyOptions, 'config' | 'upstream' | 'record' | 'log'> & {
    compressor?: { url: string; keyEnv: string };
  },
): Promise<RunningProxy> {
  const { compressor, ...rest } = opts;
  return startProxy({
    ...rest,
    port: 0,
    host: '127.0.0.1',
    guidelines: await resolveGuidelinePair('active'),
    compressor: compressor
      ? {
          compressorBaseUrl: compressor.url,
          compressorModel: 'student',
          compressorKeyEnv: compressor.keyEnv,
        }
      : {},
  });
}
