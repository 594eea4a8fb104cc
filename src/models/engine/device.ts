/**
 * Chooses where models run. CUDA is opt-in (config.device === 'cuda'); when the
 * CUDA execution provider is not installed, onnxruntime-node throws "Failed to
 * load shared library" and transformers.js has no fallback of its own, so we
 * retry on CPU, log one warning, and stay on CPU for later loads.
 */
export type Device = 'cpu' | 'cuda';

export class DeviceChooser {
  private cudaFailed = false;

  constructor(
    private readonly wanted: Device,
    private readonly warn: (msg: string, fields?: Record<string, unknown>) => void,
  ) {}

  /** The device new loads use now. */
  get current(): Device {
    return this.wanted === 'cuda' && !this.cudaFailed ? 'cuda' : 'cpu';
  }

  /** Runs `load` on the current device; on a CUDA failure, once more on CPU. */
  async load<T>(what: string, load: (device: Device) => Promise<T>): Promise<{ value: T; device: Device }> {
    const device = this.current;
    if (device === 'cpu') return { value: await load('cpu'), device };
    try {
      return { value: await load('cuda'), device };
    } catch (err) {
      const value = await load('cpu'); // a CPU failure too is a real error: let it throw
      this.cudaFailed = true;
      this.warn('CUDA unavailable, running models on CPU', { model: what, err: (err as Error).message });
      return { value, device: 'cpu' };
    }
  }
}
