import { ChakraProvider } from '@chakra-ui/react';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getSystem } from '../system';
import { SourceList } from './source-list';

const HELP = 'https://www.example.com/help';
const sources = [
  { n: 1, title: 'Returns', url: `${HELP}/returns#how-to-return`, page: `${HELP}/returns` },
  { n: 2, title: 'Hours', url: `${HELP}/hours`, page: `${HELP}/hours` },
  { n: 3, title: 'Returns', url: `${HELP}/returns#refunds`, page: `${HELP}/returns` },
  { n: 4, title: 'Shipping', url: `${HELP}/shipping`, page: `${HELP}/shipping` },
];

function renderList(text: string, given = sources) {
  return render(
    <ChakraProvider value={getSystem()}>
      <SourceList sources={given} text={text} />
    </ChakraProvider>,
  );
}

/** The lines of the Sources list (`hidden` ones too): each its number, its link's text and address, and its text. */
function lines(list: HTMLElement) {
  return [...list.querySelectorAll('li')].map((li) => [
    li.value,
    li.querySelector('a')?.textContent,
    li.querySelector('a')?.getAttribute('href'),
    li.textContent,
  ]);
}

describe('SourceList', () => {
  it('lists only the pages the reply cites, in the order it first cites them, each once, at the section it cites', () => {
    renderList('Call us [2]. Refunds take five days [3], and you have thirty days [1] [2].');
    const list = screen.getByRole('region', { name: 'Sources' });

    // The Returns page is one line, at the section the reply cites first ([3]); Shipping, given but not cited, is not
    // shown at all, nor is there anything to open.
    expect(list.querySelectorAll('ol')).toHaveLength(1);
    expect(lines(list)).toEqual([
      [2, 'Hours', `${HELP}/hours`, 'Hours'],
      [3, 'Returns', `${HELP}/returns#refunds`, 'Returns'],
    ]);
    expect(list.textContent).not.toContain('Shipping');
    expect(within(list).queryByRole('button')).toBeNull();
  });

  it('shows no list when the reply cites none of the pages it was given', () => {
    renderList('We open at nine. [9] is no source.');
    expect(screen.queryByRole('region', { name: 'Sources' })).toBeNull();
  });

  it('lists every page when the reply cites every one', () => {
    renderList('[4] [1] [2]');
    const list = screen.getByRole('region', { name: 'Sources' });
    expect(within(list).queryByRole('button')).toBeNull();
    expect(lines(list).map(([n]) => n)).toEqual([4, 1, 2]);
  });

  it('says the host once, in the heading, when every page shares it', () => {
    renderList('[1]');
    const list = screen.getByRole('region', { name: 'Sources' });
    expect(list.querySelector('p')?.textContent).toBe('Sources from www.example.com');
    expect(list.textContent?.match(/www\.example\.com/g)).toHaveLength(1);
  });

  it('names each line’s host when the hosts differ', () => {
    renderList('[1] [2]', [
      { n: 1, title: 'Returns', url: `${HELP}/returns`, page: `${HELP}/returns` },
      { n: 2, title: 'Hours', url: 'https://shop.example.com:8443/hours', page: 'https://shop.example.com:8443/hours' },
    ]);
    const list = screen.getByRole('region', { name: 'Sources' });
    expect(list.querySelector('p')?.textContent).toBe('Sources');
    expect(lines(list).map(([, , , text]) => text)).toEqual([
      'Returns (www.example.com)',
      'Hours (shop.example.com:8443)',
    ]);
  });

  it('shows nothing when no source has a web address', () => {
    renderList('[1]', [{ n: 1, title: 'Mail', url: 'mailto:shop@example.com', page: 'mailto:shop@example.com' }]);
    expect(screen.queryByRole('region', { name: 'Sources' })).toBeNull();
  });
});
