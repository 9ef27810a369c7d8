// The app's job with no framework (plain DOM, `fetch`, same streamed request and texts): the practical limit.
// The request constants are written in from contract/llm.ts by bench/serve.ts.
const { path, model, maxTokens, temperature, timeoutMs } = __CHAT_REQUEST__;

const form = document.querySelector('form');
const input = form.elements.namedItem('message');
const button = form.querySelector('button');
const log = document.querySelector('[role="log"]');
// Rows go into contained groups of 50, as in the app, so that an append does not lay out the whole list again.
const GROUP_SIZE = 50;
let group = null;

const element = (tag, className, text = '') =>
  Object.assign(document.createElement(tag), { className, textContent: text });

function append(text, sender) {
  const bubble = element('div', 'bubble', text);
  bubble.dataset.sender = sender;
  const row = element('div', sender === 'user' ? 'row user' : 'row');
  row.append(element('span', 'visually-hidden', sender === 'user' ? 'You:' : 'Assistant:'), bubble);
  if (group === null || group.childElementCount === GROUP_SIZE) {
    group = element('div', 'group');
    log.append(group);
  }
  group.append(row);
  log.scrollTop = log.scrollHeight;
  return bubble;
}

function setSending(sending) {
  input.disabled = sending;
  button.disabled = sending;
  input.placeholder = sending ? 'Sending...' : 'Your message here';
}

/** Streams the reply, handing the text so far to `onPiece` at each piece; resolves with the whole reply. */
async function requestReply(text, onPiece) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: text }],
      max_tokens: maxTokens,
      temperature,
      stream: true,
    }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let reply = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return reply;
    buffered += value;
    const events = buffered.split('\n\n');
    buffered = events.pop();
    for (const event of events) {
      const data = event.replace(/^data: /, '');
      if (data === '[DONE]') return reply;
      const piece = JSON.parse(data)?.choices?.[0]?.delta?.content;
      if (typeof piece === 'string' && piece !== '') {
        reply += piece;
        onPiece(reply);
      }
    }
  }
}

// Enter that confirms an IME composition chooses characters; it must not send the message.
input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.isComposing || event.keyCode === 229)) event.preventDefault();
});

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = input.value;
  if (input.disabled || text.trim() === '') return;
  append(text, 'user');
  input.value = '';
  setSending(true);
  let bubble = null;
  const show = (reply) => {
    if (bubble === null) bubble = append(reply, 'bot');
    else bubble.textContent = reply;
    log.scrollTop = log.scrollHeight;
  };
  try {
    const reply = await requestReply(text, show);
    if (reply.trim() === '') show('No response received');
  } catch (error) {
    console.error('Chat request failed:', error);
    bubble = null;
    show('Error: Unable to get response');
  }
  setSending(false);
  input.focus();
});
