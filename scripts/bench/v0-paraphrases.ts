/**
 * Meaning-preserving rewordings of the shipped v0 guidelines (issue 61, "Must show"), written by
 * hand with words the sim's phrase list before the lexicon did not hold ("make it compact", "steps
 * carried out", "what still needs doing"). The sim must read each as it reads v0
 * (test/sim-lexicon.test.ts) and run naive on it as on v0 (scripts/bench/sim-paraphrase.ts).
 */
export const V0_PARAPHRASES: Record<'obs' | 'hist', readonly string[]> = {
  obs: [
    "Restate the tool's response, retaining whatever bears on the agent's current task and omitting the rest. Make it compact: condense long lists and wordy records, and get rid of duplication and filler. The rewrite must stay accurate to the source and easy for the agent to follow.",
    'Turn the tool result into a shorter version that holds on to what the agent needs for its job and drops everything else. Keep it pithy: trim lengthy listings and long-winded entries, and strip out redundancy and stock text. Stay precise and true to the original wording, and make it easy for the agent to scan.',
    'Produce a pared-down copy of the tool output: hang on to the facts relevant to the agent’s task and discard the rest. Write tersely: cut down long lists and bloated records, and eliminate repeated and boilerplate text. Reproduce values accurately and make the result readable.',
    "Recast the tool's answer so it carries only what the agent requires for the current task and excludes whatever does not. Be crisp: abridge long lists and verbose records, and delete duplication and boilerplate. The output must be exact to the original and simple for the agent to read.",
    'Condense the tool response, holding on to everything the task depends on and leaving off the rest. Go for a compact result: truncate long lists and wordy records, and throw out repetition and boilerplate. Render every value precisely as in the original and make it easy for the agent to read.',
  ],
  hist: [
    'Condense the conversation up to now so the agent can resume its task from this summary alone. Record what bears on the task: the steps carried out, the findings, and what still needs doing. Make it compact and drop details that are not needed any longer.',
    'Fold the exchange so far into a summary the agent can pick up its task from without the turns. Retain whatever is pertinent to the task: the actions already performed, what was discovered, and the work that remains. Stay pithy and omit details that are obsolete now.',
    'Boil the interaction down to a summary that lets the agent continue its task with nothing else. Preserve what is of consequence for the task: what has been accomplished, what was found out, and what is still pending. Write tersely and skip details that are outdated.',
    'Sum up the session so far so that the agent can go on with its task using only the summary. Include everything that bears on the task: which steps were completed, what was learned, and what is left outstanding. Be crisp and discard details that are out of date.',
    'Compress the history up to this point so the agent can proceed with its task from the summary by itself. Maintain what is pertinent: the work finished so far, the facts gathered, and the objectives yet to be achieved. Keep it terse and remove details that are not needed anymore.',
  ],
};
