// `npm run knowledge -- ask "question" [--language de] [--previous "question before"]`: what retrieval does with a
// question, with the server's own code and configuration (ASSISTANT_CONFIG or assistant.config.yaml): its terms and
// their weights, the candidate passages with their scores, which were given and which were cut (and by which rule),
// and whether the model would be asked for search words.
import { parseArgs } from 'node:util';
import { type Knowledge, RETRIEVAL_LIMITS, startKnowledge } from '../knowledge/knowledge.ts';
import { knowledgeSetup } from './cli-setup.ts';

/** How many candidates are listed: the given ones are among the first, and the rest only show where the cut fell. */
const SHOWN = 15;

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** The report for one question against a built index. */
export function askReport(
  knowledge: Knowledge,
  question: { latest: string; previous?: string; language?: string },
  rewrite: boolean,
): string {
  const explained = knowledge.explain(question);
  if (!explained) return 'The pages are not indexed yet.';
  const lines: string[] = [];
  // How a follow-up was looked up, and why, before what it looked up.
  if (explained.followUp) lines.push(`Follow-up (${explained.followUp.rule}): ${explained.followUp.why}.`);
  // A text is looked up in its own language's passages, or in every language's when the pages have none in it.
  for (const { text, language, terms, candidates, distinct, joined } of explained.texts) {
    const what = joined ? "the message with the previous question's words" : `"${text}"`;
    lines.push(`Looked up: ${what} in the ${language} passages (${candidates} hold any of its searched terms)`);
    if (!joined) lines.push(`  distinctive: ${distinct.join(' ') || 'none (no word the pages know)'}`);
    for (const { term, passages, weight, use } of terms) {
      lines.push(`  ${term.padEnd(18)} in ${String(passages).padStart(5)} passages  weight ${fixed(weight)}  ${use}`);
    }
  }
  lines.push(
    `Candidates (a passage must hold ${Math.round(RETRIEVAL_LIMITS.minCoverage * 100)}% of the weight; at most ` +
      `${RETRIEVAL_LIMITS.maxPassages} passages, ${RETRIEVAL_LIMITS.maxPerPage} a page, ${RETRIEVAL_LIMITS.maxTokens} tokens):`,
  );
  const ranked = explained.candidates.slice(0, SHOWN);
  if (ranked.length === 0) lines.push('  none: no passage holds any searched term');
  for (const { passage, score, coverage, verdict } of ranked) {
    const where = [passage.title, ...passage.headings.slice(-1)].join(' › ');
    const cut = verdict === 'given' ? 'given' : `cut: ${verdict}`;
    lines.push(
      `  ${cut.padEnd(24)} score ${fixed(score).padStart(6)}  coverage ${fixed(coverage)}  ${where}  ${passage.url}`,
    );
  }
  if (explained.candidates.length > SHOWN) lines.push(`  … and ${explained.candidates.length - SHOWN} more`);
  const given = explained.candidates.filter(({ verdict }) => verdict === 'given').length;
  lines.push(
    given === 0 ? 'Given: nothing (the model is told the pages do not cover it).' : `Given: ${given} passages.`,
  );
  const reason = explained.searchWords;
  lines.push(
    !reason
      ? 'Search words: not asked (the question as typed finds a confident passage).'
      : rewrite
        ? `Search words: the model would be asked once (${reason}).`
        : `Search words: not asked, rewrite_questions is false (it would be: ${reason}).`,
  );
  return lines.join('\n');
}

export async function askCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { language: { type: 'string' }, previous: { type: 'string' } },
  });
  const latest = positionals.join(' ').trim();
  if (latest === '') {
    console.error('Usage: npm run knowledge -- ask "question" [--language de] [--previous "question before"]');
    return 2;
  }
  // The pages of the server's own store (synced first when they are missing or old, as the server would).
  const setup = knowledgeSetup((line) => console.error(line));
  if (!setup) return 1;
  const { assistant } = setup;
  if (setup.sources.length === 0) {
    await setup.store.close();
    console.error(`No knowledge: sources in ${assistant.file ?? 'the configuration (there is no file)'}.`);
    return 1;
  }
  const { sources, store, indexBudget } = setup;
  const knowledge = startKnowledge(sources, { store, ...indexBudget, log: (line) => console.error(line) });
  await knowledge.ready;
  knowledge.stop();
  await store.close();
  const language = values.language ?? assistant.language;
  console.log(
    askReport(knowledge, { latest, previous: values.previous, language }, assistant.rewriteQuestions !== false),
  );
  return 0;
}
