/** What a command can ask of the prompt it runs in (see repl.ts). */
export interface PromptSession {
  /** On a terminal: questions can be asked and the live view drawn. Not on one, commands answer and return. */
  readonly interactive: boolean;
  /**
   * Ask one question and wait for the line typed; undefined at EOF or when Ctrl-C cancels the command.
   * Return alone answers '' (keep the default). Aborting `signal` withdraws the question (undefined).
   */
  ask(question: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Run a line as if typed at the prompt (the interview's "start now?" starts a crawl). */
  run(line: string): Promise<number>;
}
