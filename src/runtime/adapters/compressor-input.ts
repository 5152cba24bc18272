import type { CustomCompressorModel } from '../compressor-port.js';
import type { ContextCompressor } from '../context-compressor.js';
import {
  createContextCompressor,
  type ClosableContextCompressor,
  type ContextCompressorOptions,
} from '../index.js';

/**
 * What an adapter takes: a compressor built with `createContextCompressor`, or its options with
 * the framework's own model object (`M`) allowed as the compressor model.
 */
export type AdapterCompressor<M> =
  | ContextCompressor
  | (Omit<ContextCompressorOptions, 'model'> & { model: ContextCompressorOptions['model'] | M });

/**
 * The compressor an adapter runs: the one given, or one built from options whose framework model
 * is put behind acon's compressor port by `toPort`.
 */
export function resolveCompressor<M>(
  input: AdapterCompressor<M>,
  isFrameworkModel: (model: unknown) => model is M,
  toPort: (model: M) => CustomCompressorModel,
): ContextCompressor | ClosableContextCompressor {
  if ('plan' in input && typeof input.plan === 'function') return input;
  const opts = input as Exclude<AdapterCompressor<M>, ContextCompressor>;
  const { model } = opts;
  return createContextCompressor({
    ...opts,
    model: isFrameworkModel(model) ? toPort(model) : (model as ContextCompressorOptions['model']),
  });
}
