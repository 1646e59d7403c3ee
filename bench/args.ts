/** The value after `flag` on the command line (`--knob cpus`), or undefined when the flag is not there. */
export function flagValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
}
