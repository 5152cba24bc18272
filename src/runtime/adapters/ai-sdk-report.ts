import type { LanguageModelMiddleware } from 'ai';
import type { CompressionReport, RuntimeEvent } from '../context-compressor.js';

type Generated = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type Streamed = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = Streamed['stream'] extends ReadableStream<infer P> ? P : never;

/** The provider-metadata key a step's acon report is under: `step.providerMetadata.acon`. */
export const METADATA_KEY = 'acon';

/**
 * What a step's `providerMetadata.acon` holds: the report of the compression of the prompt that
 * step sent (JSON, as provider metadata must be; the compressor's input and output texts are left
 * out, they are in `onReport`).
 */
export type AconStepMetadata = {
  tokensBefore: number;
  tokensAfter: number;
  /** SIMULATED: acon's offline `sim` compressor, not a model. */
  simulated: boolean;
  compressions: {
    /** `obs` (a tool result) or `hist` (a history fold). */
    kind: RuntimeEvent['kind'];
    inputTokens: number;
    outputTokens: number;
    cached: boolean;
    failed: boolean;
    failureReason?: string;
  }[];
  /** The compressor failed and the prompt went uncompressed. */
  error?: string;
};

export function stepMetadata(report: CompressionReport): AconStepMetadata {
  return {
    tokensBefore: report.tokensBefore,
    tokensAfter: report.tokensAfter,
    simulated: report.simulated,
    compressions: report.events.map((e) => ({
      kind: e.kind,
      inputTokens: e.inputTokens,
      outputTokens: e.outputTokens,
      cached: e.cached,
      failed: e.failed,
      ...(e.failureReason !== undefined ? { failureReason: e.failureReason } : {}),
    })),
    ...(report.error ? { error: report.error.message } : {}),
  };
}

/** The model's answer with the report added to its provider metadata (which becomes the step's). */
export function withReport(result: Generated, report: CompressionReport | undefined): Generated {
  if (report === undefined) return result;
  return {
    ...result,
    providerMetadata: { ...result.providerMetadata, [METADATA_KEY]: stepMetadata(report) },
  };
}

/** The stream with the report added to its `finish` part's provider metadata. */
export function streamWithReport(
  result: Streamed,
  report: CompressionReport | undefined,
): Streamed {
  if (report === undefined) return result;
  const metadata = stepMetadata(report);
  return {
    ...result,
    stream: result.stream.pipeThrough(
      new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          controller.enqueue(
            part.type === 'finish'
              ? {
                  ...part,
                  providerMetadata: { ...part.providerMetadata, [METADATA_KEY]: metadata },
                }
              : part,
          );
        },
      }),
    ),
  };
}

/** A middleware that only reports `report` in the step's metadata (for `aconPrepareStep`). */
export function reportingMiddleware(report: CompressionReport): LanguageModelMiddleware {
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate }) => withReport(await doGenerate(), report),
    wrapStream: async ({ doStream }) => streamWithReport(await doStream(), report),
  };
}
