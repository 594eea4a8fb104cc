/**
 * Florence-2 task tokens whose answer is text. Kept apart from the engine so
 * the main thread can route prompts without importing transformers.js.
 */
export const FLORENCE_TEXT_TASKS = ['<CAPTION>', '<DETAILED_CAPTION>', '<MORE_DETAILED_CAPTION>', '<OCR>'] as const;
export const FLORENCE_DEFAULT_TASK = '<DETAILED_CAPTION>';
