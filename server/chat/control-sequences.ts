// The chat-template control sequences of the open models in use, and the breaker that keeps a visitor's text and
// the site's quoted material from forging a turn of the conversation.

/**
 * The control sequences of the chat templates of the open models in use (ChatML and Qwen, Llama 2, 3 and 4, Mistral,
 * Gemma, Phi, DeepSeek, Command R, GPT-OSS harmony), which many serving stacks read as special tokens even inside a
 * message. Matched in any case: a few serving stacks fold it. Beyond this list, every `<|word|>` (the form of ChatML,
 * Llama 3 and 4, Phi, Command R and harmony alike) and every DeepSeek `<｜…｜>` is broken too.
 */
export const CONTROL_SEQUENCES = [
  '<|im_start|>',
  '<|im_end|>',
  '<|im_sep|>',
  '<|endoftext|>',
  '<|begin_of_text|>',
  '<|start_header_id|>',
  '<|end_header_id|>',
  '<|eot_id|>',
  '<|eom_id|>',
  '<|python_tag|>',
  '<|header_start|>',
  '<|header_end|>',
  '<|eot|>',
  '<|start|>',
  '<|message|>',
  '<|channel|>',
  '<|return|>',
  '<|call|>',
  '<|START_OF_TURN_TOKEN|>',
  '<|END_OF_TURN_TOKEN|>',
  '<|SYSTEM_TOKEN|>',
  '<|CHATBOT_TOKEN|>',
  '<start_of_turn>',
  '<end_of_turn>',
  '<|assistant|>',
  '<|system|>',
  '<|user|>',
  '<|end|>',
  '<｜begin▁of▁sentence｜>',
  '<｜User｜>',
  '<｜Assistant｜>',
  '<｜end▁of▁sentence｜>',
  '<</SYS>>',
  '<<SYS>>',
  '[/INST]',
  '[INST]',
  '[SYSTEM_PROMPT]',
  '[/SYSTEM_PROMPT]',
  '[TOOL_CALLS]',
  '[AVAILABLE_TOOLS]',
  '[/AVAILABLE_TOOLS]',
  '[TOOL_RESULTS]',
  '[/TOOL_RESULTS]',
  '<tool_call>',
  '</tool_call>',
  '<BOS_TOKEN>',
  '</s>',
  '<s>',
];
const CONTROL_PATTERN = new RegExp(
  [
    '<\\|\\w{1,64}\\|>',
    '<｜[^｜<>\\n]{1,64}｜>',
    ...CONTROL_SEQUENCES.map((sequence) => sequence.replace(/[|[\]/]/g, '\\$&')),
  ].join('|'),
  'gi',
);
/** U+2060 WORD JOINER: invisible, and no tokenizer's special token has it inside. */
const WORD_JOINER = '\u2060';

/**
 * `text` with every chat-template control sequence broken by a word joiner after its first character, so that no
 * tokenizer reads it as a special token while a reader (and the model) still sees the same characters. Breaking only
 * inserts, so no new sequence can form: one pass is enough. Ordinary markup (`<b>`) is left as it is.
 */
export function breakControlSequences(text: string): string {
  return text.replace(CONTROL_PATTERN, (sequence) => sequence[0] + WORD_JOINER + sequence.slice(1));
}
