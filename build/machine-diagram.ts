// `npm run diagram`: draws `chatMachine` as a Mermaid state diagram, from the machine's own definition, into the
// README between the markers below. `build/machine-diagram.test.ts` fails when the README's picture and the machine
// differ, so the picture cannot drift.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AnyStateNode } from 'xstate';
import { chatMachine } from '../machines/chat-machine.ts';

export const README_FILE = fileURLToPath(new URL('../README.md', import.meta.url));
const BEGIN = '<!-- machine-diagram:begin (npm run diagram writes this; do not edit by hand) -->';
const END = '<!-- machine-diagram:end -->';

/** A Mermaid id for a state: its full XState id, with characters Mermaid reads as syntax replaced. */
const idOf = (node: AnyStateNode) => node.id.replace(/\W/g, '_');

type Transition = AnyStateNode['transitions'] extends Map<string, (infer T)[]> ? T : never;

function guardName(guard: Transition['guard']): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name || 'guard';
  return (guard as { type?: string }).type ?? 'guard';
}

/** What a transition's event reads as: its type, or what XState's internal events stand for. */
function eventLabels(node: AnyStateNode): Map<string, string> {
  const labels = new Map<string, string>();
  for (const delayed of node.after) {
    labels.set(delayed.eventType, `after ${typeof delayed.delay === 'number' ? `${delayed.delay} ms` : delayed.delay}`);
  }
  for (const invoke of node.invoke) {
    const src = typeof invoke.src === 'string' ? invoke.src : invoke.id;
    labels.set(`xstate.done.actor.${invoke.id}`, `${src} done`);
    labels.set(`xstate.error.actor.${invoke.id}`, `${src} error`);
  }
  return labels;
}

function transitionLines(node: AnyStateNode, indent: string): string[] {
  const labels = eventLabels(node);
  const lines: string[] = [];
  const inPlace: string[] = [];
  const entries: [string, Transition[]][] = [...node.transitions.entries()];
  if (node.always) entries.push(['always', node.always]);
  for (const [eventType, transitions] of entries) {
    for (const transition of transitions) {
      const guard = guardName(transition.guard);
      const label = `${labels.get(eventType) ?? eventType}${guard ? ` [${guard}]` : ''}`;
      if (!transition.target?.length) {
        inPlace.push(label);
        continue;
      }
      for (const target of transition.target) {
        const reenter = target === node && transition.reenter ? ' (re-enters)' : '';
        lines.push(`${indent}${idOf(node)} --> ${idOf(target)} : ${label}${reenter}`);
      }
    }
  }
  if (inPlace.length > 0) lines.push(`${indent}note left of ${idOf(node)} : handles ${inPlace.join(', ')} in place`);
  return lines;
}

function stateLines(node: AnyStateNode, indent: string): string[] {
  const children = Object.values(node.states) as AnyStateNode[];
  const invoked = node.invoke.map((invoke) => (typeof invoke.src === 'string' ? invoke.src : invoke.id));
  const name = invoked.length > 0 ? `${node.key} (invokes ${invoked.join(', ')})` : node.key;
  if (children.length === 0) return [`${indent}state "${name}" as ${idOf(node)}`];
  const inner = `${indent}  `;
  const initial = node.initial?.target ?? [];
  return [
    `${indent}state "${name}" as ${idOf(node)} {`,
    ...initial.map((target: AnyStateNode) => `${inner}[*] --> ${idOf(target)}`),
    ...children.flatMap((child) => stateLines(child, inner)),
    `${indent}}`,
  ];
}

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...(Object.values(node.states) as AnyStateNode[]).flatMap(allNodes)];
}

/**
 * The machine as a Mermaid `stateDiagram-v2`: nested states as composite states with their initial state, every
 * transition labelled with its event (`after <delay>` for delays, `<actor> done` / `<actor> error` for an invoked
 * actor's outcome) and its guard in brackets; transitions without a target are noted on their state.
 */
export function machineDiagram(root: AnyStateNode = chatMachine.root): string {
  const top = Object.values(root.states) as AnyStateNode[];
  return [
    'stateDiagram-v2',
    ...(root.initial?.target ?? []).map((target: AnyStateNode) => `  [*] --> ${idOf(target)}`),
    ...top.flatMap((node) => stateLines(node, '  ')),
    ...allNodes(root).flatMap((node) => transitionLines(node, '  ')),
  ].join('\n');
}

/** The README's diagram block, between its markers, as a Mermaid code block. */
export function diagramBlock(diagram = machineDiagram()): string {
  return `${BEGIN}\n\`\`\`mermaid\n${diagram}\n\`\`\`\n${END}`;
}

function blockBounds(readme: string): [number, number] {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${BEGIN} … ${END} markers`);
  return [start, end + END.length];
}

/** The diagram the README shows now (what is between the markers, without the code fence). */
export function diagramIn(readme: string): string {
  const [start, end] = blockBounds(readme);
  return readme
    .slice(start + BEGIN.length, end - END.length)
    .trim()
    .replace(/^```mermaid\n/, '')
    .replace(/\n```$/, '');
}

/** `readme` with the diagram block replaced by `block`; throws when the markers are missing. */
export function withDiagram(readme: string, block = diagramBlock()): string {
  const [start, end] = blockBounds(readme);
  return readme.slice(0, start) + block + readme.slice(end);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const readme = readFileSync(README_FILE, 'utf8');
  const updated = withDiagram(readme);
  writeFileSync(README_FILE, updated);
  console.log(
    updated === readme ? 'README.md: the machine diagram was up to date' : 'README.md: machine diagram written',
  );
}
