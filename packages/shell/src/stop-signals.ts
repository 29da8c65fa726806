import { EXIT, type Io } from './io.js';

/** A line for stderr, fixed or made from the signal's name; nothing is written when it is empty. */
export type SignalLine = string | ((signal: NodeJS.Signals) => string);

/** What the first SIGINT or SIGTERM does: stop gracefully, saying so in a line. */
export interface FirstStop {
  line?: SignalLine;
  /** The graceful stop: abort the run, close the server, leave the cluster… */
  stop: (signal: NodeJS.Signals) => void;
  /**
   * Exit anyway (code 130, with `line`) when the graceful stop has not ended the process `ms` after the first signal
   * (read then: a setting known only once the command got going). The timer does not hold the process open.
   */
  deadline?: { ms: number | (() => number); line: string | ((ms: number) => string) };
}

/** What a second signal does: force, i.e. exit at once with code 130 (interrupted), after its line if any. */
export interface SecondStop {
  line?: SignalLine;
}

/** Where the signals come from and how the process exits: the process itself, or a stand-in in tests. */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code: number): void;
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/**
 * The shell's one stop ritual: the first SIGINT or SIGTERM writes its line and starts the graceful stop, a second one
 * forces (exit 130). Returns the function that removes the listeners (a deadline already running keeps running).
 */
export function onStopSignals(
  io: Io,
  steps: { first: FirstStop; second?: SecondStop },
  source: SignalSource = process,
): () => void {
  let signalled = false;
  const say = (line: SignalLine | undefined, signal: NodeJS.Signals) => {
    const text = typeof line === 'function' ? line(signal) : line;
    if (text) io.err(text);
  };
  const listener = (signal: NodeJS.Signals) => {
    if (signalled) {
      say(steps.second?.line, signal);
      source.exit(EXIT.interrupted);
      return;
    }
    signalled = true;
    const { line, stop, deadline } = steps.first;
    say(line, signal);
    if (deadline) {
      const ms = typeof deadline.ms === 'function' ? deadline.ms() : deadline.ms;
      setTimeout(() => {
        io.err(typeof deadline.line === 'function' ? deadline.line(ms) : deadline.line);
        source.exit(EXIT.interrupted);
      }, ms).unref();
    }
    stop(signal);
  };
  for (const s of STOP_SIGNALS) source.on(s, listener);
  return () => {
    for (const s of STOP_SIGNALS) source.off(s, listener);
  };
}
