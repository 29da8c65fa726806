import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { EXIT, type Io } from '../src/io.js';
import { onStopSignals, type SignalSource } from '../src/stop-signals.js';

/** Signals from an emitter instead of the process, and exits recorded instead of taken. */
function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  let exited: (code: number) => void = () => undefined;
  const exitedOnce = new Promise<number>((resolve) => {
    exited = resolve;
  });
  const source: SignalSource = {
    on: (s, l) => emitter.on(s, l),
    off: (s, l) => emitter.off(s, l),
    exit: (code) => {
      exits.push(code);
      exited(code);
    },
  };
  const send = (signal: NodeJS.Signals) => emitter.emit(signal, signal);
  return { emitter, source, exits, exitedOnce, send };
}

function captureIo(): Io & { text: () => string } {
  let err = '';
  const write = (t: string) => {
    err += t;
  };
  return { out: () => undefined, err: write, tty: false, text: () => err };
}

describe('onStopSignals: the first signal stops gracefully with a line, a second forces', () => {
  it('the first SIGINT or SIGTERM writes its line and starts the stop once; the second exits 130 after its line', () => {
    const p = fakeProcess();
    const io = captureIo();
    const stops: string[] = [];
    onStopSignals(
      io,
      {
        first: { line: (s) => `${s}: closing\n`, stop: (s) => stops.push(s) },
        second: { line: (s) => `${s} again: exiting now\n` },
      },
      p.source,
    );
    p.send('SIGTERM');
    expect(stops).toEqual(['SIGTERM']);
    expect(io.text()).toBe('SIGTERM: closing\n');
    expect(p.exits).toEqual([]);
    p.send('SIGINT');
    expect(stops).toEqual(['SIGTERM']);
    expect(io.text()).toBe('SIGTERM: closing\nSIGINT again: exiting now\n');
    expect(p.exits).toEqual([EXIT.interrupted]);
  });

  it('an empty line writes nothing (--json), and without a second line the second signal exits silently', () => {
    const p = fakeProcess();
    const io = captureIo();
    let stopped = 0;
    onStopSignals(io, { first: { line: '', stop: () => stopped++ } }, p.source);
    p.send('SIGINT');
    p.send('SIGINT');
    expect(stopped).toBe(1);
    expect(io.text()).toBe('');
    expect(p.exits).toEqual([EXIT.interrupted]);
  });

  it('the returned function removes both listeners', () => {
    const p = fakeProcess();
    const off = onStopSignals(captureIo(), { first: { stop: () => undefined } }, p.source);
    expect(p.emitter.listenerCount('SIGINT')).toBe(1);
    expect(p.emitter.listenerCount('SIGTERM')).toBe(1);
    off();
    expect(p.emitter.listenerCount('SIGINT')).toBe(0);
    expect(p.emitter.listenerCount('SIGTERM')).toBe(0);
  });

  it('a stop that outlasts its deadline exits 130 with the deadline line, the time read when the signal came', async () => {
    const p = fakeProcess();
    const io = captureIo();
    let ms = 60_000;
    onStopSignals(
      io,
      { first: { stop: () => undefined, deadline: { ms: () => ms, line: (t) => `stopped after ${t} ms\n` } } },
      p.source,
    );
    ms = 10;
    p.send('SIGTERM');
    const code = await Promise.race([
      p.exitedOnce,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no exit within 10 s')), 10_000).unref()),
    ]);
    expect(code).toBe(EXIT.interrupted);
    expect(io.text()).toBe('stopped after 10 ms\n');
  });

  it('listens on the process itself by default, and leaves it as it was', () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const off = onStopSignals(captureIo(), { first: { stop: () => undefined } });
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before.map((n) => n + 1));
    off();
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
  });
});
