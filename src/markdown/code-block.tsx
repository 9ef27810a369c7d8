import { t } from '../text';
import { CopyButton } from './copy-button';

export interface CodeBlockProps {
  code: string;
  /** The fence's info word (e.g. `ts`), shown as a label. */
  language?: string;
}

/**
 * A fenced or indented code block: whitespace kept, scrolled sideways inside the bubble rather than widening it, with a
 * Copy button in a header above the code, where it covers none of it.
 */
export function CodeBlock({ code, language }: CodeBlockProps) {
  return (
    // Code reads left to right on a right-to-left page too.
    <div data-code-block dir="ltr">
      <div data-code-header>
        <span>{language}</span>
        <CopyButton text={code} label={t('copyCode')} />
      </div>
      {/* Focusable so that a long line can be scrolled sideways from the keyboard. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1). */}
      <pre data-scroll tabIndex={0}>
        <code>{code}</code>
      </pre>
    </div>
  );
}
