/**
 * The background rules of the instruction parser (./rules.ts puts them in order): remove it, blur it,
 * or replace it with a colour.
 */
import { BG, C, INTENSITY, SUBJECT, colour, pick, strength, WHITE, type Rule } from './ruleFragments.js';

export const backgroundRemove: Rule = {
  name: 'background-remove',
  re: new RegExp(
    String.raw`\b(?:(?:remove|delete|erase|drop|get\s+rid\s+of|cut\s+out|take\s+out|take\s+away|strip|lose` +
      String.raw`|eliminate)\s+(?:the\s+|its\s+|a\s+|any\s+)?(?:entire\s+|whole\s+)?${BG}` +
      String.raw`|(?:no|without(?:\s+(?:a|the|any))?|removed?|transparent|clear|blank)\s+${BG}` +
      String.raw`|${BG}\s+(?:removed|removal|remover|gone|erased)` +
      String.raw`|(?:cut\s*out|isolate|extract)\s+${SUBJECT}|cut-?out)\b`,
    'g',
  ),
  build: () => [{ op: 'background', action: 'remove' }],
};

export const backgroundBlur: Rule = {
  name: 'background-blur',
  re: new RegExp(
    String.raw`\b(?:${INTENSITY}\s+)?(?:blur(?:red|ry)?|defocus(?:ed)?|soften|soft|out\s+of\s+focus)\s+` +
      String.raw`(?:out\s+)?(?:the\s+|its\s+)?${BG}(?:\s+${INTENSITY})?` +
      String.raw`|\b${BG}\s+(?:${INTENSITY}\s+)?(?:blur(?:red|ry)?|out\s+of\s+focus|soft|defocused)(?:\s+${INTENSITY})?` +
      String.raw`|\b(?:bokeh|portrait\s+mode|(?:shallow\s+)?depth\s+of\s+field)(?:\s+effect)?\b`,
    'g',
  ),
  build: (m) => {
    const s = strength(m[1] ?? m[2] ?? m[3] ?? m[4]);
    return [{ op: 'background', action: 'blur', sigma: pick(s, 6, 12, 24) }];
  },
};

export const backgroundReplace: Rule = {
  name: 'background-replace',
  re: new RegExp(
    String.raw`\b(?:replace|change|swap|switch|turn|make|set|paint|fill|colou?r)\s+(?:the\s+|its\s+)?${BG}\s+` +
      String.raw`(?:with|to|into|in|for|by|as|=)?\s*(?:an?\s+|plain\s+|solid\s+|pure\s+|flat\s+|simple\s+)*${C}` +
      String.raw`(?:\s+(?:colou?r|one|backdrop))?` +
      String.raw`|\b(?:(?:put|place|set)\s+(?:it\s+|the\s+subject\s+)?on\s+)?` +
      String.raw`(?:an?\s+|plain\s+|solid\s+|pure\s+|flat\s+|simple\s+)*${C}\s+(?:${BG}|backdrop)` +
      String.raw`|\b${BG}\s+(?:colou?r\s+)?(?:to\s+|of\s+|in\s+|is\s+|=\s*|should\s+be\s+)?(?:be\s+)?(?:plain\s+|solid\s+|pure\s+)?${C}`,
    'g',
  ),
  build: (m) => {
    const c = colour(m[1] ?? m[2] ?? m[3], WHITE);
    if (c.alpha === 0) return [{ op: 'background', action: 'remove' }];
    return [{ op: 'background', action: 'replace', color: c }];
  },
};
