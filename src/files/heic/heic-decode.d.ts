/** Types of heic-decode 2.1 (the package ships none): libheif (WebAssembly) decoding a HEIC's primary image. */
declare module 'heic-decode' {
  /** The primary image as RGBA, 8 bits a sample (10-bit images are scaled down by libheif). */
  export interface DecodedHeic {
    width: number;
    height: number;
    data: Uint8ClampedArray;
  }
  export default function decode(input: { buffer: ArrayBufferLike | Uint8Array }): Promise<DecodedHeic>;
}
