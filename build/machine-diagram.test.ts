import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromPromise, setup } from 'xstate';
import { chatMachine } from '../machines/chat-machine';
import { diagramBlock, diagramIn, machineDiagram, README_FILE, withDiagram } from './machine-diagram';

describe('the machine diagram', () => {
  it('in the README is the one chatMachine draws today (run `npm run diagram` after changing the machine)', () => {
    const readme = readFileSync(README_FILE, 'utf8');
    expect(diagramIn(readme)).toBe(machineDiagram(chatMachine.root));
    expect(withDiagram(readme, diagramBlock(diagramIn(readme)))).toBe(readme);
  });

  it('draws nesting, initial states, guards, delays, invoke outcomes, re-entry and in-place handlers', () => {
    const machine = setup({
      actors: { work: fromPromise(async () => 'done') },
      guards: { isReady: () => true },
      delays: { tick: 10 },
    }).createMachine({
      id: 'm',
      initial: 'a',
      states: {
        a: {
          initial: 'a1',
          on: { note: {}, go: { guard: 'isReady', target: 'b' } },
          states: { a1: { after: { tick: 'a2' } }, a2: { always: '#m.b' } },
        },
        b: {
          invoke: { src: 'work', onDone: 'a', onError: '.c' },
          initial: 'c',
          states: { c: { on: { again: { target: 'c', reenter: true } }, after: { 500: '#m.a' } } },
        },
      },
    });
    expect(machineDiagram(machine.root).split('\n')).toEqual([
      'stateDiagram-v2',
      '  [*] --> m_a',
      '  state "a" as m_a {',
      '    [*] --> m_a_a1',
      '    state "a1" as m_a_a1',
      '    state "a2" as m_a_a2',
      '  }',
      '  state "b (invokes work)" as m_b {',
      '    [*] --> m_b_c',
      '    state "c" as m_b_c',
      '  }',
      '  m_a --> m_b : go [isReady]',
      '  note left of m_a : handles note in place',
      '  m_a_a1 --> m_a_a2 : after tick',
      '  m_a_a2 --> m_b : always',
      '  m_b --> m_a : work done',
      '  m_b --> m_b_c : work error',
      '  m_b_c --> m_b_c : again (re-enters)',
      '  m_b_c --> m_a : after 500 ms',
    ]);
  });

  it('refuses a README without the markers', () => {
    expect(() => diagramIn('# No picture here\n')).toThrow(/markers/);
    expect(() => withDiagram('# No picture here\n')).toThrow(/markers/);
  });
});
