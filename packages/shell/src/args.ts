import { InvalidArgumentError } from 'commander';

/** A whole number ≥ min (and ≤ max when given); the error names the flag. */
export function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `${name} must be a whole number ≥ ${min}, got "${value}"`
          : `${name} must be a whole number from ${min} to ${max}, got "${value}"`,
      );
    return n;
  };
}

/** A number ≥ min; the error names the flag. */
export function numberArg(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min)
      throw new InvalidArgumentError(`${name} must be a number ≥ ${min}, got "${value}"`);
    return n;
  };
}

/** Repeatable, comma-separated list options. */
export function listArg(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}
