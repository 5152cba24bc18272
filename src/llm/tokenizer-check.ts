import type { Config } from '../config/index.js';
import { tokenCounterFor, type TokenCounter } from './tokenizer.js';
import { roleConfig } from './role-config.js';
import { roleTokenizer } from './tokenizer-choice.js';
import type { ChatMessage, LlmRole, ToolDef } from './types.js';

/** Calls of a role whose counts are compared before judging (a first answer can be an outlier). */
const CALLS_COMPARED = 3;
/** More than this relative difference between the two counts is a wrong tokenizer, not framing. */
const TOLERANCE = 0.1;

/**
 * Compares the prompt tokens a provider reports with acon's own count in the role's tokenizer
 * on the first answered calls of each role, and warns once when they differ by more than 10%:
 * thresholds (T_obs, T_hist) then fire at the wrong size and peaks compare unlike things
 * (issue #54). Cached and simulated answers say nothing about the model and are not compared.
 */
export class TokenizerCheck {
  private readonly seen = new Map<
    LlmRole,
    { counter: TokenCounter; ours: number; theirs: number; calls: number }
  >();
  private warned = false;

  constructor(
    private readonly config: Config,
    private readonly warn: (line: string) => void,
  ) {}

  observe(
    role: LlmRole,
    request: { messages: readonly ChatMessage[]; tools?: readonly ToolDef[] },
    reportedPromptTokens: number,
  ): void {
    if (this.warned || reportedPromptTokens <= 0) return;
    let s = this.seen.get(role);
    if (!s) {
      const tokenizer = roleTokenizer(this.config, role);
      // The server's own counts are the model's tokenizer: nothing to compare them with here.
      if (tokenizer === 'server') return;
      // One counter a role: a counter other than o200k's is built with its own cache.
      const counter = tokenCounterFor(tokenizer);
      s = { counter, ours: 0, theirs: 0, calls: 0 };
      this.seen.set(role, s);
    }
    if (s.calls >= CALLS_COMPARED) return;
    s.ours += s.counter.countMessageTokens(request.messages, request.tools);
    s.theirs += reportedPromptTokens;
    s.calls += 1;
    if (s.calls < CALLS_COMPARED) return;
    const off = Math.abs(s.ours - s.theirs) / s.theirs;
    if (off <= TOLERANCE) return;
    this.warned = true;
    const endpoint = roleConfig(this.config, role).endpoint;
    this.warn(
      `warning: the ${role} model reported ${s.theirs.toLocaleString('en-US')} prompt tokens on its first ${CALLS_COMPARED} calls, acon counted ${s.ours.toLocaleString('en-US')} in ${s.counter.tokenizer ?? 'o200k'} (${Math.round(off * 100)}% off): thresholds and peaks are counted in the wrong tokenizer; set roles.${role}.tokenizer or endpoints.${endpoint}.tokenizer (o200k, cl100k, hf:PATH to the model's tokenizer.json, or server for vLLM's and SGLang's /tokenize)`,
    );
  }
}
