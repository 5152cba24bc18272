/**
 * The error of class `type` that `fn` throws: a test about an error reads its fields and message.
 * Any other error is rethrown, and a `fn` that throws nothing fails the test.
 */
export function thrownOf<E extends Error>(
  type: abstract new (...args: never[]) => E,
  fn: () => unknown,
): E {
  try {
    fn();
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error(`expected a ${type.name}, nothing was thrown`);
}
