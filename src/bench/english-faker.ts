import type { Faker } from '@faker-js/faker';
import { faker as english } from '@faker-js/faker/locale/en';

/**
 * A fresh seeded Faker with English data and the base fallbacks, the same generator as
 * `new Faker({ locale: [en, base] })`: built from the English-only entry of the package, whose
 * main entry loads all of its locales (about 130 ms of CPU at every start of the CLI, issue #28).
 * A fresh instance per world or corpus: the shared one would leak state between seeds.
 */
export function englishFaker(seed: number): Faker {
  const EnglishFaker = english.constructor as new (opts: {
    locale: Faker['rawDefinitions'];
  }) => Faker;
  const f = new EnglishFaker({ locale: english.rawDefinitions });
  f.seed(seed);
  return f;
}
