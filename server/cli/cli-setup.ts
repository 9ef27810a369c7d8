import type { IndexBudget, KnowledgeSource, KnowledgeStore } from '../knowledge/knowledge.ts';
import { buildServerParts } from '../server-parts.ts';
import {
  type AssistantConfig,
  EnvError,
  loadAssistantConfig,
  loadDotEnvFiles,
  readStoreEnv,
  startupFailure,
} from '../settings/settings.ts';

/** What the knowledge commands work on: the site's sources and the store, as the server would find them. */
export interface KnowledgeSetup {
  /** The site's file as the server reads it. */
  assistant: AssistantConfig;
  sources: KnowledgeSource[];
  store: KnowledgeStore;
  /** The index's budget (`KNOWLEDGE_INDEX_TEXT`): the same as the server's, or the index kept for it is built again. */
  indexBudget: IndexBudget;
}

/**
 * Reads the same `.env` files, variables and site file as the server (from the working directory). A problem is one
 * line on stderr, and `undefined`: the command then exits 1.
 */
export function knowledgeSetup(log: (line: string) => void): KnowledgeSetup | undefined {
  try {
    loadDotEnvFiles(process.env, process.cwd());
    const problems: string[] = [];
    const settings = readStoreEnv(process.env, problems);
    if (problems.length > 0) throw new EnvError(problems);
    const assistant = loadAssistantConfig(process.env, process.cwd(), { direct: false });
    const sources = assistant.knowledge ?? [];
    // The server's store, from the same place; the command works on it itself (no library, no counts), and closes it.
    const { store } = buildServerParts({ store: settings }, { sources, library: false, log });
    if (!store) throw new Error('no knowledge store');
    return { assistant, sources, store, indexBudget: settings.indexBudget };
  } catch (error) {
    console.error(startupFailure(error).replace(/^\[server\]/, '[knowledge]'));
    return undefined;
  }
}
