/** One fact line of a summary: the kept scalar fields of one JSON object. */
export type Fact = { key: string; value: string };

export type SourcedFacts = {
  readonly source: string | null;
  /** Where the object sits inside a list's item (`songs[0]`, `songs[0].album`), see FactGroup. */
  readonly path: string | null;
  readonly facts: readonly Fact[];
};
