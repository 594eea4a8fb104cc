/** A face crop, or a placeholder circle when there is none. */
export function Crop({ src, alt }: { src: string | null; alt: string }) {
  if (!src) return <span class="person-crop person-crop-empty" role="img" aria-label={alt} />;
  return <img class="person-crop" src={src} alt={alt} loading="lazy" decoding="async" />;
}
