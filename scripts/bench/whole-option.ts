/** A whole number ≥ 1 from a command-line option, or a one-line usage error (exit code 2). */
export function wholeOption(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a whole number of at least 1, got "${text}"`);
    process.exit(2);
  }
  return n;
}
