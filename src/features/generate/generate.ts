/**
 * POST /api/ai/generate: text to image with the local generation model
 * (Janus-Pro-1B; a tiny stand-in in the test profile).
 *
 * A request is checked and prepared on the HTTP thread (prompt, ratio, model,
 * reference images reduced to colour statistics), then becomes a durable job
 * in the generation queue (./queue.ts). `Prefer: respond-async` answers 202
 * with the job's status URL at once; otherwise the request waits for the job
 * (up to GENERATE_SYNC_TIMEOUT_SECONDS, then it answers 202 too, so a slow
 * machine never loses a finished image).
 */
import type { GenerationQueuePort, Principal, Services } from '../kernel/services.js';
import { DomainError, invalid } from '../../platform/errors.js';
import { requireInOrganization } from '../kernel/access.js';
import { EDIT_FORMATS, loadAiImage, type AiRequestDeps } from '../ai/index.js';
import type { Job } from '../../jobs/types.js';
import { fitToAspect, planAspect, type AspectMethod } from './aspectRatio.js';
import { applyColourGuidance, averageStats, colourStats, REFERENCE_GUIDANCE, type ColourStats } from './guidance.js';
import { GENERATE_JOB, GenerationQueue, type GenerationProgress } from './queue.js';
import { withRequestOrigin } from '../../platform/requestOrigin.js';

/** Most reference images taken into account. */
export const MAX_REFERENCE_IMAGES = 4;
export const MAX_PROMPT_CHARS = 2000;

export interface GenerateRequest {
  prompt: string;
  referenceImages?: string[];
  aspectRatio?: string;
  model?: string;
  seed?: number;
}

/** What a generation job carries: everything needed to re-run it after a crash. */
export interface GeneratePayload {
  organizationId: string;
  prompt: string;
  /** Catalog name of the model to run. */
  model: string;
  /** What the client asked for, when it named another model (a hosted one). */
  modelRequested: string | null;
  aspectRatio: string;
  ratio: number;
  aspectNote: string | null;
  seed: number;
  guidance: ColourStats | null;
  referenceCount: number;
  /** The origin the request came to: the output's URL is made under it (without PUBLIC_URL, a LAN client's host). */
  origin?: string;
}

/** The answer of a generation (sync body, and `result` of a finished job). */
export interface GenerateAnswer {
  url: string;
  /** compat.md's name for the same URL. */
  result: string;
  model: string;
  modelRequested?: string;
  modelNote?: string;
  width: number;
  height: number;
  aspectRatio: string;
  /** How the model's square became the ratio: none, crop, or outpaint+crop (blurred mirror fill). */
  aspectRatioMethod: AspectMethod;
  aspectRatioNote?: string;
  seed: number;
  referenceImagesUsed?: string;
  /** Seconds the generation took (model, reshaping, guidance, storing). */
  processing_time: number;
}

export interface GenerateAccepted {
  jobId: string;
  status: 'queued' | 'running';
  statusUrl: string;
}

export interface GenerationStatus {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  progress: number;
  result?: GenerateAnswer;
  error?: { code: string; message: string };
}

/** What queueing a generation uses: the AI request's image source and models, and the generation queue. */
export type GenerateDeps = AiRequestDeps & Pick<Services, 'generation'>;

export type GenerationQueueOf = GenerationQueue<GeneratePayload, GenerateAnswer>;

/** FNV-1a: the default seed, so the same prompt gives the same image. */
function promptSeed(prompt: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < prompt.length; i++) h = Math.imul(h ^ prompt.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function queueOf(deps: Pick<Services, 'generation'>): GenerationQueuePort<GeneratePayload> {
  if (!deps.generation) throw new DomainError('unavailable', 'image generation is not running in this process');
  return deps.generation;
}

/** The catalog model that serves a request; hosted model names map to the local default (never refused). */
function pickModel(
  deps: Pick<Services, 'models'>,
  requested: string | undefined,
): { model: string; requested: string | null } {
  const local = deps.models.listModels().filter((m) => m.task === 'generate');
  const named = requested?.trim();
  if (named && local.some((m) => m.name === named)) return { model: named, requested: null };
  const fallback = deps.models.roles().generate;
  if (!fallback)
    throw new DomainError(
      'unavailable',
      'no image generation model is configured (models/catalog.json roles.generate)',
    );
  return { model: fallback, requested: named || null };
}

/** Checks and prepares a request into a job payload (fails fast: 400, 422, 503). */
export async function prepareGeneration(
  deps: AiRequestDeps,
  principal: Principal,
  req: GenerateRequest,
): Promise<GeneratePayload> {
  const prompt = req.prompt?.trim() ?? '';
  if (!prompt) throw invalid('prompt must not be empty');
  if (prompt.length > MAX_PROMPT_CHARS) throw invalid(`prompt must be at most ${MAX_PROMPT_CHARS} characters`);
  const refs = (req.referenceImages ?? []).filter((r) => typeof r === 'string' && r.trim());
  if (refs.length > MAX_REFERENCE_IMAGES) throw invalid(`at most ${MAX_REFERENCE_IMAGES} reference images`);
  // Validate the ratio before any fetching, so a bad value costs nothing.
  if (req.aspectRatio !== 'match_input_image') planAspect(req.aspectRatio, null);

  const { model, requested } = pickModel(deps, req.model);
  const info = deps.models.modelInfo(model);
  if (!info.installed) {
    throw new DomainError(
      'unavailable',
      `the image generation model ${model} is not installed: run \`npm run models -- fetch ${model}\` (about 1.8 GB), then retry`,
      { model },
    );
  }

  const loaded = await Promise.all(refs.map((r) => loadAiImage(deps, r, EDIT_FORMATS)));
  const aspect = planAspect(req.aspectRatio, loaded[0] ?? null);
  const guidance = loaded.length ? averageStats(await Promise.all(loaded.map((l) => colourStats(l.buffer)))) : null;
  return {
    organizationId: principal.organizationId,
    origin: deps.urls.origin(),
    prompt,
    model,
    modelRequested: requested,
    aspectRatio: aspect.label,
    ratio: aspect.ratio,
    aspectNote: aspect.note ?? null,
    seed: req.seed ?? promptSeed(prompt),
    guidance,
    referenceCount: loaded.length,
  };
}

/** Runs one generation job: model → ratio → colour guidance → temporary output. */
export async function runGeneration(
  deps: Pick<Services, 'outputs' | 'models'>,
  p: GeneratePayload,
  progress: (done: number, total: number) => void,
): Promise<GenerateAnswer> {
  const started = performance.now();
  const image = await deps.models.generateImage(p.prompt, { model: p.model, seed: p.seed, onProgress: progress });
  const fitted = await fitToAspect(image.png, p.ratio);
  const png = p.guidance ? await applyColourGuidance(fitted.png, p.guidance) : fitted.png;
  const save = () => deps.outputs.save(png, 'png');
  const { url } = await (p.origin ? withRequestOrigin(p.origin, save) : save());
  return {
    url,
    result: url,
    model: image.model,
    ...(p.modelRequested
      ? {
          modelRequested: p.modelRequested,
          modelNote: `${p.modelRequested} is not served here; the local ${image.model} ran instead`,
        }
      : {}),
    width: fitted.width,
    height: fitted.height,
    aspectRatio: p.aspectRatio,
    aspectRatioMethod: fitted.method,
    ...(p.aspectNote ? { aspectRatioNote: p.aspectNote } : {}),
    seed: p.seed,
    ...(p.referenceCount
      ? { referenceImagesUsed: `${p.referenceCount} image${p.referenceCount > 1 ? 's' : ''}: ${REFERENCE_GUIDANCE}` }
      : {}),
    processing_time: Math.round(performance.now() - started) / 1000,
  };
}

/** Builds the generation queue of an app (started by the caller). */
export function createGenerationQueue(
  deps: Pick<Services, 'config' | 'storage' | 'outputs' | 'logger' | 'models'>,
): GenerationQueueOf {
  return new GenerationQueue<GeneratePayload, GenerateAnswer>({
    store: deps.storage.jobs,
    logger: deps.logger.child({ component: 'generate' }),
    maxQueue: deps.config.generateMaxQueue,
    leaseMs: deps.config.jobLeaseSeconds * 1000,
    initialSeconds: deps.config.modelProfile === 'test' ? 1 : 120,
    run: (payload, _ctx, progress) => runGeneration(deps, payload, progress),
    onProgress: (job, report) => void reportProgress(deps, job, report),
  });
}

/** The `job.progress` name of a generation (`GET /api/events`): with its jobId, steps done and total. */
export const GENERATE_PROGRESS = 'generate';

/**
 * A generation's progress as a `job.progress` event of its organization: `{job: 'generate', jobType, jobId,
 * done, total, progress (0..1), status}`; `failed` is one attempt's end (the status URL says whether it retries).
 */
async function reportProgress(
  deps: Pick<Services, 'storage' | 'logger'>,
  job: Job<GeneratePayload>,
  report: { done: number; total: number; status: 'running' | 'succeeded' | 'failed' },
): Promise<void> {
  const fraction = report.status === 'succeeded' ? 1 : report.total > 0 ? Math.min(1, report.done / report.total) : 0;
  try {
    await deps.storage.events.append({
      type: 'job.progress',
      organizationId: job.payload.organizationId,
      collectionId: null,
      mediaId: null,
      data: {
        job: GENERATE_PROGRESS,
        jobType: GENERATE_JOB,
        jobId: String(job.id),
        done: report.done,
        total: report.total,
        progress: Math.round(fraction * 1000) / 1000,
        status: report.status,
      },
    });
  } catch (err) {
    deps.logger.warn('generation progress event failed', { err });
  }
}

const statusUrl = (deps: Pick<Services, 'urls'>, id: number) => `${deps.urls.origin()}/api/ai/jobs/${id}`;

/**
 * Queues a generation. Async: answers the job at once. Sync: waits for it and
 * answers the image, or the job when the wait runs out.
 */
export async function generate(
  deps: GenerateDeps,
  principal: Principal,
  req: GenerateRequest,
  opts: { async: boolean },
): Promise<{ kind: 'done'; answer: GenerateAnswer } | { kind: 'accepted'; accepted: GenerateAccepted }> {
  const queue = queueOf(deps);
  const payload = await prepareGeneration(deps, principal, req);
  const job = await queue.enqueue(payload);
  const accepted = (status: 'queued' | 'running'): GenerateAccepted => ({
    jobId: String(job.id),
    status,
    statusUrl: statusUrl(deps, job.id),
  });
  if (opts.async) return { kind: 'accepted', accepted: accepted('queued') };
  const settled = await queue.wait(job.id, deps.config.generateSyncTimeoutSeconds * 1000);
  if (!settled) throw new DomainError('unavailable', 'the generation job disappeared');
  const view = present(settled);
  if (view.status === 'succeeded' && view.result) return { kind: 'done', answer: view.result };
  if (view.status === 'failed')
    throw new DomainError(errorCode(view.error?.code), view.error?.message ?? 'image generation failed');
  return { kind: 'accepted', accepted: accepted(view.status === 'running' ? 'running' : 'queued') };
}

const KNOWN_CODES = new Set(['invalid_input', 'unprocessable', 'rate_limited', 'unavailable']);
const errorCode = (code: string | undefined) => (code && KNOWN_CODES.has(code) ? code : 'unavailable') as 'unavailable';

function present(job: Job): GenerationStatus {
  const p = (job.progress ?? {}) as GenerationProgress<GenerateAnswer>;
  const status = job.status === 'cancelled' ? 'failed' : job.status;
  const fraction = status === 'succeeded' ? 1 : p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  return {
    id: String(job.id),
    status,
    progress: Math.round(fraction * 1000) / 1000,
    ...(status === 'succeeded' && p.result ? { result: p.result } : {}),
    ...(status === 'failed'
      ? {
          error: {
            code: p.error?.code ?? 'unavailable',
            message: p.error?.message ?? job.lastError ?? 'the generation was cancelled',
          },
        }
      : {}),
  };
}

/** A generation job of the caller's organization; any other id answers 404. */
export async function generationStatus(
  deps: Pick<Services, 'generation'>,
  principal: Principal,
  id: string,
): Promise<GenerationStatus> {
  const n = /^\d{1,15}$/.test(id) ? Number(id) : NaN;
  const job = Number.isSafeInteger(n) ? await queueOf(deps).get(n) : null;
  const payload = job?.type === GENERATE_JOB ? (job.payload as GeneratePayload) : null;
  requireInOrganization(principal, payload, 'no such generation job');
  return present(job!); // a payload means there is a job
}
