/**
 * The architectures the catalog knows, the dtypes and tasks, and what each
 * architecture is made of: its ONNX parts and configuration files.
 */
export const ARCHES = [
  'clip',
  'siglip',
  'vit-gpt2',
  'florence2',
  'smolvlm',
  'yolox',
  'ultraface',
  'sface',
  'ppocr',
  'swin2sr',
  'modnet',
  'birefnet',
  'janus',
] as const;
export type Arch = (typeof ARCHES)[number];
export const DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'] as const;
export type Dtype = (typeof DTYPES)[number];
export const TASKS = [
  'embed',
  'caption',
  'prompt',
  'detect',
  'detect-faces',
  'embed-faces',
  'ocr',
  'upscale',
  'remove-background',
  'generate',
] as const;
export type Task = (typeof TASKS)[number];
/** Architectures run directly with onnxruntime-node (not transformers.js): their files are listed explicitly. */
export const ORT_ARCHES: readonly Arch[] = ['yolox', 'ultraface', 'sface', 'ppocr'];

/** transformers.js file-name suffix of each dtype (onnx/<part><suffix>.onnx). */
export const DTYPE_SUFFIX: Record<Dtype, string> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};

/** The configuration files of a transformers.js model, by what it is made of. */
const TOKENIZER_CONFIGS = ['tokenizer.json', 'tokenizer_config.json'] as const;
const EMBEDDER_CONFIGS = ['config.json', 'preprocessor_config.json', ...TOKENIZER_CONFIGS] as const;
const GENERATOR_CONFIGS = [
  'config.json',
  'generation_config.json',
  'preprocessor_config.json',
  ...TOKENIZER_CONFIGS,
] as const;
const IMAGE_TO_IMAGE_CONFIGS = ['config.json', 'preprocessor_config.json'] as const;

/** ONNX parts and which task each architecture serves. */
export const ARCH_INFO: Record<Arch, { task: Task; parts: readonly string[]; configs: readonly string[] }> = {
  clip: { task: 'embed', parts: ['vision_model', 'text_model'], configs: EMBEDDER_CONFIGS },
  siglip: { task: 'embed', parts: ['vision_model', 'text_model'], configs: EMBEDDER_CONFIGS },
  'vit-gpt2': { task: 'caption', parts: ['encoder_model', 'decoder_model_merged'], configs: GENERATOR_CONFIGS },
  florence2: {
    task: 'caption',
    parts: ['vision_encoder', 'embed_tokens', 'encoder_model', 'decoder_model_merged'],
    configs: GENERATOR_CONFIGS,
  },
  // transformers.js 4.3.1's Idefics3 processor reads processor_config.json; the chat template comes from
  // tokenizer_config.json (it never reads chat_template.json, so the catalog does not list it).
  smolvlm: {
    task: 'prompt',
    parts: ['vision_encoder', 'embed_tokens', 'decoder_model_merged'],
    configs: [...GENERATOR_CONFIGS, 'processor_config.json'],
  },
  yolox: { task: 'detect', parts: [], configs: [] },
  ultraface: { task: 'detect-faces', parts: [], configs: [] },
  sface: { task: 'embed-faces', parts: [], configs: [] },
  ppocr: { task: 'ocr', parts: [], configs: [] },
  // Image-to-image models (src/models/engine/imageToImage.ts): one `model` part, no tokenizer.
  swin2sr: { task: 'upscale', parts: ['model'], configs: IMAGE_TO_IMAGE_CONFIGS },
  modnet: { task: 'remove-background', parts: ['model'], configs: IMAGE_TO_IMAGE_CONFIGS },
  birefnet: { task: 'remove-background', parts: ['model'], configs: IMAGE_TO_IMAGE_CONFIGS },
  // Text-to-image (src/models/engine/generate.ts): transformers.js MultiModalityCausalLM's six sessions.
  janus: {
    task: 'generate',
    parts: ['prepare_inputs_embeds', 'language_model', 'lm_head', 'gen_head', 'gen_img_embeds', 'image_decode'],
    configs: [
      'config.json',
      'generation_config.json',
      'preprocessor_config.json',
      'processor_config.json',
      ...TOKENIZER_CONFIGS,
    ],
  },
};

/** Config and ONNX files an architecture needs at a dtype. */
export function requiredFiles(arch: Arch, dtype: Dtype, partDtypes?: Record<string, Dtype>): string[] {
  const info = ARCH_INFO[arch];
  return [...info.configs, ...info.parts.map((p) => `onnx/${p}${DTYPE_SUFFIX[partDtypes?.[p] ?? dtype]}.onnx`)];
}
